//! Handler tests: the whole API in actix's test service, over a real SQLite
//! file, checking the conventions of `docs/api.md` (Conventions) request by
//! request.

mod console;
mod console_fleet;
mod console_support;
mod conventions;
mod imports;
mod observability;
mod standalone;

use crate::resources::docs::ApiDocument;
use crate::{HttpState, app, openapi};
use actix_web::body::to_bytes;
use actix_web::dev::Service;
use actix_web::http::header::HeaderMap;
use actix_web::http::{Method, StatusCode};
use actix_web::test::{TestRequest, init_service};
use actix_web::web;
use adapters_sqlite::SqliteStore;
use adapters_system::{Argon2Hasher, OsRandom};
use application::ports::{MockMailer, Ports};
use application::{Services, Settings};
use serde_json::Value;
use std::sync::Arc;
use tempfile::TempDir;

/// The API over a fresh database, and a way to send it requests.
pub(crate) struct TestApi {
    _dir: TempDir,
    state: web::Data<HttpState>,
    clock: Arc<TestClock>,
}

/// A clock that stands still until a test moves it.
pub(crate) struct TestClock(std::sync::Mutex<domain::Timestamp>);

impl TestClock {
    /// Moves the clock on.
    pub(crate) fn advance(&self, by: chrono::Duration) {
        let mut now = self.0.lock().expect("the clock");
        *now += by;
    }
}

impl application::ports::Clock for TestClock {
    fn now(&self) -> domain::Timestamp {
        *self.0.lock().expect("the clock")
    }
}

/// One answer: status, headers and the body as JSON (`Null` when empty).
pub(crate) struct Answer {
    pub status: StatusCode,
    pub headers: HeaderMap,
    pub body: Value,
}

impl TestApi {
    /// A fresh database and the application over it.
    pub fn new() -> Self {
        Self::with_public_url(None)
    }

    /// Like [`new`](Self::new), with `--public-url`.
    pub fn with_public_url(public_url: Option<&str>) -> Self {
        let clock = Arc::new(TestClock(std::sync::Mutex::new(chrono::Utc::now())));
        let dir = tempfile::tempdir().expect("a temporary folder");
        let store = SqliteStore::open(&dir.path().join("devmgr.db")).expect("the store opens");
        store.migrate().expect("the schema migrates");
        let ports = Ports::over_store(
            Arc::new(store),
            Arc::new(MockMailer::new()),
            Arc::new(crate::HttpMailLinks::new(None, "127.0.0.1:8000")),
            Arc::new(Argon2Hasher::owasp(1)),
            clock.clone(),
            Arc::new(OsRandom),
            (
                Arc::new(adapters_webhooks::HttpTransport::new(false)),
                Arc::new(crate::HttpEventData::new(None, "127.0.0.1:8000")),
            ),
        );
        let app = Services::new(ports, Settings::default());
        let state = HttpState::new(app, public_url.map(str::to_owned), "127.0.0.1:8000".into());
        Self {
            _dir: dir,
            state: web::Data::new(state),
            clock,
        }
    }

    /// The application's clock.
    pub fn clock(&self) -> &TestClock {
        &self.clock
    }

    /// The state the API serves from, for apps of a test's own.
    pub fn state(&self) -> web::Data<HttpState> {
        self.state.clone()
    }

    /// Sends one request built by `build` from a default one.
    pub async fn send(&self, build: impl FnOnce(TestRequest) -> TestRequest) -> Answer {
        let document = web::Data::new(ApiDocument(openapi::document_json()));
        let service = init_service(app(self.state.clone(), document)).await;
        let response = service
            .call(build(TestRequest::default()).to_request())
            .await
            .expect("the service answers");
        let status = response.status();
        let headers = response.headers().clone();
        let Ok(bytes) = to_bytes(response.into_body()).await else {
            panic!("the body is read");
        };
        let body = if bytes.is_empty() {
            Value::Null
        } else {
            serde_json::from_slice(&bytes)
                .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(&bytes).into_owned()))
        };
        Answer {
            status,
            headers,
            body,
        }
    }

    /// `method path`, with a JSON body when given.
    pub async fn call(&self, method: Method, path: &str, body: Option<Value>) -> Answer {
        let path = path.to_owned();
        self.send(move |req| {
            let req = req.method(method).uri(&path);
            match body {
                Some(body) => req.set_json(body),
                None => req,
            }
        })
        .await
    }

    /// A new account's token (registration needs no password).
    pub async fn token(&self, email: &str) -> String {
        let answer = self
            .call(
                Method::POST,
                "/register/",
                Some(serde_json::json!({ "email": email })),
            )
            .await;
        assert_eq!(answer.status, StatusCode::CREATED, "{}", answer.body);
        answer.body["token"].as_str().expect("a token").to_owned()
    }
}
