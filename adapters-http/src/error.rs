//! Errors as clients see them: DRF-style JSON bodies and status codes.

use actix_web::http::StatusCode;
use actix_web::http::header::{self, HeaderValue};
use actix_web::{HttpResponse, ResponseError};
use serde_json::{Map, Value, json};
use std::fmt;

/// A field name → list of messages, as in DRF validation errors.
pub type FieldErrors = Map<String, Value>;

/// The key of errors that belong to no single field.
pub const NON_FIELD_ERRORS: &str = "non_field_errors";

/// Every way a request can fail, each with its DRF-style body.
#[derive(Debug)]
pub enum ApiError {
    /// 400 with a field → messages body.
    Validation(FieldErrors),
    /// 400 `{"detail": "JSON parse error - …"}`.
    Parse(String),
    /// 400 `{"detail": "… parse error - …"}` for a form body DRF cannot read.
    FormParse(String),
    /// 401 with a `WWW-Authenticate` challenge (`Token` or `Device`).
    Unauthorized {
        /// The message.
        detail: &'static str,
        /// The scheme the route accepts.
        challenge: &'static str,
    },
    /// 403.
    Forbidden(&'static str),
    /// 404 `{"detail": "Not found."}`.
    NotFound,
    /// 405 with `Allow`.
    MethodNotAllowed {
        /// The refused method.
        method: String,
        /// The route's `Allow` value.
        allow: String,
    },
    /// 409 `{"detail": …}`: the resource's state forbids the request.
    Conflict(&'static str),
    /// 413.
    TooLarge,
    /// 415 for a body that is not JSON.
    UnsupportedMediaType(String),
    /// 408: the body did not arrive in time; the connection closes.
    BodyTimeout,
    /// 429 with `Retry-After`: the client may try again in this many seconds.
    Throttled(u64),
    /// 503 with `Retry-After: 1`: too much work is waiting (password hashes).
    Busy,
    /// 503 with `Retry-After: 2`: the database is out of reach for now
    /// (down, restarting, cut off); the cause is logged.
    Unavailable,
    /// 500: the cause is logged, never shown.
    Internal(String),
}

impl ApiError {
    /// A validation error on one field.
    pub fn field(field: &str, message: impl Into<String>) -> Self {
        let mut errors = FieldErrors::new();
        errors.insert(field.to_owned(), json!([message.into()]));
        Self::Validation(errors)
    }

    /// Logs an infrastructure failure and hides it behind a 500.
    pub fn internal(error: &(dyn std::error::Error + 'static)) -> Self {
        Self::Internal(cause_chain(error))
    }

    /// The answer's message for people: the detail, or every validation
    /// message in a row.
    pub(crate) fn message(&self) -> String {
        match self {
            Self::Validation(errors) => {
                let mut messages = Vec::new();
                collect_strings(&Value::Object(errors.clone()), &mut messages);
                messages.join(" ")
            }
            other => other.detail()["detail"]
                .as_str()
                .unwrap_or_default()
                .to_owned(),
        }
    }

    fn detail(&self) -> Value {
        let detail = match self {
            Self::Validation(errors) => return Value::Object(errors.clone()),
            Self::Parse(reason) => format!("JSON parse error - {reason}"),
            Self::FormParse(message) => message.clone(),
            Self::Unauthorized { detail, .. } => (*detail).to_owned(),
            Self::Forbidden(message) => (*message).to_owned(),
            Self::NotFound => "Not found.".to_owned(),
            Self::MethodNotAllowed { method, .. } => format!("Method \"{method}\" not allowed."),
            Self::Conflict(message) => (*message).to_owned(),
            Self::TooLarge => "Request body is too large.".to_owned(),
            Self::UnsupportedMediaType(media_type) => {
                format!("Unsupported media type \"{media_type}\" in request.")
            }
            Self::BodyTimeout => "The request body took too long to arrive.".to_owned(),
            Self::Throttled(seconds) => {
                format!("Request was throttled. Expected available in {seconds} seconds.")
            }
            Self::Busy => "The server is busy. Try again shortly.".to_owned(),
            Self::Unavailable => {
                "The service is temporarily unavailable. Try again shortly.".to_owned()
            }
            Self::Internal(_) => "A server error occurred.".to_owned(),
        };
        json!({ "detail": detail })
    }
}

/// An error and its causes, joined by `: `, for the log.
fn cause_chain(error: &(dyn std::error::Error + 'static)) -> String {
    let mut chain = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        chain.push_str(": ");
        chain.push_str(&cause.to_string());
        source = cause.source();
    }
    chain
}

/// Every string inside a JSON value, in order.
pub(crate) fn collect_strings(value: &Value, into: &mut Vec<String>) {
    match value {
        Value::String(text) => into.push(text.clone()),
        Value::Array(items) => items.iter().for_each(|item| collect_strings(item, into)),
        Value::Object(map) => map.values().for_each(|item| collect_strings(item, into)),
        _ => {}
    }
}

impl fmt::Display for ApiError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.status_code(), self.detail())
    }
}

impl ResponseError for ApiError {
    fn status_code(&self) -> StatusCode {
        match self {
            Self::Validation(_) | Self::Parse(_) | Self::FormParse(_) => StatusCode::BAD_REQUEST,
            Self::Unauthorized { .. } => StatusCode::UNAUTHORIZED,
            Self::Forbidden(_) => StatusCode::FORBIDDEN,
            Self::NotFound => StatusCode::NOT_FOUND,
            Self::MethodNotAllowed { .. } => StatusCode::METHOD_NOT_ALLOWED,
            Self::Conflict(_) => StatusCode::CONFLICT,
            Self::TooLarge => StatusCode::PAYLOAD_TOO_LARGE,
            Self::UnsupportedMediaType(_) => StatusCode::UNSUPPORTED_MEDIA_TYPE,
            Self::BodyTimeout => StatusCode::REQUEST_TIMEOUT,
            Self::Throttled(_) => StatusCode::TOO_MANY_REQUESTS,
            Self::Busy | Self::Unavailable => StatusCode::SERVICE_UNAVAILABLE,
            Self::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    fn error_response(&self) -> HttpResponse {
        if let Self::Internal(cause) = self {
            tracing::error!(%cause, "request failed");
        }
        let mut response = HttpResponse::build(self.status_code());
        match self {
            Self::Unauthorized { challenge, .. } => {
                response.insert_header((
                    header::WWW_AUTHENTICATE,
                    HeaderValue::from_static(challenge),
                ));
            }
            Self::MethodNotAllowed { allow, .. } => {
                response.insert_header((header::ALLOW, allow.as_str()));
            }
            Self::Throttled(seconds) => {
                response.insert_header((header::RETRY_AFTER, seconds.to_string()));
            }
            Self::Busy => {
                response.insert_header((header::RETRY_AFTER, "1"));
            }
            Self::Unavailable => {
                response.insert_header((header::RETRY_AFTER, "2"));
            }
            Self::BodyTimeout => {
                response.force_close();
            }
            _ => {}
        }
        response.json(self.detail())
    }
}

impl From<application::StoreError> for ApiError {
    fn from(error: application::StoreError) -> Self {
        if error.is_busy() {
            tracing::warn!(%error, "refused: busy");
            return Self::Busy;
        }
        if error.is_unavailable() {
            tracing::warn!(
                cause = cause_chain(&error),
                "refused: the database is unavailable"
            );
            return Self::Unavailable;
        }
        Self::internal(&error)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use actix_web::body::to_bytes;

    async fn body_of(error: ApiError) -> (StatusCode, HttpResponse) {
        let response = error.error_response();
        (response.status(), response)
    }

    #[actix_web::test]
    async fn a_server_error_hides_its_cause() {
        let cause = std::io::Error::other("SELECT secret FROM /var/lib/devmgr/devmgr.db");
        let store = application::StoreError::new("find account", cause);
        let (status, response) = body_of(ApiError::from(store)).await;
        assert_eq!(status, StatusCode::INTERNAL_SERVER_ERROR);
        let body = to_bytes(response.into_body()).await.unwrap();
        assert_eq!(body, r#"{"detail":"A server error occurred."}"#);
    }

    #[actix_web::test]
    async fn unauthorized_carries_the_challenge_and_405_the_allow_header() {
        let (status, response) = body_of(ApiError::Unauthorized {
            detail: "Invalid token.",
            challenge: "Token",
        })
        .await;
        assert_eq!(status, StatusCode::UNAUTHORIZED);
        assert_eq!(
            response.headers().get(header::WWW_AUTHENTICATE).unwrap(),
            "Token"
        );
        let not_allowed = ApiError::MethodNotAllowed {
            method: "PATCH".into(),
            allow: "POST, OPTIONS".into(),
        };
        let (status, response) = body_of(not_allowed).await;
        assert_eq!(status, StatusCode::METHOD_NOT_ALLOWED);
        assert_eq!(
            response.headers().get(header::ALLOW).unwrap(),
            "POST, OPTIONS"
        );
        let body = to_bytes(response.into_body()).await.unwrap();
        assert_eq!(body, r#"{"detail":"Method \"PATCH\" not allowed."}"#);
    }

    #[actix_web::test]
    async fn a_saturated_resource_is_503_with_retry_after_one_second() {
        let busy = application::StoreError::busy("password hashing queue is full");
        let (status, response) = body_of(ApiError::from(busy)).await;
        assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE);
        assert_eq!(response.headers().get(header::RETRY_AFTER).unwrap(), "1");
        let body = to_bytes(response.into_body()).await.unwrap();
        assert_eq!(
            body,
            r#"{"detail":"The server is busy. Try again shortly."}"#
        );
    }

    #[actix_web::test]
    async fn an_unreachable_database_is_503_with_retry_after_and_no_cause() {
        let cause = std::io::Error::other("connection to 10.0.0.5:5432 refused");
        let down = application::StoreError::unreachable("find device", cause);
        let (status, response) = body_of(ApiError::from(down)).await;
        assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE);
        assert_eq!(response.headers().get(header::RETRY_AFTER).unwrap(), "2");
        let body = to_bytes(response.into_body()).await.unwrap();
        assert_eq!(
            body,
            r#"{"detail":"The service is temporarily unavailable. Try again shortly."}"#
        );
    }

    #[actix_web::test]
    async fn throttled_says_when_to_come_back() {
        let (status, response) = body_of(ApiError::Throttled(42)).await;
        assert_eq!(status, StatusCode::TOO_MANY_REQUESTS);
        assert_eq!(response.headers().get(header::RETRY_AFTER).unwrap(), "42");
        let body = to_bytes(response.into_body()).await.unwrap();
        assert_eq!(
            body,
            r#"{"detail":"Request was throttled. Expected available in 42 seconds."}"#
        );
    }
}
