//! Conventions shared by every endpoint (docs/api.md) — trailing slashes, 404,
//! Allow, OPTIONS metadata, 405, authentication headers, request bodies.

use crate::support::*;
use reqwest::Method;
use serde_json::{Value, json};

/// A server with one verified account owning one device.
fn setup() -> (Server, Account, String) {
    let server = Server::start();
    let alice = server.account("alice@example.com");
    let serial = server.device_serial(&alice.email);
    (server, alice, serial)
}

/// Every user route of the seed and of the device extensions, with its exact `Allow` header (the documented order).
fn routes(serial: &str) -> Vec<(String, &'static str)> {
    vec![
        ("/auth/".to_owned(), "POST, DELETE, OPTIONS"),
        ("/change-password/".to_owned(), "POST, OPTIONS"),
        ("/devices/".to_owned(), "GET, HEAD, OPTIONS"),
        (
            format!("/devices/{serial}/"),
            "GET, PUT, PATCH, DELETE, HEAD, OPTIONS",
        ),
        (format!("/devices/{serial}/ports/"), "GET, HEAD, OPTIONS"),
        (format!("/devices/{serial}/reboot/"), "POST, OPTIONS"),
        ("/profile/".to_owned(), "GET, PUT, PATCH, HEAD, OPTIONS"),
        ("/register/".to_owned(), "POST, OPTIONS"),
        ("/reset-password/".to_owned(), "POST, OPTIONS"),
    ]
}

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

const ALL_METHODS: [Method; 7] = [
    Method::GET,
    Method::POST,
    Method::PUT,
    Method::PATCH,
    Method::DELETE,
    Method::HEAD,
    Method::OPTIONS,
];

e2e!(serve_prints_exactly_the_listening_line_first);
fn serve_prints_exactly_the_listening_line_first() {
    let server = Server::builder().process().start();
    let line: Value = serde_json::from_str(server.first_stdout_line()).unwrap_or_else(|error| {
        panic!(
            "first stdout line {:?}: {error}",
            server.first_stdout_line()
        )
    });
    assert_eq!(keys(&line), ["listening"], "{line}");
    let url = string(&line, "listening");
    let port = url
        .strip_prefix("http://127.0.0.1:")
        .unwrap_or_else(|| panic!("listening URL {url:?}"));
    assert!(
        port.parse::<u16>().is_ok_and(|port| port != 0),
        "port of {url:?}"
    );
}

e2e!(a_missing_trailing_slash_redirects_whatever_the_method_and_before_authentication);
fn a_missing_trailing_slash_redirects_whatever_the_method_and_before_authentication() {
    let (server, alice, serial) = setup();
    for (route, _) in routes(&serial) {
        let bare = route.trim_end_matches('/');
        for method in ALL_METHODS {
            let reply = server.call(method.clone(), bare).send();
            reply.expect_status(301);
            assert_eq!(reply.header("location"), Some(route.as_str()), "{reply}");
        }
        // The query string is kept.
        for method in [Method::GET, Method::POST, Method::DELETE] {
            let reply = server
                .call(method, &format!("{bare}?page=2&q=a%20b"))
                .send();
            reply.expect_status(301);
            assert_eq!(
                reply.header("location"),
                Some(format!("{route}?page=2&q=a%20b").as_str()),
                "{reply}"
            );
        }
        // Credentials change nothing: neither a bad token nor a good one.
        let reply = server
            .call(Method::PATCH, bare)
            .token("0123456789abcdef0123456789abcdef01234567")
            .send();
        reply.expect_status(301);
        let reply = server
            .call(Method::PUT, bare)
            .token(&alice.token)
            .json(&json!({"name": "x"}))
            .send();
        reply.expect_status(301);
        assert_eq!(reply.header("location"), Some(route.as_str()), "{reply}");
    }
    // A device path that is a route whether or not the device exists.
    let other = "0f2c3d4e-5a6b-4c7d-8e9f-a0b1c2d3e4f5";
    let reply = server.get(&format!("/devices/{other}")).send();
    reply.expect_status(301);
    assert_eq!(
        reply.header("location"),
        Some(format!("/devices/{other}/").as_str())
    );

    // DELETE /auth without the slash was only redirected: the token still works.
    server
        .delete("/auth")
        .token(&alice.token)
        .send()
        .expect_status(301);
    server
        .get("/profile/")
        .token(&alice.token)
        .send()
        .expect_status(200);
}

e2e!(unknown_paths_are_404);
fn unknown_paths_are_404() {
    let (server, alice, serial) = setup();
    let paths = [
        "/nope/".to_owned(),
        "/nope".to_owned(),
        "/api/devices/".to_owned(),
        "/profile/extra/".to_owned(),
        "/auth/x/".to_owned(),
        format!("/devices/{serial}/reboot/now/"),
        "/devices/a/b/c/d/".to_owned(),
    ];
    for path in &paths {
        for method in [Method::GET, Method::POST, Method::DELETE] {
            server
                .call(method.clone(), path)
                .send()
                .expect_detail(404, NOT_FOUND);
            server
                .call(method, path)
                .token(&alice.token)
                .send()
                .expect_detail(404, NOT_FOUND);
        }
    }
}

e2e!(options_answers_every_route_without_credentials);
fn options_answers_every_route_without_credentials() {
    let (server, _alice, serial) = setup();
    for (route, allow) in routes(&serial) {
        let reply = server.options(&route).send();
        reply.expect_status(200).expect_allow(allow);
        let body = reply.json();
        assert_eq!(
            keys(&body),
            ["actions", "description", "name", "parses", "renders"],
            "{reply}"
        );
        assert!(body["name"].is_string(), "{reply}");
        assert!(body["description"].is_string(), "{reply}");
        assert_eq!(body["renders"], json!(["application/json"]), "{reply}");
        assert_eq!(body["parses"], json!(["application/json"]), "{reply}");
        assert!(body["actions"].is_object(), "{reply}");
    }
}

/// `actions[method][field]` of `OPTIONS path`, with an optional `max_length` checked and removed.
fn field_metadata(server: &Server, path: &str, method: &str, field: &str) -> Value {
    let reply = server.options(path).send();
    reply.expect_status(200);
    let mut meta = reply.json()["actions"][method][field].clone();
    assert!(meta.is_object(), "no actions.{method}.{field}\n{reply}");
    if let Some(max) = meta
        .as_object_mut()
        .and_then(|meta| meta.remove("max_length"))
    {
        assert!(max.is_u64(), "max_length should be an integer\n{reply}");
    }
    meta
}

e2e!(options_describes_the_body_of_each_write_method);
fn options_describes_the_body_of_each_write_method() {
    let (server, _alice, serial) = setup();
    let email = json!({"type": "email", "required": true, "read_only": false, "label": "Email"});
    assert_eq!(field_metadata(&server, "/auth/", "POST", "email"), email);
    assert_eq!(
        field_metadata(&server, "/register/", "POST", "email"),
        email
    );
    assert_eq!(
        field_metadata(&server, "/reset-password/", "POST", "email"),
        email
    );

    let password = field_metadata(&server, "/auth/", "POST", "password");
    assert_eq!(password["type"], "string");
    assert_eq!(password["required"], true);
    assert_eq!(password["read_only"], false);
    assert!(password["label"].is_string());
    for field in ["old_password", "new_password"] {
        let meta = field_metadata(&server, "/change-password/", "POST", field);
        assert_eq!(meta["type"], "string", "{field}: {meta}");
        assert_eq!(meta["read_only"], false, "{field}: {meta}");
        assert!(meta["required"].is_boolean(), "{field}: {meta}");
        assert!(meta["label"].is_string(), "{field}: {meta}");
    }
    assert_eq!(
        field_metadata(&server, "/change-password/", "POST", "new_password")["required"],
        true
    );

    let reply = server.options("/profile/").send();
    let actions = &reply.json()["actions"];
    let name = json!({"type": "string", "required": false, "read_only": false, "label": "Name", "max_length": 150});
    assert_eq!(actions["PUT"]["name"], name, "{reply}");
    assert_eq!(actions["PATCH"]["name"], name, "{reply}");

    // One action per POST/PUT/PATCH method that takes body fields, no more.
    for (path, methods) in [
        ("/auth/", &["POST"][..]),
        ("/register/", &["POST"]),
        ("/reset-password/", &["POST"]),
        ("/change-password/", &["POST"]),
        ("/profile/", &["PATCH", "PUT"]),
    ] {
        let reply = server.options(path).send();
        assert_eq!(keys(&reply.json()["actions"]), methods, "{reply}");
    }

    // No body-taking write method: no action.
    let reply = server.options(&format!("/devices/{serial}/reboot/")).send();
    assert_eq!(reply.json()["actions"], json!({}), "{reply}");
    let reply = server.options("/devices/").send();
    assert_eq!(reply.json()["actions"], json!({}), "{reply}");
}

e2e!(options_with_an_invalid_token_is_401_and_with_a_valid_one_200);
fn options_with_an_invalid_token_is_401_and_with_a_valid_one_200() {
    let (server, alice, serial) = setup();
    for (route, allow) in routes(&serial) {
        server
            .options(&route)
            .token("not-a-token")
            .send()
            .expect_401(INVALID_TOKEN);
        server
            .options(&route)
            .token(&alice.token)
            .send()
            .expect_status(200)
            .expect_allow(allow);
    }
}

e2e!(a_wrong_method_is_405_with_allow);
fn a_wrong_method_is_405_with_allow() {
    let (server, alice, serial) = setup();
    let public = [
        (Method::PATCH, "/register/", "POST, OPTIONS"),
        (Method::GET, "/register/", "POST, OPTIONS"),
        (Method::PUT, "/reset-password/", "POST, OPTIONS"),
        (Method::GET, "/reset-password/", "POST, OPTIONS"),
    ];
    for (method, path, allow) in public {
        let reply = server.call(method.clone(), path).send();
        reply
            .expect_detail(405, &format!("Method \"{method}\" not allowed."))
            .expect_allow(allow);
    }
    let reboot = format!("/devices/{serial}/reboot/");
    let authenticated = [
        (Method::GET, "/auth/", "POST, DELETE, OPTIONS"),
        (Method::PUT, "/auth/", "POST, DELETE, OPTIONS"),
        (Method::GET, "/change-password/", "POST, OPTIONS"),
        (Method::POST, "/devices/", "GET, HEAD, OPTIONS"),
        (Method::DELETE, "/devices/", "GET, HEAD, OPTIONS"),
        (Method::GET, reboot.as_str(), "POST, OPTIONS"),
        (Method::POST, "/profile/", "GET, PUT, PATCH, HEAD, OPTIONS"),
        (
            Method::DELETE,
            "/profile/",
            "GET, PUT, PATCH, HEAD, OPTIONS",
        ),
    ];
    for (method, path, allow) in authenticated {
        let reply = server.call(method.clone(), path).token(&alice.token).send();
        reply
            .expect_detail(405, &format!("Method \"{method}\" not allowed."))
            .expect_allow(allow);
    }
}

e2e!(a_wrong_method_on_a_protected_route_without_credentials_is_401);
fn a_wrong_method_on_a_protected_route_without_credentials_is_401() {
    let (server, _alice, serial) = setup();
    let reboot = format!("/devices/{serial}/reboot/");
    for (method, path) in [
        (Method::GET, "/change-password/"),
        (Method::POST, "/devices/"),
        (Method::DELETE, "/devices/"),
        (Method::GET, reboot.as_str()),
        (Method::POST, "/profile/"),
        (Method::DELETE, "/profile/"),
    ] {
        server.call(method, path).send().expect_401(NOT_PROVIDED);
    }
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
        .body(
            "application/x-www-form-urlencoded",
            "email=bob%40example.com",
        )
        .send()
        .expect_detail(
            415,
            "Unsupported media type \"application/x-www-form-urlencoded\" in request.",
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
