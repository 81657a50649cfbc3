//! The OpenAPI 3.1 document of the API, built with utoipa's typed model from
//! the [route table](crate::routes) and the [field descriptions](crate::fields):
//! the same descriptions that validate bodies and answer OPTIONS, so the
//! document cannot drift from what the server does.

use crate::fields::{Field, FieldType};
use crate::resources::{self, Resource};
use crate::routes::{self, Access, Body, Endpoint, Route};
use actix_web::http::Method;
use domain::email::EMAIL_PATTERN;
use std::ops::RangeInclusive;
use std::sync::LazyLock;
use utoipa::openapi::header::HeaderBuilder;
use utoipa::openapi::path::{HttpMethod, OperationBuilder, ParameterBuilder, ParameterIn};
use utoipa::openapi::request_body::RequestBodyBuilder;
use utoipa::openapi::schema::{
    AdditionalProperties, AnyOfBuilder, ArrayBuilder, ObjectBuilder, Schema, SchemaFormat,
    SchemaType, Type,
};
use utoipa::openapi::security::{ApiKey, ApiKeyValue, SecurityRequirement, SecurityScheme};
use utoipa::openapi::server::ServerBuilder;
use utoipa::openapi::tag::TagBuilder;
use utoipa::openapi::{
    ComponentsBuilder, ContentBuilder, InfoBuilder, LicenseBuilder, OpenApi, OpenApiBuilder,
    PathItem, PathsBuilder, Ref, RefOr, Required, Response, ResponseBuilder,
};

/// A timestamp as the API writes it: UTC, to the second, no zone.
const TIMESTAMP_PATTERN: &str = r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$";

/// Text the server accepts where blank is allowed: no NUL (refused as DRF
/// does) and no bidirectional control.
static TEXT_PATTERN: LazyLock<String> = LazyLock::new(|| {
    let refused = refused_anywhere();
    format!("^[^{refused}]*$")
});

/// Text the server accepts where blank is not: as [`TEXT_PATTERN`], with at
/// least one character that shows something (outside the domain's invisible
/// set, which holds NUL and the bidirectional controls too).
static NOT_BLANK_PATTERN: LazyLock<String> = LazyLock::new(|| {
    let refused = refused_anywhere();
    let invisible = character_class(domain::text::INVISIBLE);
    format!("^[^{refused}]*[^{invisible}][^{refused}]*$")
});

/// The characters no text may hold, as the inside of a character class.
fn refused_anywhere() -> String {
    character_class(&['\0'..='\0']) + &character_class(domain::text::BIDI_CONTROLS)
}

/// Ranges of characters as the inside of a regex character class. Characters
/// of the Basic Multilingual Plane are written `\uXXXX`, which every common
/// dialect reads; the others are written as themselves, since dialects
/// disagree on escapes beyond four digits.
fn character_class(ranges: &[RangeInclusive<char>]) -> String {
    let one = |c: char| match u16::try_from(u32::from(c)) {
        Ok(unit) => format!("\\u{unit:04x}"),
        Err(_) => c.to_string(),
    };
    ranges
        .iter()
        .map(|range| match (range.start(), range.end()) {
            (start, end) if start == end => one(*start),
            (start, end) => format!("{}-{}", one(*start), one(*end)),
        })
        .collect()
}

const VALIDATION_ERROR: &str = "ValidationError";

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
    for route in routes::all().iter().filter(|r| r.documented) {
        // Our patterns already use OpenAPI's `{param}` syntax.
        paths = paths.path(route.pattern, path_item(route));
    }
    OpenApiBuilder::new()
        .info(
            InfoBuilder::new()
                .title("devmgr")
                .version(env!("CARGO_PKG_VERSION"))
                .description(Some(INTRODUCTION))
                .license(Some(LicenseBuilder::new().name("MIT").build())),
        )
        .servers(Some([ServerBuilder::new()
            .url("/")
            .description(Some("The server this document came from"))
            .build()]))
        .paths(paths)
        .components(Some(components()))
        .tags(Some(
            [
                (
                    "Accounts",
                    "Registration, log-in, passwords and the profile.",
                ),
                (
                    "Devices",
                    "The account's devices: list, edit, delete, reboot.",
                ),
                (
                    "Agent",
                    "The device side: enrolment, heartbeats and commands.",
                ),
            ]
            .map(|(name, description)| {
                TagBuilder::new()
                    .name(name)
                    .description(Some(description))
                    .build()
            }),
        ))
        .build()
}

const INTRODUCTION: &str = "\
devmgr's JSON REST API. Every path ends in `/`; bodies are JSON.

Users authenticate with `Authorization: Token <token>` (from `POST /auth/` or \
`POST /register/`); device agents with `Authorization: Device <device_token>` \
(from `POST /install/`). Errors are Django REST Framework style: \
`{\"detail\": \"…\"}`, or a map of field names to lists of messages. \
`OPTIONS` on any path describes its methods and body fields.";

fn path_item(route: &Route) -> PathItem {
    let mut item: Option<PathItem> = None;
    for endpoint in &route.endpoints {
        let operation = operation(route, endpoint);
        let method = http_method(&endpoint.method);
        item = Some(match item {
            None => PathItem::new(method, operation),
            Some(mut item) => {
                item.merge_operations(PathItem::new(method, operation));
                item
            }
        });
    }
    item.expect("every route has an endpoint")
}

fn http_method(method: &Method) -> HttpMethod {
    match *method {
        Method::GET => HttpMethod::Get,
        Method::POST => HttpMethod::Post,
        Method::PUT => HttpMethod::Put,
        Method::PATCH => HttpMethod::Patch,
        Method::DELETE => HttpMethod::Delete,
        _ => unreachable!("the route table has no {method} endpoint"),
    }
}

/// The name client generators give the operation's function: what a person
/// would call it (`login`, `listDevices`, `rebootDevice`, …).
fn operation_id(route: &Route, method: &Method) -> &'static str {
    let method = method.as_str();
    match (route.pattern, method) {
        ("/agent/commands/", "GET") => "pollCommands",
        ("/agent/commands/{id}/ack/", "POST") => "acknowledgeCommand",
        ("/agent/heartbeat/", "POST") => "sendHeartbeat",
        ("/auth/", "POST") => "login",
        ("/auth/", "DELETE") => "logout",
        ("/auth/logout-all/", "POST") => "logoutEverywhere",
        ("/change-password/", "POST") => "changePassword",
        ("/devices/", "GET") => "listDevices",
        ("/devices/{serial}/", "GET") => "getDevice",
        ("/devices/{serial}/", "PUT") => "replaceDevice",
        ("/devices/{serial}/", "PATCH") => "updateDevice",
        ("/devices/{serial}/", "DELETE") => "deleteDevice",
        ("/devices/{serial}/commands/", "GET") => "listDeviceCommands",
        ("/devices/{serial}/ports/", "GET") => "listDevicePorts",
        ("/devices/{serial}/reboot/", "POST") => "rebootDevice",
        ("/install/", "POST") => "installDevice",
        ("/profile/", "GET") => "getProfile",
        ("/profile/", "PUT") => "replaceProfile",
        ("/profile/", "PATCH") => "updateProfile",
        ("/profile/install-token/", "POST") => "replaceInstallToken",
        ("/register/", "POST") => "register",
        ("/reset-password/", "POST") => "requestPasswordReset",
        ("/reset-password/confirm/", "GET") => "showPasswordResetForm",
        ("/reset-password/confirm/", "POST") => "confirmPasswordReset",
        ("/verify-email/", "POST") => "verifyEmail",
        ("/verify-email/resend/", "POST") => "resendVerificationEmail",
        ("/verify-email/{key}/", "GET") => "openVerificationLink",
        (pattern, method) => unreachable!("no operation id for {method} {pattern}"),
    }
}

fn tag(route: &Route) -> &'static str {
    if route.pattern.starts_with("/devices/") {
        "Devices"
    } else if route.pattern.starts_with("/agent/") || route.pattern == "/install/" {
        "Agent"
    } else {
        "Accounts"
    }
}

fn operation(route: &Route, endpoint: &Endpoint) -> utoipa::openapi::path::Operation {
    let mut operation = OperationBuilder::new()
        .operation_id(Some(operation_id(route, &endpoint.method)))
        .summary(Some(endpoint.summary))
        .description(Some(route.description))
        .tag(tag(route))
        .securities(Some(security(endpoint.access)));
    for name in path_parameters(route.pattern) {
        operation = operation.parameter(
            ParameterBuilder::new()
                .name(name)
                .parameter_in(ParameterIn::Path)
                .required(Required::True)
                .schema(Some(path_parameter_schema(name))),
        );
    }
    for field in endpoint.query {
        operation = operation.parameter(
            ParameterBuilder::new()
                .name(field.name)
                .parameter_in(ParameterIn::Query)
                .required(if field.required {
                    Required::True
                } else {
                    Required::False
                })
                .schema(Some(field_schema(field, Direction::Query))),
        );
    }
    if let Some(fields) = endpoint.fields {
        let partial = endpoint.method == Method::PATCH;
        let required = !partial && fields.iter().any(|f| f.required && !f.read_only);
        operation = operation.request_body(Some(
            RequestBodyBuilder::new()
                .required(Some(if required {
                    Required::True
                } else {
                    Required::False
                }))
                .content(
                    "application/json",
                    ContentBuilder::new()
                        .schema(Some(request_schema(fields, partial)))
                        .build(),
                )
                .build(),
        ));
    }
    for (status, response) in responses(endpoint) {
        operation = operation.response(status.to_string(), response);
    }
    operation.build()
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

fn path_parameter_schema(name: &str) -> Schema {
    let text = ObjectBuilder::new().schema_type(Type::String);
    match name {
        "serial" | "id" => text.format(Some(SchemaFormat::Custom("uuid".into()))),
        _ => text.min_length(Some(1)),
    }
    .into()
}

/// Which way a field's value travels: requests state the accepted values,
/// responses the shown ones.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Direction {
    Request,
    /// A query parameter: read as sent, never stored.
    Query,
    Response,
}

/// The schema of a request body: its writable fields.
fn request_schema(fields: &[Field], partial: bool) -> Schema {
    let mut object = ObjectBuilder::new().schema_type(Type::Object);
    for field in fields.iter().filter(|f| !f.read_only) {
        object = object.property(field.name, field_schema(field, Direction::Request));
        if field.required && !partial {
            object = object.required(field.name);
        }
    }
    object.into()
}

/// The schema of a resource as responses show it: every field, always.
fn response_schema(resource: &Resource) -> Schema {
    let object = object_of(resource.fields, Direction::Response);
    let Schema::Object(mut object) = object else {
        unreachable!("object_of builds an object")
    };
    object.description = Some(resource.description.to_owned());
    Schema::Object(object)
}

/// An object with every field present and no other.
fn object_of(fields: &[Field], direction: Direction) -> Schema {
    let mut object = ObjectBuilder::new()
        .schema_type(Type::Object)
        .additional_properties(Some(AdditionalProperties::FreeForm(false)));
    for field in fields {
        object = object
            .property(field.name, field_schema(field, direction))
            .required(field.name);
    }
    object.into()
}

fn nullable(kind: Type, field: &Field) -> SchemaType {
    if field.nullable {
        SchemaType::from_iter([kind, Type::Null])
    } else {
        SchemaType::Type(kind)
    }
}

/// One field's schema, from the same description OPTIONS shows.
fn field_schema(field: &Field, direction: Direction) -> Schema {
    if field.kind == FieldType::List {
        let children = field.children.unwrap_or_default();
        let item = match direction {
            Direction::Request | Direction::Query => request_schema(children, false),
            Direction::Response => object_of(children, direction),
        };
        return ArrayBuilder::new()
            .title(Some(field.label))
            .items(RefOr::T(item))
            .into();
    }
    let kind = match field.kind {
        FieldType::Boolean => Type::Boolean,
        FieldType::Integer => Type::Integer,
        _ => Type::String,
    };
    let mut schema = ObjectBuilder::new()
        .schema_type(nullable(kind.clone(), field))
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
        FieldType::Datetime => schema = schema.pattern(Some(TIMESTAMP_PATTERN)),
        FieldType::Email => schema = schema.pattern(Some(EMAIL_PATTERN)),
        _ => {}
    }
    if kind == Type::Integer {
        schema = schema
            .minimum(field.minimum.map(|n| n as f64))
            .maximum(field.maximum.map(|n| n as f64));
    }
    if !field.choices.is_empty() {
        let mut values: Vec<serde_json::Value> = field.choices.iter().map(|&c| c.into()).collect();
        if field.nullable {
            values.push(serde_json::Value::Null);
        }
        schema = schema.enum_values(Some(values));
    }
    let text = matches!(field.kind, FieldType::String | FieldType::Email);
    if text && field.choices.is_empty() && !field.read_only {
        schema = schema.max_length(field.max_length);
        let free_text = field.kind == FieldType::String;
        if free_text && direction == Direction::Request {
            if field.allow_blank {
                schema = schema.pattern(Some(TEXT_PATTERN.as_str()));
            } else {
                schema = schema.min_length(Some(1)).pattern(Some(if field.trim {
                    NOT_BLANK_PATTERN.as_str()
                } else {
                    TEXT_PATTERN.as_str()
                }));
            }
        }
    }
    schema.into()
}

fn schema_ref(name: &str) -> RefOr<Schema> {
    RefOr::Ref(Ref::from_schema_name(name))
}

fn response_ref(name: &str) -> RefOr<Response> {
    RefOr::Ref(Ref::from_response_name(name))
}

/// Every answer of an endpoint: its success, then the failures it can meet.
fn responses(endpoint: &Endpoint) -> Vec<(u16, RefOr<Response>)> {
    let reply = endpoint.reply;
    let mut responses = vec![(reply.status, RefOr::T(success(endpoint)))];
    let mut fails = |status: u16, response: RefOr<Response>| {
        if !responses.iter().any(|(s, _)| *s == status) {
            responses.push((status, response));
        }
    };
    let reads_input = endpoint.takes_body() || !endpoint.query.is_empty();
    if let Body::OneOrPage(_) = reply.body
        && endpoint.failures.contains(&400)
    {
        fails(400, RefOr::T(bad_request_or_page()));
    }
    if reads_input || endpoint.failures.contains(&400) {
        fails(400, response_ref("BadRequest"));
    }
    fails(401, response_ref("Unauthorized"));
    for &status in endpoint.failures {
        match status {
            403 => fails(403, response_ref("Forbidden")),
            404 => fails(404, response_ref("NotFound")),
            _ => {}
        }
    }
    if endpoint.takes_body() {
        fails(413, response_ref("PayloadTooLarge"));
        fails(415, response_ref("UnsupportedMediaType"));
    }
    if endpoint.throttled {
        fails(429, response_ref("Throttled"));
    }
    fails(500, response_ref("ServerError"));
    responses.sort_by_key(|(status, _)| *status);
    responses
}

fn json_content(schema: impl Into<RefOr<Schema>>) -> utoipa::openapi::Content {
    ContentBuilder::new().schema(Some(schema)).build()
}

fn html_content() -> utoipa::openapi::Content {
    json_content(ObjectBuilder::new().schema_type(Type::String))
}

fn success(endpoint: &Endpoint) -> Response {
    let builder = ResponseBuilder::new().description(endpoint.summary);
    match endpoint.reply.body {
        Body::Empty => builder,
        Body::One(resource) => {
            builder.content("application/json", json_content(schema_ref(resource.name)))
        }
        Body::Many(resource) => builder.content(
            "application/json",
            json_content(ArrayBuilder::new().items(schema_ref(resource.name))),
        ),
        Body::Page => builder.content("text/html", html_content()),
        Body::OneOrPage(resource) => builder
            .content("application/json", json_content(schema_ref(resource.name)))
            .content("text/html", html_content()),
    }
    .build()
}

fn bad_request_or_page() -> Response {
    ResponseBuilder::new()
        .description("Invalid input; a page for a client that accepts `text/html`.")
        .content("application/json", json_content(bad_request_schema()))
        .content("text/html", html_content())
        .build()
}

/// 400: field errors, or a `detail` for a body that is not JSON.
fn bad_request_schema() -> Schema {
    AnyOfBuilder::new()
        .item(schema_ref(VALIDATION_ERROR))
        .item(schema_ref(resources::DETAIL.name))
        .into()
}

fn validation_error_schema() -> Schema {
    let messages = || ArrayBuilder::new().items(ObjectBuilder::new().schema_type(Type::String));
    // Lists of objects (a heartbeat's ports) get one object of errors per item.
    let item_errors = ObjectBuilder::new()
        .schema_type(Type::Object)
        .additional_properties(Some(messages()));
    ObjectBuilder::new()
        .schema_type(Type::Object)
        .description(Some(
            "Field name → messages; errors of no single field are under `non_field_errors`.",
        ))
        .additional_properties(Some(
            ArrayBuilder::new().items(
                AnyOfBuilder::new()
                    .item(ObjectBuilder::new().schema_type(Type::String))
                    .item(item_errors),
            ),
        ))
        .into()
}

fn detail_response(description: &str) -> ResponseBuilder {
    ResponseBuilder::new().description(description).content(
        "application/json",
        json_content(schema_ref(resources::DETAIL.name)),
    )
}

fn components() -> utoipa::openapi::Components {
    let mut components = ComponentsBuilder::new()
        .schema(VALIDATION_ERROR, validation_error_schema())
        .security_scheme(
            "Token",
            SecurityScheme::ApiKey(ApiKey::Header(ApiKeyValue::with_description(
                "Authorization",
                "A user's API token, sent as `Authorization: Token <token>` (the keyword is case-insensitive).",
            ))),
        )
        .security_scheme(
            "Device",
            SecurityScheme::ApiKey(ApiKey::Header(ApiKeyValue::with_description(
                "Authorization",
                "A device's token, sent by its agent as `Authorization: Device <device_token>`.",
            ))),
        )
        .response(
            "BadRequest",
            ResponseBuilder::new()
                .description("Invalid input: field errors, or `detail` for a body that is not JSON.")
                .content("application/json", json_content(bad_request_schema()))
                .build(),
        )
        .response(
            "Unauthorized",
            detail_response("Missing or invalid credentials.")
                .header(
                    "WWW-Authenticate",
                    HeaderBuilder::new()
                        .schema(Some(
                            ObjectBuilder::new()
                                .schema_type(Type::String)
                                .enum_values(Some(["Token", "Device"])),
                        ))
                        .description(Some("The scheme the route accepts."))
                        .build(),
                )
                .build(),
        )
        .response("Forbidden", detail_response("Not allowed for this caller.").build())
        .response("NotFound", detail_response("No such resource in this account.").build())
        .response("PayloadTooLarge", detail_response("The body is over 64 KiB.").build())
        .response("UnsupportedMediaType", detail_response("The body is not JSON.").build())
        .response(
            "Throttled",
            detail_response("Too many requests from this address or for this account.")
                .header(
                    "Retry-After",
                    HeaderBuilder::new()
                        .schema(Some(
                            ObjectBuilder::new()
                                .schema_type(Type::Integer)
                                .minimum(Some(0)),
                        ))
                        .description(Some("Seconds until a request may succeed."))
                        .build(),
                )
                .build(),
        )
        .response("ServerError", detail_response("The server failed; the cause is logged, never shown.").build());
    for resource in resources::ALL {
        components = components.schema(resource.name, response_schema(resource));
    }
    components.build()
}

#[cfg(test)]
mod tests {
    use super::*;
    use regex::Regex;

    fn compiled(pattern: &str) -> Regex {
        Regex::new(pattern).expect("a valid pattern")
    }

    #[test]
    fn text_patterns_accept_exactly_what_the_server_accepts() {
        let text = compiled(&TEXT_PATTERN);
        let not_blank = compiled(&NOT_BLANK_PATTERN);
        let samples = [
            "",
            "Kitchen Pi",
            "   ",
            "\u{200B}\u{200B}",
            "\u{3164}",
            "\u{E0020}",
            "\u{E0020}x",
            "👩\u{200D}💻 lab",
            "\u{05E9}\u{05DC}\u{05D5}\u{05DD} \u{200F}",
            "a\u{202E}b",
            "\u{2066}",
            "x\u{2069}",
            "a\0",
            "\0",
            "\u{1D173}\u{2800}",
        ];
        for sample in samples {
            let allowed = !sample.contains('\0') && !domain::text::has_bidi_control(sample);
            assert_eq!(text.is_match(sample), allowed, "{sample:?}");
            assert_eq!(
                not_blank.is_match(sample),
                allowed && !domain::text::is_blank(sample),
                "{sample:?}"
            );
        }
    }
}
