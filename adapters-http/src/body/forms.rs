//! Form bodies, as DRF's `FormParser` and `MultiPartParser` read them: every
//! value is text (a field given twice: the last counts), read into the
//! declared field's type so the same validation follows as for JSON.

use crate::error::ApiError;
use crate::fields::{Field, FieldType};
use actix_web::HttpRequest;
use actix_web::error::PayloadError;
use actix_web::web::{Bytes, BytesMut};
use futures_util::StreamExt;
use serde_json::{Map, Value};

/// One value of a form: text, or an uploaded file (never valid text).
pub(crate) enum FormValue {
    /// A text value, decoded as UTF-8 (invalid sequences replaced).
    Text(String),
    /// A multipart part that carries a file name.
    File,
}

/// Parses an `application/x-www-form-urlencoded` body.
pub(super) fn url_encoded(body: &[u8], fields: &[Field]) -> Result<Map<String, Value>, ApiError> {
    let pairs: Vec<(String, String)> = serde_urlencoded::from_bytes(body)
        .map_err(|e| ApiError::FormParse(format!("Form parse error - {e}")))?;
    Ok(typed_values(
        pairs.into_iter().map(|(n, v)| (n, FormValue::Text(v))),
        fields,
    ))
}

/// Parses a `multipart/form-data` body that has arrived whole.
pub(super) async fn multipart(
    req: &HttpRequest,
    body: Bytes,
    fields: &[Field],
) -> Result<Map<String, Value>, ApiError> {
    let stream = futures_util::stream::once(async move { Ok::<_, PayloadError>(body) });
    let mut parts = actix_multipart::Multipart::new(req.headers(), stream);
    let mut pairs = Vec::new();
    while let Some(part) = parts.next().await {
        let mut part = part.map_err(multipart_error)?;
        let Some(name) = part.name().map(str::to_owned) else {
            continue;
        };
        let is_file = part
            .content_disposition()
            .is_some_and(|disposition| disposition.get_filename().is_some());
        let mut data = BytesMut::new();
        while let Some(chunk) = part.next().await {
            data.extend_from_slice(&chunk.map_err(multipart_error)?);
        }
        let value = if is_file {
            FormValue::File
        } else {
            FormValue::Text(String::from_utf8_lossy(&data).into_owned())
        };
        pairs.push((name, value));
    }
    Ok(typed_values(pairs, fields))
}

fn multipart_error(error: actix_multipart::MultipartError) -> ApiError {
    ApiError::FormParse(format!("Multipart form parse error - {error}"))
}

/// The values of a form (or a query string) as the field engine reads
/// them: the last of repeated names counts; for a declared field, text that
/// spells a whole number or a boolean becomes one, as DRF's `IntegerField`
/// and `BooleanField` accept it; anything else stays text.
pub(crate) fn typed_values(
    pairs: impl IntoIterator<Item = (String, FormValue)>,
    fields: &[Field],
) -> Map<String, Value> {
    let mut values = Map::new();
    for (name, value) in pairs {
        let kind = fields.iter().find(|f| f.name == name).map(|f| f.kind);
        let value = match value {
            FormValue::Text(text) => typed(text, kind),
            FormValue::File => Value::Object(Map::new()),
        };
        values.insert(name, value);
    }
    values
}

fn typed(text: String, kind: Option<FieldType>) -> Value {
    match kind {
        Some(FieldType::Integer) => text
            .trim()
            .parse::<i64>()
            .map_or_else(|_| Value::String(text), Value::from),
        Some(FieldType::Boolean) => match text.trim().to_ascii_lowercase().as_str() {
            "true" | "1" => Value::Bool(true),
            "false" | "0" => Value::Bool(false),
            _ => Value::String(text),
        },
        _ => Value::String(text),
    }
}
