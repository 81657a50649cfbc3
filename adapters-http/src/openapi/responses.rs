//! The answers of each operation, and the failures every operation of a kind
//! can meet, kept once in the components.

use super::schemas::{
    VALIDATION_ERROR, bad_request_schema, response_schema, schema_ref, validation_error_schema,
};
use crate::answer::Detail;
use crate::auth::Scheme;
use crate::description::{AnswerObject, Location, error_json, to_json};
use crate::error::{ApiError, NON_FIELD_ERRORS};
use crate::resources::{DETAIL_SCHEMA, OBJECT_SCHEMAS, ObjectSchema};
use crate::route_table::{Endpoint, ReplyBody};
use serde_json::Value;
use utoipa::openapi::header::{Header, HeaderBuilder};
use utoipa::openapi::schema::{
    ArrayBuilder, ObjectBuilder, OneOfBuilder, Schema, SchemaFormat, Type,
};
use utoipa::openapi::security::{ApiKey, ApiKeyValue, SecurityScheme};
use utoipa::openapi::{
    Components, ComponentsBuilder, Content, ContentBuilder, Ref, RefOr, Response, ResponseBuilder,
};

fn response_ref(name: &str) -> RefOr<Response> {
    RefOr::Ref(Ref::from_response_name(name))
}

/// Every answer of an endpoint: its success, then the failures it can meet.
pub(super) fn responses(endpoint: &Endpoint) -> Vec<(u16, RefOr<Response>)> {
    let reply = endpoint.reply;
    let mut responses = vec![(reply.status, RefOr::T(success(endpoint)))];
    let mut fails = |status: u16, response: RefOr<Response>| {
        if !responses.iter().any(|(s, _)| *s == status) {
            responses.push((status, response));
        }
    };
    let reads_input = endpoint.takes_body() || !endpoint.query.is_empty();
    if let (ReplyBody::OneOrPage(_), Some(example)) = (reply.body, &endpoint.bad_request_example)
        && endpoint.failures.contains(&400)
    {
        fails(400, RefOr::T(bad_request_or_page(example.clone())));
    }
    if reads_input || endpoint.failures.contains(&400) {
        fails(400, response_ref("BadRequest"));
    }
    for (status, schema, example) in &endpoint.failure_examples {
        fails(
            *status,
            RefOr::T(own_failure(*status, schema, example.clone())),
        );
    }
    if endpoint.reads_credentials {
        fails(401, response_ref("Unauthorized"));
    }
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
    if endpoint.reads_credentials {
        fails(503, response_ref("Unavailable"));
    }
    responses.sort_by_key(|(status, _)| *status);
    responses
}

/// A body of `schema`, with an example.
pub(super) fn content(schema: impl Into<RefOr<Schema>>, example: Option<Value>) -> Content {
    ContentBuilder::new()
        .schema(Some(schema))
        .example(example)
        .build()
}

/// JSON of `schema`, with an example.
fn json_content(schema: impl Into<RefOr<Schema>>, example: Value) -> Content {
    content(schema, Some(example))
}

fn html_content() -> Content {
    ContentBuilder::new()
        .schema(Some(ObjectBuilder::new().schema_type(Type::String)))
        .build()
}

/// The endpoint's answer on success as its operation shows it: its own
/// example, else its answer type's.
fn answer_example(endpoint: &Endpoint, object: AnswerObject) -> Value {
    endpoint
        .answer_example
        .clone()
        .unwrap_or_else(|| (object.example)())
}

fn success(endpoint: &Endpoint) -> Response {
    let mut builder = ResponseBuilder::new().description(endpoint.summary);
    if let Some(location) = endpoint.reply.location {
        builder = builder.header("Location", location_header(location));
    }
    let one = |object: AnswerObject| {
        json_content(
            schema_ref(object.schema.name),
            answer_example(endpoint, object),
        )
    };
    match endpoint.reply.body {
        ReplyBody::Empty => builder,
        ReplyBody::One(object) => builder.content("application/json", one(object)),
        ReplyBody::Many(object) => builder.content(
            "application/json",
            json_content(
                ArrayBuilder::new().items(schema_ref(object.schema.name)),
                Value::Array(vec![answer_example(endpoint, object)]),
            ),
        ),
        ReplyBody::Page => builder.content("text/html", html_content()),
        ReplyBody::ManyOrPaged { item, page } => builder.content(
            "application/json",
            json_content(
                OneOfBuilder::new()
                    .item(ArrayBuilder::new().items(schema_ref(item.schema.name)))
                    .item(schema_ref(page.schema.name)),
                Value::Array(vec![answer_example(endpoint, item)]),
            ),
        ),
        ReplyBody::OneOrPage(object) => builder
            .content("application/json", one(object))
            .content("text/html", html_content()),
    }
    .build()
}

/// A failure of the endpoint's own: a body of `schema`, with `example`.
fn own_failure(status: u16, schema: &ObjectSchema, example: Value) -> Response {
    let description = match status {
        503 => "Not ready: something the server needs does not answer.",
        _ => "A failure of this operation's own.",
    };
    ResponseBuilder::new()
        .description(description)
        .content(
            "application/json",
            json_content(schema_ref(schema.name), example),
        )
        .build()
}

fn bad_request_or_page(example: Value) -> Response {
    ResponseBuilder::new()
        .description("Invalid input; a page for a client that accepts `text/html`.")
        .content(
            "application/json",
            json_content(bad_request_schema(), example),
        )
        .content("text/html", html_content())
        .build()
}

/// A failure every operation of its kind can meet, kept once in the
/// components.
pub(super) struct CommonFailure {
    /// Its response's name in the components.
    pub(super) name: &'static str,
    /// What it means.
    pub(super) description: &'static str,
    /// The body the server answers it with.
    pub(super) example: Value,
    /// The header it carries, by name.
    pub(super) header: Option<(&'static str, Header)>,
}

/// The failures answered with `{"detail": …}`, each with the server's own
/// answer as its example.
pub(super) fn common_failures() -> [CommonFailure; 8] {
    let failure = |name, description, example| CommonFailure {
        name,
        description,
        example,
        header: None,
    };
    [
        CommonFailure {
            header: Some(("WWW-Authenticate", www_authenticate())),
            ..failure(
                "Unauthorized",
                "Missing or invalid credentials.",
                error_json(&Scheme::Token.not_provided()),
            )
        },
        failure(
            "Forbidden",
            "Not allowed for this caller.",
            error_json(&ApiError::Forbidden("You are already signed in.")),
        ),
        failure(
            "NotFound",
            "No such resource in this account.",
            error_json(&ApiError::NotFound),
        ),
        failure(
            "PayloadTooLarge",
            "The body is over 64 KiB.",
            error_json(&ApiError::TooLarge),
        ),
        failure(
            "UnsupportedMediaType",
            "The body is neither JSON nor a form.",
            error_json(&ApiError::UnsupportedMediaType("text/plain".to_owned())),
        ),
        CommonFailure {
            header: Some(("Retry-After", retry_after())),
            ..failure(
                "Throttled",
                "Too many requests from this address or for this account.",
                error_json(&ApiError::Throttled(RETRY_AFTER_EXAMPLE)),
            )
        },
        CommonFailure {
            header: Some(("Retry-After", retry_after())),
            ..failure(
                "Unavailable",
                "The database is out of reach for now, or too many password hashes are \
                 waiting: try again after `Retry-After` seconds.",
                error_json(&ApiError::Unavailable),
            )
        },
        // The body of `ApiError::Internal`, which logs its cause when rendered.
        failure(
            "ServerError",
            "The server failed; the cause is logged, never shown.",
            to_json(&SERVER_ERROR),
        ),
    ]
}

/// What a client sees of a server failure.
pub(super) const SERVER_ERROR: Detail = Detail::new("A server error occurred.");

/// The common 400: a body that is not an object.
pub(super) fn bad_request_example() -> Value {
    error_json(&ApiError::field(
        NON_FIELD_ERRORS,
        "Invalid data. Expected a dictionary, but got list.",
    ))
}

/// The shared schemas, failures and security schemes.
pub(super) fn components() -> Components {
    let mut components = ComponentsBuilder::new()
        .schema(VALIDATION_ERROR, validation_error_schema())
        .security_scheme("Token", api_key(
            "A user's API token, sent as `Authorization: Token <token>` (the keyword is case-insensitive).",
        ))
        .security_scheme("Device", api_key(
            "A device's token, sent by its agent as `Authorization: Device <device_token>`.",
        ))
        .response(
            "BadRequest",
            ResponseBuilder::new()
                .description("Invalid input: field errors, or `detail` for a body that is not JSON.")
                .content(
                    "application/json",
                    json_content(bad_request_schema(), bad_request_example()),
                )
                .build(),
        );
    for failure in common_failures() {
        let mut response = ResponseBuilder::new()
            .description(failure.description)
            .content(
                "application/json",
                json_content(schema_ref(DETAIL_SCHEMA.name), failure.example),
            );
        if let Some((name, header)) = failure.header {
            response = response.header(name, header);
        }
        components = components.response(failure.name, response.build());
    }
    for schema in OBJECT_SCHEMAS {
        components = components.schema(schema.name, response_schema(schema));
    }
    components.build()
}

fn api_key(description: &str) -> SecurityScheme {
    SecurityScheme::ApiKey(ApiKey::Header(ApiKeyValue::with_description(
        "Authorization",
        description,
    )))
}

fn www_authenticate() -> Header {
    HeaderBuilder::new()
        .schema(Some(
            ObjectBuilder::new()
                .schema_type(Type::String)
                .enum_values(Some(["Token", "Device"])),
        ))
        .description(Some("The scheme the route accepts."))
        .example(Some(Scheme::Token.keyword().into()))
        .build()
}

fn retry_after() -> Header {
    HeaderBuilder::new()
        .schema(Some(
            ObjectBuilder::new()
                .schema_type(Type::Integer)
                .minimum(Some(0)),
        ))
        .description(Some("Seconds until a request may succeed."))
        .example(Some(RETRY_AFTER_EXAMPLE.into()))
        .build()
}

/// The seconds the examples of 429 and 503 wait.
const RETRY_AFTER_EXAMPLE: u64 = 42;

/// The `Location` of a success: an absolute URL, with its example.
fn location_header(location: Location) -> Header {
    HeaderBuilder::new()
        .schema(Some(
            ObjectBuilder::new()
                .schema_type(Type::String)
                .format(Some(SchemaFormat::Custom("uri".to_owned()))),
        ))
        .description(Some(location.description))
        .example(Some((location.example)().into()))
        .build()
}
