//! JSON Schemas of bodies and fields, from the same [field
//! descriptions](crate::fields) that validate requests and answer OPTIONS.

use crate::fields::selector::{FALSE_SPELLINGS, TRUE_SPELLINGS};
use crate::fields::{Field, FieldType, TAG_ITEM, TAG_PATTERN};
use crate::resources::{DETAIL_SCHEMA, ObjectSchema};
use domain::email::EMAIL_PATTERN;
use std::ops::RangeInclusive;
use std::sync::LazyLock;
use utoipa::openapi::schema::{
    AdditionalProperties, AnyOfBuilder, ArrayBuilder, ObjectBuilder, Schema, SchemaFormat,
    SchemaType, Type,
};
use utoipa::openapi::{Ref, RefOr};

/// The component name of field errors.
pub(super) const VALIDATION_ERROR: &str = "ValidationError";

/// A timestamp as the API writes it: UTC, to the second, no zone.
const TIMESTAMP_PATTERN: &str = r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$";

/// A timestamp, or nothing: a form's empty value, `null` for a field that takes it.
const TIMESTAMP_OR_EMPTY_PATTERN: &str = r"^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})?$";

/// Text the server accepts where blank is allowed: no NUL (refused as DRF
/// does) and no bidirectional control.
static TEXT_PATTERN: LazyLock<String> = LazyLock::new(|| {
    let refused = refused_anywhere();
    format!("^[^{refused}]*$")
});

/// Text the server accepts where blank is not: as [`TEXT_PATTERN`], with at
/// least one character that shows something (outside the domain's invisible
/// set, which holds NUL and the bidirectional controls too).
///
/// The pattern names only the invisible characters of the Basic Multilingual
/// Plane: the few beyond it (tags, some format characters) cannot be written
/// in a pattern that regex engines of every kind read alike (see
/// [`bmp_class`]), so text made of those alone matches yet is refused as blank.
static NOT_BLANK_PATTERN: LazyLock<String> = LazyLock::new(|| {
    let refused = refused_anywhere();
    let invisible = bmp_class(domain::text::INVISIBLE);
    format!("^[^{refused}]*[^{invisible}][^{refused}]*$")
});

/// The characters no text may hold, as the inside of a character class.
fn refused_anywhere() -> String {
    bmp_class(&['\0'..='\0']) + &bmp_class(domain::text::BIDI_CONTROLS)
}

/// The characters of `ranges` in the Basic Multilingual Plane as the inside
/// of a regex character class, each written `\uXXXX`, which ECMA-262 (with or
/// without the `u` flag), Python and Rust all read alike. Characters beyond
/// it are left out: without the `u` flag, ECMA-262 reads each as two UTF-16
/// units, and a range of them is a syntax error.
fn bmp_class(ranges: &[RangeInclusive<char>]) -> String {
    const LAST: char = '\u{FFFF}';
    ranges
        .iter()
        .filter(|range| *range.start() <= LAST)
        .map(|range| {
            let (start, end) = (
                u32::from(*range.start()),
                u32::from(*range.end().min(&LAST)),
            );
            if start == end {
                format!("\\u{start:04x}")
            } else {
                format!("\\u{start:04x}-\\u{end:04x}")
            }
        })
        .collect()
}

/// Which way a field's value travels: requests state the accepted values,
/// responses the shown ones.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Direction {
    Request,
    /// A request body sent as a form: every value is text, so nothing is
    /// `null` (an empty value is, for a field that takes `null`).
    Form,
    /// A query parameter: read as sent, never stored.
    Query,
    Response,
}

/// A reference to a schema of the components.
pub(super) fn schema_ref(name: &str) -> RefOr<Schema> {
    RefOr::Ref(Ref::from_schema_name(name))
}

/// The schema of a request body: its writable fields.
pub(super) fn request_schema(fields: &[Field], partial: bool) -> Schema {
    body_schema(fields, partial, Direction::Request)
}

/// The schema of a request body sent as a form: its writable fields but
/// its lists of objects, which a form spells entry by entry as DRF's HTML
/// forms do (`ports[0]port=22`), and no `null`.
pub(super) fn form_schema(fields: &[Field], partial: bool) -> Schema {
    body_schema(fields, partial, Direction::Form)
}

fn body_schema(fields: &[Field], partial: bool, direction: Direction) -> Schema {
    body_object(fields, partial, direction).into()
}

fn body_object(fields: &[Field], partial: bool, direction: Direction) -> ObjectBuilder {
    let mut object = ObjectBuilder::new().schema_type(Type::Object);
    let form = direction == Direction::Form;
    let skipped = |f: &Field| f.read_only || (form && f.kind == FieldType::List);
    for field in fields.iter().filter(|f| !skipped(f)) {
        if form && field.kind == FieldType::Object {
            object = nested_form_properties(object, field);
            continue;
        }
        object = object.property(field.name, field_schema(field, direction));
        if field.required && !partial {
            object = object.required(field.name);
        }
    }
    object
}

/// A nested object's keys as a form spells them, as DRF's HTML parsing
/// reads them: `<field>.<key>` (`selector.online=true`), lists left out as
/// for the body's own fields.
fn nested_form_properties(mut object: ObjectBuilder, field: &Field) -> ObjectBuilder {
    let children = field.children.unwrap_or_default();
    for child in children
        .iter()
        .filter(|c| !c.read_only && c.kind != FieldType::List)
    {
        let name = format!("{}.{}", field.name, child.name);
        object = object.property(name, field_schema(child, Direction::Form));
    }
    object
}

/// A writable boolean, as DRF's `BooleanField` reads it: JSON's booleans,
/// its spellings as text (`"yes"`, `"off"`, …), `1` and `0`; in a form, only
/// the spellings. One schema of three types (a pattern applies to text only,
/// bounds to numbers only); the spellings are a pattern, not an enum, as
/// client generators make an enum's values names, and `"t"` and `"T"` clash.
fn drf_boolean_schema(field: &Field, direction: Direction) -> Schema {
    let spellings: Vec<&str> = TRUE_SPELLINGS
        .iter()
        .chain(FALSE_SPELLINGS)
        .copied()
        .collect();
    let types = if direction == Direction::Form {
        SchemaType::Type(Type::String)
    } else {
        SchemaType::from_iter([Type::Boolean, Type::String, Type::Integer])
    };
    let mut schema = ObjectBuilder::new()
        .schema_type(types)
        .title(Some(field.label))
        .pattern(Some(format!("^({})$", spellings.join("|"))));
    if direction != Direction::Form {
        schema = schema.minimum(Some(0.0)).maximum(Some(1.0));
    }
    schema.into()
}

/// A list of plain values (tags, serials): at most the field's
/// `max_length` items and, when it has a `minimum`, at least that many.
fn list_schema(field: &Field, item: &Field, direction: Direction) -> Schema {
    // A query's tags are any text: one that is no tag matches no device.
    let item_schema: Schema = if *item == TAG_ITEM && direction != Direction::Query {
        ObjectBuilder::new()
            .schema_type(Type::String)
            .pattern(Some(TAG_PATTERN))
            .max_length(item.max_length)
            .into()
    } else {
        field_schema(item, direction)
    };
    let mut array = ArrayBuilder::new()
        .title(Some(field.label))
        .items(RefOr::T(item_schema));
    if !field.read_only && direction != Direction::Query {
        array = array
            .max_items(field.max_length)
            .min_items(field.minimum.and_then(|n| usize::try_from(n).ok()));
    }
    array.into()
}

/// The schema of an object as responses show it: every field, always.
pub(super) fn response_schema(schema: &ObjectSchema) -> Schema {
    object_of(schema.fields, Direction::Response)
        .description(Some(schema.description))
        .into()
}

/// An object with every field present and no other.
fn object_of(fields: &[Field], direction: Direction) -> ObjectBuilder {
    let mut object = ObjectBuilder::new()
        .schema_type(Type::Object)
        .additional_properties(Some(AdditionalProperties::FreeForm(false)));
    for field in fields {
        object = object
            .property(field.name, field_schema(field, direction))
            .required(field.name);
    }
    object
}

/// A nested object as a response shows it: its read-only keys always, its
/// writable ones (a job's selector, echoing the request) when they were sent.
fn echoed_object(fields: &[Field]) -> ObjectBuilder {
    let mut object = ObjectBuilder::new()
        .schema_type(Type::Object)
        .additional_properties(Some(AdditionalProperties::FreeForm(false)));
    for field in fields {
        object = object.property(field.name, field_schema(field, Direction::Response));
        if field.read_only {
            object = object.required(field.name);
        }
    }
    object
}

fn nullable(kind: Type, field: &Field, direction: Direction) -> SchemaType {
    match (field.nullable, direction) {
        (false, _) => SchemaType::Type(kind),
        // A form says `null` with an empty value: a number field takes "" too.
        (true, Direction::Form) if matches!(kind, Type::Integer | Type::Number) => {
            SchemaType::from_iter([kind, Type::String])
        }
        (true, Direction::Form) => SchemaType::Type(kind),
        (true, _) => SchemaType::from_iter([kind, Type::Null]),
    }
}

/// Whether a form may send the field empty, for `null`.
fn empty_in_form(field: &Field, direction: Direction) -> bool {
    field.nullable && !field.allow_blank && direction == Direction::Form
}

/// One field's schema, from the same description OPTIONS shows.
pub(super) fn field_schema(field: &Field, direction: Direction) -> Schema {
    if field.kind == FieldType::Boolean && direction == Direction::Query {
        return super::query::boolean_filter_schema(field);
    }
    if let (FieldType::List, Some(item)) = (field.kind, field.item) {
        return list_schema(field, item, direction);
    }
    if field.kind == FieldType::List {
        let children = field.children.unwrap_or_default();
        let item = match direction {
            Direction::Request | Direction::Form | Direction::Query => {
                request_schema(children, false)
            }
            Direction::Response => object_of(children, direction).into(),
        };
        return ArrayBuilder::new()
            .title(Some(field.label))
            .items(RefOr::T(item))
            .into();
    }
    if field.kind == FieldType::Object {
        let children = field.children.unwrap_or_default();
        let object = match direction {
            Direction::Response => echoed_object(children),
            Direction::Request | Direction::Form | Direction::Query => {
                body_object(children, false, Direction::Request)
            }
        };
        return object
            .title(Some(field.label))
            .read_only(field.read_only)
            .into();
    }
    let writable = matches!(direction, Direction::Request | Direction::Form) && !field.read_only;
    if field.kind == FieldType::Boolean && writable {
        return drf_boolean_schema(field, direction);
    }
    let kind = match field.kind {
        FieldType::Boolean => Type::Boolean,
        FieldType::Integer => Type::Integer,
        FieldType::Float => Type::Number,
        _ => Type::String,
    };
    let mut schema = ObjectBuilder::new()
        .schema_type(nullable(kind.clone(), field, direction))
        .title(Some(field.label))
        .read_only(field.read_only && direction == Direction::Response);
    // E-mail addresses are described by the server's own pattern alone:
    // JSON Schema's `email` format is a different rule (RFC 5321's).
    let format = match field.kind {
        FieldType::Url => Some("uri"),
        _ => field.format,
    };
    if let Some(format) = format {
        schema = schema.format(Some(SchemaFormat::Custom(format.to_owned())));
    }
    match field.kind {
        FieldType::Datetime if empty_in_form(field, direction) => {
            schema = schema.pattern(Some(TIMESTAMP_OR_EMPTY_PATTERN));
        }
        FieldType::Datetime => schema = schema.pattern(Some(TIMESTAMP_PATTERN)),
        FieldType::Email => schema = schema.pattern(Some(EMAIL_PATTERN)),
        _ => {}
    }
    if matches!(kind, Type::Integer | Type::Number) {
        if empty_in_form(field, direction) {
            schema = schema.max_length(Some(0));
        }
        schema = schema
            .minimum(field.minimum.map(|n| n as f64))
            .maximum(field.maximum.map(|n| n as f64));
    }
    if !field.choices.is_empty() {
        let mut values: Vec<serde_json::Value> = field.choices.iter().map(|&c| c.into()).collect();
        if field.nullable && direction != Direction::Form {
            values.push(serde_json::Value::Null);
        }
        schema = schema.enum_values(Some(values));
    }
    let text = matches!(field.kind, FieldType::String | FieldType::Email);
    if text && field.choices.is_empty() && !field.read_only {
        schema = schema.max_length(field.max_length);
        let free_text = field.kind == FieldType::String;
        if free_text && matches!(direction, Direction::Request | Direction::Form) {
            if field.allow_blank {
                schema = schema.pattern(Some(TEXT_PATTERN.as_str()));
            } else {
                let fewest = field.minimum.and_then(|n| usize::try_from(n).ok());
                schema = schema
                    .min_length(Some(fewest.unwrap_or(1).max(1)))
                    .pattern(Some(if field.trim {
                        NOT_BLANK_PATTERN.as_str()
                    } else {
                        TEXT_PATTERN.as_str()
                    }));
            }
        }
    }
    schema.into()
}

/// 400: field errors, or a `detail` for a body that is not JSON.
pub(super) fn bad_request_schema() -> Schema {
    AnyOfBuilder::new()
        .item(schema_ref(VALIDATION_ERROR))
        .item(schema_ref(DETAIL_SCHEMA.name))
        .into()
}

/// Field name → messages, as DRF writes them.
pub(super) fn validation_error_schema() -> Schema {
    let messages = || ArrayBuilder::new().items(ObjectBuilder::new().schema_type(Type::String));
    // Lists of objects (a heartbeat's ports) get one object of errors per item.
    let item_errors = || {
        ObjectBuilder::new()
            .schema_type(Type::Object)
            .additional_properties(Some(messages()))
    };
    let field_errors = ArrayBuilder::new().items(
        AnyOfBuilder::new()
            .item(ObjectBuilder::new().schema_type(Type::String))
            .item(item_errors()),
    );
    ObjectBuilder::new()
        .schema_type(Type::Object)
        .description(Some(
            "Field name → messages; errors of no single field are under `non_field_errors`;\na nested object's errors (a selector's) are an object of its own, key → messages.",
        ))
        // A nested object (a selector) gets its keys' errors as an object.
        .additional_properties(Some(
            AdditionalProperties::RefOr(RefOr::T(
                AnyOfBuilder::new()
                    .item(field_errors)
                    .item(item_errors())
                    .into(),
            )),
        ))
        .into()
}

#[cfg(test)]
mod tests;
