//! Reading a request body as Django REST Framework's parsers do: JSON,
//! URL-encoded and multipart forms; at most 64 KiB, within 10 s.

mod forms;

pub(crate) use crate::fields::messages::python_type_name;
pub(crate) use forms::{FormValue, typed_values};

use crate::error::{ApiError, FieldErrors, NON_FIELD_ERRORS};
use crate::fields::Field;
use actix_web::HttpRequest;
use actix_web::dev::Payload;
use actix_web::http::header;
use actix_web::web::{Bytes, BytesMut};
use futures_util::StreamExt;
use serde_json::{Map, Value, json};
use std::time::Duration;

/// Largest body accepted.
pub(crate) const MAX_BODY_BYTES: usize = 64 * 1024;

/// How long a body may take to arrive once the request is being served: a
/// client trickling bytes cannot hold a connection open for longer.
pub(crate) const BODY_DEADLINE: Duration = Duration::from_secs(10);

/// The media types a body may have, as OPTIONS lists them under `parses`.
pub(crate) const PARSES: [&str; 3] = [
    "application/json",
    "application/x-www-form-urlencoded",
    "multipart/form-data",
];

/// Reads and parses the body into the object DRF's `request.data` would
/// hold: empty is `{}`; JSON must be an object; a form's values are text,
/// read into `fields`' types (`docs/api.md`, Request bodies).
pub(crate) async fn read_object(
    req: &HttpRequest,
    payload: Payload,
    fields: &[Field],
) -> Result<Map<String, Value>, ApiError> {
    let bytes = read_limited(req, payload).await?;
    if bytes.is_empty() {
        return Ok(Map::new());
    }
    match MediaType::of(req)? {
        MediaType::Json => json_object(&bytes),
        MediaType::UrlEncoded => forms::url_encoded(&bytes, fields),
        MediaType::Multipart => forms::multipart(req, bytes, fields).await,
    }
}

/// Reads the whole body, refusing more than [`MAX_BODY_BYTES`], and one
/// that has not arrived within [`BODY_DEADLINE`] (408; the connection closes).
async fn read_limited(req: &HttpRequest, payload: Payload) -> Result<Bytes, ApiError> {
    tokio::time::timeout(BODY_DEADLINE, read_all(req, payload))
        .await
        .unwrap_or(Err(ApiError::BodyTimeout))
}

async fn read_all(req: &HttpRequest, mut payload: Payload) -> Result<Bytes, ApiError> {
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
    Ok(body.freeze())
}

/// The parsers a non-empty body can go to.
enum MediaType {
    Json,
    UrlEncoded,
    Multipart,
}

impl MediaType {
    /// The parser for the request's `Content-Type`: 415 for any other.
    fn of(req: &HttpRequest) -> Result<Self, ApiError> {
        let content_type = req
            .headers()
            .get(header::CONTENT_TYPE)
            .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned())
            .unwrap_or_default();
        let media_type = content_type.split(';').next().unwrap_or("").trim();
        let is = |name: &str| media_type.eq_ignore_ascii_case(name);
        if is(PARSES[0]) {
            Ok(Self::Json)
        } else if is(PARSES[1]) {
            Ok(Self::UrlEncoded)
        } else if is(PARSES[2]) {
            Ok(Self::Multipart)
        } else {
            Err(ApiError::UnsupportedMediaType(content_type))
        }
    }
}

/// Parses a JSON body: bad JSON is 400, and anything but an object is 400.
fn json_object(body: &[u8]) -> Result<Map<String, Value>, ApiError> {
    let value: Value = serde_json::from_slice(body).map_err(|e| ApiError::Parse(e.to_string()))?;
    match value {
        Value::Object(map) => Ok(map),
        other => {
            let mut errors = FieldErrors::new();
            errors.insert(
                NON_FIELD_ERRORS.to_owned(),
                json!([format!(
                    "Invalid data. Expected a dictionary, but got {}.",
                    python_type_name(&other)
                )]),
            );
            Err(ApiError::Validation(errors))
        }
    }
}

#[cfg(test)]
mod tests;
