//! Probes and request ids (`docs/operations.md`, "Health, metrics and
//! logs"): probes read no credentials, and every answer carries the
//! request's id, the client's when usable.

use super::TestApi;
use actix_web::http::header::{self, HeaderValue};
use actix_web::http::{Method, StatusCode};
use serde_json::json;

#[actix_web::test]
async fn the_probes_answer_without_credentials() {
    let api = TestApi::new();
    let live = api.call(Method::GET, "/health/live/", None).await;
    assert_eq!(live.status, StatusCode::OK);
    assert_eq!(live.body, json!({"status": "ok"}));
    let ready = api.call(Method::GET, "/health/ready/", None).await;
    assert_eq!(ready.status, StatusCode::OK);
    assert_eq!(ready.body, json!({"status": "ok", "database": "ok"}));
}

#[actix_web::test]
async fn the_probes_ignore_credentials_that_would_be_refused_elsewhere() {
    let api = TestApi::new();
    for path in ["/health/live/", "/health/ready/", "/devices/"] {
        let answer = api
            .send(|req| {
                req.uri(path)
                    .insert_header((header::AUTHORIZATION, "Token not-a-token"))
            })
            .await;
        let expected = if path == "/devices/" {
            StatusCode::UNAUTHORIZED
        } else {
            StatusCode::OK
        };
        assert_eq!(answer.status, expected, "{path}: {}", answer.body);
    }
}

#[actix_web::test]
async fn the_probes_follow_the_api_conventions_for_other_methods() {
    let api = TestApi::new();
    let post = api.call(Method::POST, "/health/ready/", None).await;
    assert_eq!(post.status, StatusCode::METHOD_NOT_ALLOWED);
    assert_eq!(post.body, json!({"detail": "Method \"POST\" not allowed."}));
    assert_eq!(
        post.headers.get(header::ALLOW).unwrap(),
        "GET, HEAD, OPTIONS"
    );
    let head = api.call(Method::HEAD, "/health/live/", None).await;
    assert_eq!(head.status, StatusCode::OK);
    let slashless = api.call(Method::GET, "/health/live", None).await;
    assert_eq!(slashless.status, StatusCode::MOVED_PERMANENTLY);
    assert_eq!(
        slashless.headers.get(header::LOCATION).unwrap(),
        "/health/live/"
    );
}

#[actix_web::test]
async fn a_usable_request_id_is_echoed_and_any_other_replaced() {
    let api = TestApi::new();
    for path in ["/devices/", "/health/live/", "/console/", "/no/such/path/"] {
        let echoed = api
            .send(|req| req.uri(path).insert_header(("X-Request-Id", "lb-7f3a")))
            .await;
        assert_eq!(
            echoed.headers.get("x-request-id").unwrap(),
            "lb-7f3a",
            "{path}"
        );
    }
    let spaced = api
        .send(|req| {
            req.uri("/health/live/")
                .insert_header(("X-Request-Id", HeaderValue::from_static("two words")))
        })
        .await;
    let replaced = spaced
        .headers
        .get("x-request-id")
        .unwrap()
        .to_str()
        .unwrap()
        .to_owned();
    assert_ne!(replaced, "two words");
    assert_eq!(replaced.len(), 32);
    let fresh = api.call(Method::GET, "/health/live/", None).await;
    let other = fresh.headers.get("x-request-id").unwrap().to_str().unwrap();
    assert_eq!(other.len(), 32);
    assert_ne!(other, replaced, "each request gets an id of its own");
}
