//! The conventions every route follows, in DRF's order: trailing slash,
//! 404, authentication, OPTIONS, 405, body parsing, field errors.

use super::TestApi;
use actix_web::http::header::{self, HeaderValue};
use actix_web::http::{Method, StatusCode};
use serde_json::json;

const SERIAL: &str = "0f8fad5b-d9cb-469f-a165-70867728950e";

fn auth(token: &str) -> (header::HeaderName, String) {
    (header::AUTHORIZATION, format!("Token {token}"))
}

#[actix_web::test]
async fn a_missing_slash_redirects_keeping_the_query_and_unknown_paths_are_404() {
    let api = TestApi::new();
    let moved = api.send(|r| r.uri("/agent/commands?wait=5")).await;
    assert_eq!(moved.status, StatusCode::MOVED_PERMANENTLY);
    assert_eq!(
        moved.headers.get(header::LOCATION).unwrap(),
        "/agent/commands/?wait=5"
    );
    for path in ["/nothing/", "/nothing", "/devices//"] {
        let missing = api.send(|r| r.uri(path)).await;
        assert_eq!(missing.status, StatusCode::NOT_FOUND, "{path}");
        assert_eq!(missing.body, json!({"detail": "Not found."}), "{path}");
    }
}

#[actix_web::test]
async fn protected_routes_challenge_with_their_own_scheme() {
    let api = TestApi::new();
    let user = api.call(Method::GET, "/devices/", None).await;
    assert_eq!(user.status, StatusCode::UNAUTHORIZED);
    assert_eq!(user.headers.get(header::WWW_AUTHENTICATE).unwrap(), "Token");
    assert_eq!(
        user.body,
        json!({"detail": "Authentication credentials were not provided."})
    );
    let agent = api
        .call(Method::POST, "/agent/heartbeat/", Some(json!({})))
        .await;
    assert_eq!(agent.status, StatusCode::UNAUTHORIZED);
    assert_eq!(
        agent.headers.get(header::WWW_AUTHENTICATE).unwrap(),
        "Device"
    );
    // A method the route lacks is 401 too while no credentials are presented.
    let delete = api.call(Method::DELETE, "/devices/", None).await;
    assert_eq!(delete.status, StatusCode::UNAUTHORIZED);
}

#[actix_web::test]
async fn an_unknown_token_is_refused_even_on_public_routes() {
    let api = TestApi::new();
    for (method, path) in [(Method::GET, "/devices/"), (Method::POST, "/register/")] {
        let answer = api
            .send(|r| {
                r.method(method)
                    .uri(path)
                    .insert_header(auth("nope"))
                    .set_json(json!({"email": "a@example.com"}))
            })
            .await;
        assert_eq!(answer.status, StatusCode::UNAUTHORIZED, "{path}");
        assert_eq!(answer.body, json!({"detail": "Invalid token."}), "{path}");
    }
}

#[actix_web::test]
async fn options_describes_the_route_and_its_bodies() {
    let api = TestApi::new();
    let token = api.token("owner@example.com").await;
    let path = format!("/devices/{SERIAL}/");
    let answer = api
        .send(|r| {
            r.method(Method::OPTIONS)
                .uri(&path)
                .insert_header(auth(&token))
        })
        .await;
    assert_eq!(answer.status, StatusCode::OK);
    assert_eq!(
        answer.headers.get(header::ALLOW).unwrap(),
        "GET, PUT, PATCH, DELETE, HEAD, OPTIONS"
    );
    assert_eq!(answer.body["name"], "Device Detail");
    assert_eq!(answer.body["renders"], json!(["application/json"]));
    let actions = answer.body["actions"].as_object().unwrap();
    assert_eq!(actions.keys().collect::<Vec<_>>(), ["PATCH", "PUT"]);
    assert_eq!(
        actions["PUT"]["name"],
        json!({"type": "string", "required": true, "read_only": false, "label": "Name", "max_length": 100})
    );
    assert_eq!(actions["PUT"]["serial"]["read_only"], true);
}

#[actix_web::test]
async fn a_missing_method_is_405_with_allow_and_head_is_served_by_get() {
    let api = TestApi::new();
    let token = api.token("owner@example.com").await;
    let answer = api
        .send(|r| {
            r.method(Method::DELETE)
                .uri("/devices/")
                .insert_header(auth(&token))
        })
        .await;
    assert_eq!(answer.status, StatusCode::METHOD_NOT_ALLOWED);
    assert_eq!(
        answer.headers.get(header::ALLOW).unwrap(),
        "GET, HEAD, OPTIONS"
    );
    assert_eq!(
        answer.body,
        json!({"detail": "Method \"DELETE\" not allowed."})
    );
    let head = api
        .send(|r| {
            r.method(Method::HEAD)
                .uri("/devices/")
                .insert_header(auth(&token))
        })
        .await;
    assert_eq!(head.status, StatusCode::OK);
}

#[actix_web::test]
async fn bodies_must_be_json_objects() {
    let api = TestApi::new();
    let text = api
        .send(|r| {
            r.method(Method::POST)
                .uri("/register/")
                .insert_header((header::CONTENT_TYPE, HeaderValue::from_static("text/plain")))
                .set_payload("email=a@example.com")
        })
        .await;
    assert_eq!(text.status, StatusCode::UNSUPPORTED_MEDIA_TYPE);
    assert_eq!(
        text.body,
        json!({"detail": "Unsupported media type \"text/plain\" in request."})
    );
    let broken = api
        .send(|r| {
            r.method(Method::POST)
                .uri("/register/")
                .insert_header((header::CONTENT_TYPE, "application/json"))
                .set_payload("{")
        })
        .await;
    assert_eq!(broken.status, StatusCode::BAD_REQUEST);
    assert!(
        broken.body["detail"]
            .as_str()
            .unwrap()
            .starts_with("JSON parse error - ")
    );
    let list = api.call(Method::POST, "/register/", Some(json!([1]))).await;
    assert_eq!(list.status, StatusCode::BAD_REQUEST);
}

#[actix_web::test]
async fn every_fields_errors_come_at_once_with_drf_messages() {
    let api = TestApi::new();
    let login = api.call(Method::POST, "/auth/", Some(json!({}))).await;
    assert_eq!(login.status, StatusCode::BAD_REQUEST);
    assert_eq!(
        login.body,
        json!({"email": ["This field is required."], "password": ["This field is required."]})
    );
    let login = api
        .call(
            Method::POST,
            "/auth/",
            Some(json!({"email": "nope", "password": null})),
        )
        .await;
    assert_eq!(
        login.body,
        json!({"email": ["Enter a valid email address."], "password": ["This field may not be null."]})
    );
}

#[actix_web::test]
async fn a_device_path_names_a_canonical_serial_of_the_callers_account() {
    let api = TestApi::new();
    let token = api.token("owner@example.com").await;
    let list = api
        .send(|r| r.uri("/devices/").insert_header(auth(&token)))
        .await;
    assert_eq!((list.status, list.body), (StatusCode::OK, json!([])));
    for serial in ["nope", &SERIAL.to_uppercase(), SERIAL] {
        let path = format!("/devices/{serial}/reboot/");
        let answer = api
            .send(|r| {
                r.method(Method::POST)
                    .uri(&path)
                    .insert_header(auth(&token))
            })
            .await;
        assert_eq!(answer.status, StatusCode::NOT_FOUND, "{serial}");
    }
    // A malformed serial is judged before the body.
    let path = "/devices/nope/";
    let answer = api
        .send(|r| {
            r.method(Method::PUT)
                .uri(path)
                .insert_header(auth(&token))
                .set_json(json!({}))
        })
        .await;
    assert_eq!(answer.status, StatusCode::NOT_FOUND);
}

#[actix_web::test]
async fn secrets_are_not_cached_and_a_logged_out_token_ends() {
    let api = TestApi::new();
    let token = api.token("owner@example.com").await;
    let profile = api
        .send(|r| r.uri("/profile/").insert_header(auth(&token)))
        .await;
    assert_eq!(profile.status, StatusCode::OK);
    assert_eq!(
        profile.headers.get(header::CACHE_CONTROL).unwrap(),
        "no-store"
    );
    assert_eq!(profile.body["email"], "owner@example.com");
    let reset = api
        .send(|r| {
            r.method(Method::POST)
                .uri("/reset-password/")
                .insert_header(auth(&token))
                .set_json(json!({"email": "owner@example.com"}))
        })
        .await;
    assert_eq!(reset.status, StatusCode::FORBIDDEN);
    let logout = api
        .send(|r| {
            r.method(Method::DELETE)
                .uri("/auth/")
                .insert_header(auth(&token))
        })
        .await;
    assert_eq!(logout.status, StatusCode::NO_CONTENT);
    let after = api
        .send(|r| r.uri("/profile/").insert_header(auth(&token)))
        .await;
    assert_eq!(after.status, StatusCode::UNAUTHORIZED);
}
