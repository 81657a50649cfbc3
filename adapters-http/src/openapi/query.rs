//! Schemas of query parameters that read text as a list's filters do.

use crate::fields::Field;
use utoipa::openapi::schema::{ObjectBuilder, Schema, SchemaType, Type};

/// A boolean filter of a query, as django-filter's widget reads it: `true`,
/// `false`, `1` or `0`, in any letter case.
pub(super) fn boolean_filter_schema(field: &Field) -> Schema {
    ObjectBuilder::new()
        .schema_type(SchemaType::from_iter([
            Type::Boolean,
            Type::String,
            Type::Integer,
        ]))
        .title(Some(field.label))
        .pattern(Some("^([Tt][Rr][Uu][Ee]|[Ff][Aa][Ll][Ss][Ee]|1|0)$"))
        .minimum(Some(0.0))
        .maximum(Some(1.0))
        .into()
}
