//! Extractors stand on their own, the server's own surfaces mount before
//! the API's dispatcher, and form bodies are read like JSON.

use super::TestApi;
use crate::error::ApiError;
use crate::extract::{User, Valid};
use crate::fields::{Field, Form, FromForm, Rejected};
use actix_web::dev::Service;
use actix_web::http::header::{self, HeaderValue};
use actix_web::http::{Method, StatusCode};
use actix_web::test::{TestRequest, call_service, init_service, read_body_json};
use actix_web::{App, HttpResponse, web};
use serde_json::{Value, json};

/// A plain actix route, outside the dispatcher, that needs a user.
async fn whoami(user: User) -> Result<HttpResponse, ApiError> {
    Ok(HttpResponse::Ok().json(json!({"email": user.account.email.as_str()})))
}

const NAME: Field = Field::text("name", "Name");

/// A body with one required text field.
struct Named(String);

impl FromForm for Named {
    const FIELDS: &'static [Field] = &[NAME];

    fn from_form(form: &mut Form) -> Result<Self, Rejected> {
        form.text(&NAME).map(Named)
    }
}

/// A plain actix route that reads a body.
async fn echo_name(Valid(Named(name)): Valid<Named>) -> Result<HttpResponse, ApiError> {
    Ok(HttpResponse::Ok().json(json!({ "name": name })))
}

#[actix_web::test]
async fn an_extractor_works_on_a_plain_actix_route() {
    let api = TestApi::new();
    let token = api.token("ada@example.com").await;
    let app = init_service(
        App::new()
            .app_data(api.state())
            .route("/whoami", web::get().to(whoami))
            .route("/named", web::post().to(echo_name)),
    )
    .await;
    let signed_in = TestRequest::get()
        .uri("/whoami")
        .insert_header((header::AUTHORIZATION, format!("Token {token}")))
        .to_request();
    let answer = call_service(&app, signed_in).await;
    assert_eq!(answer.status(), StatusCode::OK);
    let body: Value = read_body_json(answer).await;
    assert_eq!(body, json!({"email": "ada@example.com"}));

    let anonymous = app
        .call(TestRequest::get().uri("/whoami").to_request())
        .await
        .unwrap();
    assert_eq!(anonymous.status(), StatusCode::UNAUTHORIZED);
    assert_eq!(
        anonymous.headers().get(header::WWW_AUTHENTICATE).unwrap(),
        "Token"
    );
    let unknown = app
        .call(
            TestRequest::get()
                .uri("/whoami")
                .insert_header((header::AUTHORIZATION, "Token 0000"))
                .to_request(),
        )
        .await
        .unwrap();
    assert_eq!(unknown.status(), StatusCode::UNAUTHORIZED);

    let form = TestRequest::post()
        .uri("/named")
        .insert_header((header::CONTENT_TYPE, "application/x-www-form-urlencoded"))
        .set_payload("name=Ada+Lovelace")
        .to_request();
    let answer = call_service(&app, form).await;
    assert_eq!(answer.status(), StatusCode::OK);
    let body: Value = read_body_json(answer).await;
    assert_eq!(body, json!({"name": "Ada Lovelace"}));
    let invalid = app
        .call(
            TestRequest::post()
                .uri("/named")
                .set_json(json!({}))
                .to_request(),
        )
        .await
        .unwrap();
    assert_eq!(invalid.status(), StatusCode::BAD_REQUEST);
}

#[actix_web::test]
async fn the_root_leads_a_browser_to_the_console() {
    let api = TestApi::new();
    for method in [Method::GET, Method::HEAD] {
        let answer = api
            .send(|r| {
                r.method(method)
                    .uri("/")
                    .insert_header((header::ACCEPT, "text/html,application/xhtml+xml"))
            })
            .await;
        assert_eq!(answer.status, StatusCode::FOUND);
        assert_eq!(answer.headers.get(header::LOCATION).unwrap(), "/console/");
    }
    let other = api.send(|r| r.uri("/")).await;
    assert_eq!(other.status, StatusCode::NOT_FOUND);
    assert_eq!(other.body, json!({"detail": "Not found."}));
    let post = api.send(|r| r.method(Method::POST).uri("/")).await;
    assert_eq!(post.status, StatusCode::METHOD_NOT_ALLOWED);
    assert_eq!(post.body, json!({"detail": "Method \"POST\" not allowed."}));
}

#[actix_web::test]
async fn form_bodies_get_the_same_answers_as_json() {
    let api = TestApi::new();
    let form = |body: &'static str| {
        move |r: TestRequest| {
            r.method(Method::POST)
                .uri("/register/")
                .insert_header((header::CONTENT_TYPE, "application/x-www-form-urlencoded"))
                .set_payload(body)
        }
    };
    let created = api.send(form("email=grace%40example.com")).await;
    assert_eq!(created.status, StatusCode::CREATED, "{}", created.body);
    assert!(created.body["token"].is_string());
    let taken = api.send(form("email=grace%40example.com")).await;
    let json = api
        .call(
            Method::POST,
            "/register/",
            Some(json!({"email": "grace@example.com"})),
        )
        .await;
    assert_eq!(taken.status, StatusCode::BAD_REQUEST);
    assert_eq!(taken.body, json.body);
    let missing = api.send(form("other=1")).await;
    assert_eq!(missing.body, json!({"email": ["This field is required."]}));

    let multipart = api
        .send(|r| {
            r.method(Method::POST)
                .uri("/register/")
                .insert_header((
                    header::CONTENT_TYPE,
                    HeaderValue::from_static("multipart/form-data; boundary=b0"),
                ))
                .set_payload(
                    "--b0\r\nContent-Disposition: form-data; name=\"email\"\r\n\r\n\
                     alan@example.com\r\n--b0--\r\n",
                )
        })
        .await;
    assert_eq!(multipart.status, StatusCode::CREATED, "{}", multipart.body);
}

#[actix_web::test]
async fn options_lists_the_three_parsers() {
    let api = TestApi::new();
    let answer = api.call(Method::OPTIONS, "/auth/", None).await;
    assert_eq!(
        answer.body["parses"],
        json!([
            "application/json",
            "application/x-www-form-urlencoded",
            "multipart/form-data"
        ])
    );
}
