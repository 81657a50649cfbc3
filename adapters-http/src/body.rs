//! Reading a request body: JSON objects only, at most 64 KiB, within 10 s.

use crate::error::ApiError;
use actix_web::HttpRequest;
use actix_web::http::header;
use actix_web::web::{BytesMut, Payload};
use futures_util::StreamExt;
use serde_json::{Map, Value};
use std::time::Duration;

/// Largest body accepted.
pub const MAX_BODY_BYTES: usize = 64 * 1024;

/// How long a body may take to arrive once the request is being served: a
/// client trickling bytes cannot hold a connection open for longer.
pub const BODY_DEADLINE: Duration = Duration::from_secs(10);

/// Reads the whole body, refusing more than [`MAX_BODY_BYTES`], and one
/// that has not arrived within [`BODY_DEADLINE`] (408; the connection closes).
pub async fn read_limited(req: &HttpRequest, payload: Payload) -> Result<BytesMut, ApiError> {
    tokio::time::timeout(BODY_DEADLINE, read_all(req, payload))
        .await
        .unwrap_or(Err(ApiError::BodyTimeout))
}

async fn read_all(req: &HttpRequest, mut payload: Payload) -> Result<BytesMut, ApiError> {
    let declared = req
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<usize>().ok());
    if declared.is_some_and(|len| len > MAX_BODY_BYTES) {
        return Err(ApiError::TooLarge);
    }
    let mut body = BytesMut::new();
    while let Some(chunk) = payload.next().await {
        let chunk = chunk.map_err(|e| ApiError::Parse(e.to_string()))?;
        if body.len() + chunk.len() > MAX_BODY_BYTES {
            return Err(ApiError::TooLarge);
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body)
}

/// Parses a body as DRF's `JSONParser` would: empty is `{}`, another media
/// type is 415, bad JSON is 400, and anything but an object is 400.
pub fn parse_object(req: &HttpRequest, body: &[u8]) -> Result<Map<String, Value>, ApiError> {
    if body.is_empty() {
        return Ok(Map::new());
    }
    let content_type = req
        .headers()
        .get(header::CONTENT_TYPE)
        .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned())
        .unwrap_or_default();
    let media_type = content_type.split(';').next().unwrap_or("").trim();
    if !media_type.eq_ignore_ascii_case("application/json") {
        return Err(ApiError::UnsupportedMediaType(content_type));
    }
    let value: Value = serde_json::from_slice(body).map_err(|e| ApiError::Parse(e.to_string()))?;
    match value {
        Value::Object(map) => Ok(map),
        other => {
            let mut errors = crate::error::FieldErrors::new();
            errors.insert(
                crate::error::NON_FIELD_ERRORS.to_owned(),
                serde_json::json!([format!(
                    "Invalid data. Expected a dictionary, but got {}.",
                    python_type_name(&other)
                )]),
            );
            Err(ApiError::Validation(errors))
        }
    }
}

/// The name DRF's message gives a JSON value's type (Python's type names).
pub(crate) fn python_type_name(value: &Value) -> &'static str {
    match value {
        Value::Array(_) => "list",
        Value::String(_) => "str",
        Value::Bool(_) => "bool",
        Value::Number(n) if n.is_f64() => "float",
        Value::Number(_) => "int",
        Value::Null => "NoneType",
        Value::Object(_) => "dict",
    }
}
