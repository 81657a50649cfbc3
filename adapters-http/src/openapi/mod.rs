//! The OpenAPI 3.1 document of the API, built with utoipa's typed model from
//! the [route table](crate::route_table) and the [field descriptions](crate::fields):
//! the same descriptions that validate bodies and answer OPTIONS, so the
//! document cannot drift from what the server does.

mod query;
mod responses;
mod schemas;
#[cfg(test)]
mod tests;

use crate::route_table::{self, Access, Endpoint, Route, Tag};
use actix_web::http::Method;
use schemas::Direction;
use serde_json::Value;
use std::sync::LazyLock;
use utoipa::openapi::path::{HttpMethod, OperationBuilder, ParameterBuilder, ParameterIn};
use utoipa::openapi::request_body::RequestBodyBuilder;
use utoipa::openapi::schema::{ObjectBuilder, Schema, SchemaFormat, Type};
use utoipa::openapi::security::SecurityRequirement;
use utoipa::openapi::server::ServerBuilder;
use utoipa::openapi::tag::TagBuilder;
use utoipa::openapi::{
    InfoBuilder, LicenseBuilder, OpenApi, OpenApiBuilder, PathItem, PathsBuilder, Required,
};

/// The document, serialized once.
pub fn document_json() -> &'static str {
    static JSON: LazyLock<String> = LazyLock::new(|| {
        document()
            .to_pretty_json()
            .expect("the OpenAPI model always serializes")
    });
    &JSON
}

/// The whole document.
pub fn document() -> OpenApi {
    let mut paths = PathsBuilder::new();
    for route in route_table::all() {
        let Some(tag) = route.tag else { continue };
        if let Some(item) = path_item(route, tag) {
            // Our patterns already use OpenAPI's `{param}` syntax.
            paths = paths.path(route.pattern, item);
        }
    }
    OpenApiBuilder::new()
        .info(
            InfoBuilder::new()
                .title("devmgr")
                .version(env!("CARGO_PKG_VERSION"))
                .description(Some(INTRODUCTION))
                .license(Some(
                    LicenseBuilder::new()
                        .name("MIT")
                        .identifier(Some("MIT"))
                        .build(),
                )),
        )
        .servers(Some([ServerBuilder::new()
            .url("/")
            .description(Some("The server this document came from"))
            .build()]))
        .paths(paths)
        .components(Some(responses::components()))
        .tags(Some(Tag::ALL.map(|tag| {
            TagBuilder::new()
                .name(tag.name())
                .description(Some(tag.description()))
                .build()
        })))
        .build()
}

/// The media types every body is accepted in, with the same fields: JSON
/// first, the one generated clients send; then the two form encodings, where
/// every value is text (`true`/`false`/`1`/`0` for a boolean, decimal digits
/// for a whole number), as Django REST Framework parses them.
const BODY_MEDIA_TYPES: [&str; 3] = [
    "application/json",
    "application/x-www-form-urlencoded",
    "multipart/form-data",
];

const INTRODUCTION: &str = "\
devmgr's JSON REST API. Every path ends in `/`; bodies are JSON, and a request \
body may also be a form (`application/x-www-form-urlencoded` or \
`multipart/form-data`) with the same fields.

Users authenticate with `Authorization: Token <token>` (from `POST /auth/` or \
`POST /register/`); device agents with `Authorization: Device <device_token>` \
(from `POST /install/`). Errors are Django REST Framework style: \
`{\"detail\": \"…\"}`, or a map of field names to lists of messages. \
`OPTIONS` on any path describes its methods and body fields.";

/// Every method of a route, as the operations of its path; `None` for a
/// route with no method the document can name.
fn path_item(route: &Route, tag: Tag) -> Option<PathItem> {
    let mut operations = route.endpoints.iter().filter_map(|endpoint| {
        let method = http_method(&endpoint.method)?;
        Some((method, operation(route, tag, endpoint)))
    });
    let (method, first) = operations.next()?;
    let mut item = PathItem::new(method, first);
    for (method, operation) in operations {
        item.merge_operations(PathItem::new(method, operation));
    }
    Some(item)
}

/// The document's name of a method the route table serves; `None` for one
/// it cannot describe as an operation (HEAD and OPTIONS are implied).
fn http_method(method: &Method) -> Option<HttpMethod> {
    Some(match *method {
        Method::GET => HttpMethod::Get,
        Method::POST => HttpMethod::Post,
        Method::PUT => HttpMethod::Put,
        Method::PATCH => HttpMethod::Patch,
        Method::DELETE => HttpMethod::Delete,
        _ => return None,
    })
}

fn operation(route: &Route, tag: Tag, endpoint: &Endpoint) -> utoipa::openapi::path::Operation {
    let mut operation = OperationBuilder::new()
        .operation_id(Some(endpoint.operation_id))
        .summary(Some(endpoint.summary))
        .description(Some(route.description))
        .tag(tag.name())
        .securities(Some(security(endpoint.access)));
    let path = path_parameters(route.pattern).map(|name| {
        let declared = route.parameters.iter().find(|p| p.name == name);
        let schema = path_parameter_schema(declared.and_then(|p| p.format));
        (name, ParameterIn::Path, true, schema)
    });
    let query = endpoint.query.iter().map(|field| {
        let schema = schemas::field_schema(field, Direction::Query);
        (field.name, ParameterIn::Query, field.required, schema)
    });
    for (name, place, required, schema) in path.chain(query) {
        let declared = route.parameters.iter().find(|p| p.name == name);
        operation = operation.parameter(
            ParameterBuilder::new()
                .name(name)
                .parameter_in(place)
                .required(required_if(required))
                .description(declared.map(|p| p.description))
                .example(declared.map(|p| (p.example)()))
                .schema(Some(schema)),
        );
    }
    if let Some(fields) = endpoint.fields {
        let partial = endpoint.method == Method::PATCH;
        let required = !partial && fields.iter().any(|f| f.required && !f.read_only);
        let example = endpoint
            .request_example
            .as_ref()
            .map(|example| Value::Object(example.body.clone()));
        let json = schemas::request_schema(fields, partial);
        let form = schemas::form_schema(fields, partial);
        let mut body = RequestBodyBuilder::new().required(Some(required_if(required)));
        for media_type in BODY_MEDIA_TYPES {
            let (schema, example) = if media_type == "application/json" {
                (json.clone(), example.clone())
            } else {
                (
                    form.clone(),
                    example.as_ref().map(|e| form_example(e, fields)),
                )
            };
            body = body.content(media_type, responses::content(schema, example));
        }
        operation = operation.request_body(Some(body.build()));
    }
    for (status, response) in responses::responses(endpoint) {
        operation = operation.response(status.to_string(), response);
    }
    operation.build()
}

/// A body's example as a form sends it: no `null` (a form cannot say it),
/// no list of objects (a form spells it entry by entry), and a nested
/// object's keys spelled `<object>.<key>` as text (its lists left out).
fn form_example(example: &Value, fields: &[crate::fields::Field]) -> Value {
    use crate::fields::FieldType;
    let mut example = example.clone();
    if let Value::Object(object) = &mut example {
        let kind = |name: &str| fields.iter().find(|f| f.name == name).map(|f| f.kind);
        let mut spelled = serde_json::Map::new();
        for (name, value) in object.iter() {
            let (Some(FieldType::Object), Value::Object(keys)) = (kind(name), value) else {
                continue;
            };
            for (key, value) in keys {
                let text = match value {
                    Value::Array(_) | Value::Null | Value::Object(_) => continue,
                    Value::String(text) => Value::String(text.clone()),
                    other => Value::String(other.to_string()),
                };
                spelled.insert(format!("{name}.{key}"), text);
            }
        }
        object.retain(|name, value| {
            let spelled_apart = matches!(kind(name), Some(FieldType::List | FieldType::Object));
            !value.is_null() && !spelled_apart
        });
        object.extend(spelled);
    }
    example
}

fn required_if(required: bool) -> Required {
    if required {
        Required::True
    } else {
        Required::False
    }
}

fn security(access: Access) -> Vec<SecurityRequirement> {
    let scheme = |name: &str| SecurityRequirement::new(name, Vec::<String>::new());
    match access {
        Access::User => vec![scheme("Token")],
        Access::Device => vec![scheme("Device")],
        // No credentials: a client sends none (a presented token must still
        // be valid, which the descriptions of the few routes concerned say).
        Access::Public => Vec::new(),
    }
}

fn path_parameters(pattern: &str) -> impl Iterator<Item = &str> {
    pattern
        .split('/')
        .filter_map(|segment| segment.strip_prefix('{')?.strip_suffix('}'))
}

/// A path parameter's schema: text of its `format`, or any text that is
/// not empty.
fn path_parameter_schema(format: Option<&str>) -> Schema {
    let text = ObjectBuilder::new().schema_type(Type::String);
    match format {
        Some(format) => text.format(Some(SchemaFormat::Custom(format.to_owned()))),
        None => text.min_length(Some(1)),
    }
    .into()
}
