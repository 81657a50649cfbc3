//! Conventions of every route (docs/api.md): authentication headers, request bodies, HEAD.

use crate::conventions::setup;
use crate::support::*;
use reqwest::Method;
use serde_json::json;

/// Every (method, path) of the seed that needs a token.
fn protected_calls(serial: &str) -> Vec<(Method, String)> {
    vec![
        (Method::DELETE, "/auth/".to_owned()),
        (Method::POST, "/change-password/".to_owned()),
        (Method::GET, "/devices/".to_owned()),
        (Method::GET, format!("/devices/{serial}/")),
        (Method::PUT, format!("/devices/{serial}/")),
        (Method::PATCH, format!("/devices/{serial}/")),
        (Method::DELETE, format!("/devices/{serial}/")),
        (Method::GET, format!("/devices/{serial}/ports/")),
        (Method::POST, format!("/devices/{serial}/reboot/")),
        (Method::GET, "/profile/".to_owned()),
        (Method::PUT, "/profile/".to_owned()),
        (Method::PATCH, "/profile/".to_owned()),
    ]
}

e2e!(protected_routes_refuse_missing_and_malformed_credentials);
fn protected_routes_refuse_missing_and_malformed_credentials() {
    let (server, alice, serial) = setup();
    let variants = [
        (None, NOT_PROVIDED),
        (Some(format!("Basic {}", "YWxpY2U6cGFzcw==")), NOT_PROVIDED),
        (Some(format!("Bearer {}", alice.token)), NOT_PROVIDED),
        (
            Some("Token".to_owned()),
            "Invalid token header. No credentials provided.",
        ),
        (
            Some(format!("Token {} extra", alice.token)),
            "Invalid token header. Token string should not contain spaces.",
        ),
        (
            Some("Token a b".to_owned()),
            "Invalid token header. Token string should not contain spaces.",
        ),
        (
            Some("Token 0123456789abcdef0123456789abcdef01234567".to_owned()),
            INVALID_TOKEN,
        ),
        (Some("Token nonsense".to_owned()), INVALID_TOKEN),
    ];
    for (method, path) in protected_calls(&serial) {
        for (header, detail) in &variants {
            let mut call = server.call(method.clone(), &path);
            if let Some(header) = header {
                call = call.authorization(header);
            }
            call.send().expect_401(detail);
        }
    }
    // Nothing above harmed the account's token.
    server
        .get("/profile/")
        .token(&alice.token)
        .send()
        .expect_status(200);
}

e2e!(the_token_keyword_is_case_insensitive);
fn the_token_keyword_is_case_insensitive() {
    let (server, alice, _serial) = setup();
    for keyword in ["Token", "token", "TOKEN", "tOkEn"] {
        let reply = server
            .get("/profile/")
            .authorization(&format!("{keyword} {}", alice.token))
            .send();
        reply.expect_status(200);
        assert_eq!(reply.json()["email"], "alice@example.com", "{reply}");
    }
}

e2e!(an_unknown_token_is_refused_on_public_routes_too);
fn an_unknown_token_is_refused_on_public_routes_too() {
    let (server, alice, _serial) = setup();
    let bad = "0123456789abcdef0123456789abcdef01234567";
    server
        .post("/register/")
        .token(bad)
        .json(&json!({"email": "newcomer@example.com"}))
        .send()
        .expect_401(INVALID_TOKEN);
    server
        .post("/auth/")
        .token(bad)
        .json(&json!({"email": alice.email, "password": alice.password}))
        .send()
        .expect_401(INVALID_TOKEN);
    server
        .post("/reset-password/")
        .token(bad)
        .json(&json!({"email": alice.email}))
        .send()
        .expect_401(INVALID_TOKEN);
    // The refused registration made no account.
    server.register("newcomer@example.com");
}

e2e!(a_body_of_another_media_type_is_415);
fn a_body_of_another_media_type_is_415() {
    let (server, alice, _serial) = setup();
    server
        .post("/auth/")
        .body("text/plain", "email=alice@example.com")
        .send()
        .expect_detail(415, "Unsupported media type \"text/plain\" in request.");
    server
        .post("/register/")
        .body("application/xml", "<email>bob@example.com</email>")
        .send()
        .expect_detail(
            415,
            "Unsupported media type \"application/xml\" in request.",
        );
    server
        .put("/profile/")
        .token(&alice.token)
        .body("text/plain", "name=Alice")
        .send()
        .expect_detail(415, "Unsupported media type \"text/plain\" in request.");
}

e2e!(json_with_a_charset_parameter_is_json);
fn json_with_a_charset_parameter_is_json() {
    let (server, alice, _serial) = setup();
    let body = json!({"email": alice.email, "password": alice.password}).to_string();
    new_token(
        &server
            .post("/auth/")
            .body("application/json; charset=utf-8", body)
            .send(),
    );
}

e2e!(malformed_json_is_400_with_a_parse_error);
fn malformed_json_is_400_with_a_parse_error() {
    let (server, alice, _serial) = setup();
    let calls = [
        server
            .post("/auth/")
            .body("application/json", "{\"email\": "),
        server
            .post("/register/")
            .body("application/json", "{email: 'x'}"),
        server
            .patch("/profile/")
            .token(&alice.token)
            .body("application/json", "{\"name\": \"x\",}"),
    ];
    for call in calls {
        let reply = call.send();
        reply.expect_status(400);
        let body = reply.json();
        assert_eq!(keys(&body), ["detail"], "{reply}");
        assert!(
            string(&body, "detail").starts_with("JSON parse error - "),
            "{reply}"
        );
    }
}

e2e!(json_that_is_not_an_object_is_400);
fn json_that_is_not_an_object_is_400() {
    let (server, alice, _serial) = setup();
    let expected =
        json!({"non_field_errors": ["Invalid data. Expected a dictionary, but got list."]});
    server
        .post("/auth/")
        .json(&json!([1, 2]))
        .send()
        .expect(400, expected.clone());
    server
        .post("/register/")
        .json(&json!(["a@b.co"]))
        .send()
        .expect(400, expected.clone());
    server
        .put("/profile/")
        .token(&alice.token)
        .json(&json!([]))
        .send()
        .expect(400, expected);
}

e2e!(an_empty_body_counts_as_an_empty_object);
fn an_empty_body_counts_as_an_empty_object() {
    let (server, _alice, _serial) = setup();
    server
        .post("/auth/")
        .send()
        .expect(400, json!({"email": [REQUIRED], "password": [REQUIRED]}));
    server
        .post("/auth/")
        .body("application/json", "")
        .send()
        .expect(400, json!({"email": [REQUIRED], "password": [REQUIRED]}));
    server
        .post("/register/")
        .body("application/json", "")
        .send()
        .expect_field_errors("email", &[REQUIRED]);
    server
        .post("/reset-password/")
        .send()
        .expect_field_errors("email", &[REQUIRED]);
}

/// A JSON object of exactly `size` bytes with an invalid `email` and a padding field.
fn padded_body(size: usize) -> String {
    let skeleton = json!({"email": "not-an-email", "pad": ""}).to_string();
    let pad = "x".repeat(size - skeleton.len());
    let body = json!({"email": "not-an-email", "pad": pad}).to_string();
    assert_eq!(body.len(), size);
    body
}

e2e!(bodies_over_64_kib_are_413);
fn bodies_over_64_kib_are_413() {
    let (server, _alice, _serial) = setup();
    for size in [64 * 1024 + 1, 100 * 1024] {
        server
            .post("/register/")
            .body("application/json", padded_body(size))
            .send()
            .expect_detail(413, "Request body is too large.");
    }
    // 64 KiB itself is not over the limit: the body is read and validated.
    server
        .post("/register/")
        .body("application/json", padded_body(64 * 1024))
        .send()
        .expect_field_errors("email", &["Enter a valid email address."]);
}

e2e!(head_is_get_without_a_body);
fn head_is_get_without_a_body() {
    let (server, alice, serial) = setup();
    for path in [
        "/devices/".to_owned(),
        format!("/devices/{serial}/"),
        "/profile/".to_owned(),
    ] {
        server
            .head(&path)
            .token(&alice.token)
            .send()
            .expect_empty(200);
        let reply = server.head(&path).send();
        reply.expect_empty(401);
        assert_eq!(reply.header("www-authenticate"), Some("Token"), "{reply}");
    }
}
