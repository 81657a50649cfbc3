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
use std::collections::BTreeMap;

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
/// spells a whole number, a number or a boolean becomes one, as DRF's
/// `IntegerField`, `FloatField` and `BooleanField` accept it; anything else stays text. A list of
/// objects is spelled as DRF's HTML parsing reads it, an entry's fields
/// named `<list>[<index>]<field>` (`ports[0]port=22&ports[0]protocol=tcp`);
/// a list field's plain name carries nothing (DRF ignores it too). A list
/// of plain values (tags) is its name repeated, one value each.
pub(crate) fn typed_values(
    pairs: impl IntoIterator<Item = (String, FormValue)>,
    fields: &[Field],
) -> Map<String, Value> {
    let mut values = Map::new();
    let mut lists: BTreeMap<&str, BTreeMap<u64, Map<String, Value>>> = BTreeMap::new();
    let mut objects: BTreeMap<&str, NestedPairs> = BTreeMap::new();
    for (name, value) in pairs {
        if let Some((object, key)) = object_key(&name, fields) {
            let children = object.children.unwrap_or_default();
            let (_, pairs) = objects.entry(object.name).or_insert((children, Vec::new()));
            pairs.push((key.to_owned(), value));
            continue;
        }
        if let Some((list, index, child, value)) = list_entry(&name, &value, fields) {
            lists
                .entry(list)
                .or_default()
                .entry(index)
                .or_default()
                .insert(child, value);
            continue;
        }
        let field = fields.iter().find(|f| f.name == name);
        if let Some(list) = field.filter(|f| f.item.is_some()) {
            let item = match value {
                FormValue::Text(text) => typed(text, list.item),
                FormValue::File => Value::Object(Map::new()),
            };
            let items = values
                .entry(name)
                .or_insert_with(|| Value::Array(Vec::new()));
            if let Value::Array(items) = items {
                items.push(item);
            }
            continue;
        }
        if field.is_some_and(|f| matches!(f.kind, FieldType::List | FieldType::Object)) {
            continue;
        }
        let value = match value {
            FormValue::Text(text) => typed(text, field),
            FormValue::File => Value::Object(Map::new()),
        };
        values.insert(name, value);
    }
    for (list, entries) in lists {
        let entries = entries.into_values().map(Value::Object).collect();
        values.insert(list.to_owned(), Value::Array(entries));
    }
    for (object, (children, pairs)) in objects {
        values.insert(
            object.to_owned(),
            Value::Object(typed_values(pairs, children)),
        );
    }
    values
}

/// A nested object's fields, and its keys and values as the form sent them.
type NestedPairs<'f> = (&'f [Field], Vec<(String, FormValue)>);

/// `<object>.<key>` of a declared nested object (`selector.online`), as
/// DRF's HTML parsing reads a nested serializer: the object's field and the key.
fn object_key<'a, 'f>(name: &'a str, fields: &'f [Field]) -> Option<(&'f Field, &'a str)> {
    let (object, key) = name.split_once('.')?;
    let field = fields
        .iter()
        .find(|f| f.name == object && f.kind == FieldType::Object)?;
    Some((field, key))
}

/// `<list>[<index>]<child>` of a declared list field: the list's name, the
/// index, the child's name and its typed value.
fn list_entry(
    name: &str,
    value: &FormValue,
    fields: &[Field],
) -> Option<(&'static str, u64, String, Value)> {
    let (list, rest) = name.split_once('[')?;
    let (index, child) = rest.split_once(']')?;
    let field = fields
        .iter()
        .find(|f| f.name == list && f.kind == FieldType::List)?;
    let index = index.parse::<u64>().ok()?;
    let child_field = field
        .children
        .and_then(|children| children.iter().find(|c| c.name == child));
    let value = match value {
        FormValue::Text(text) => typed(text.clone(), child_field),
        FormValue::File => Value::Object(Map::new()),
    };
    Some((field.name, index, child.to_owned(), value))
}

/// A form's text as the field engine reads it for `field`: an empty value
/// is `null` for a field that takes `null` (and no blank text), as DRF reads
/// HTML forms.
fn typed(text: String, field: Option<&Field>) -> Value {
    let Some(field) = field else {
        return Value::String(text);
    };
    if text.is_empty() && field.nullable && !field.allow_blank {
        return Value::Null;
    }
    match field.kind {
        FieldType::Integer => text
            .trim()
            .parse::<i64>()
            .map_or_else(|_| Value::String(text), Value::from),
        FieldType::Float => text
            .trim()
            .parse::<f64>()
            .ok()
            .and_then(serde_json::Number::from_f64)
            .map_or_else(|| Value::String(text), Value::Number),
        FieldType::Boolean => match text.trim().to_ascii_lowercase().as_str() {
            "true" | "1" => Value::Bool(true),
            "false" | "0" => Value::Bool(false),
            _ => Value::String(text),
        },
        _ => Value::String(text),
    }
}
