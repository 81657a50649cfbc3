//! The answers of each operation, and the failures every operation of a kind
//! can meet, kept once in the components.

use super::examples;
use super::schemas::{
    VALIDATION_ERROR, bad_request_schema, response_schema, schema_ref, validation_error_schema,
};
use crate::resources::{self, Resource};
use crate::routes::{Body, Endpoint};
use serde_json::Value;
use utoipa::openapi::header::HeaderBuilder;
use utoipa::openapi::schema::{ArrayBuilder, ObjectBuilder, Schema, Type};
use utoipa::openapi::security::{ApiKey, ApiKeyValue, SecurityScheme};
use utoipa::openapi::{
    Components, ComponentsBuilder, Content, ContentBuilder, Ref, RefOr, Response, ResponseBuilder,
};

fn response_ref(name: &str) -> RefOr<Response> {
    RefOr::Ref(Ref::from_response_name(name))
}

/// Every answer of an endpoint: its success, then the failures it can meet.
pub(super) fn responses(operation_id: &str, endpoint: &Endpoint) -> Vec<(u16, RefOr<Response>)> {
    let reply = endpoint.reply;
    let mut responses = vec![(reply.status, RefOr::T(success(operation_id, endpoint)))];
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

/// JSON of `schema`, with an example.
pub(super) fn json_content(schema: impl Into<RefOr<Schema>>, example: Value) -> Content {
    ContentBuilder::new()
        .schema(Some(schema))
        .example(Some(example))
        .build()
}

fn html_content() -> Content {
    ContentBuilder::new()
        .schema(Some(ObjectBuilder::new().schema_type(Type::String)))
        .build()
}

/// An example of `resource` as `operation_id` answers it.
fn example_of(operation_id: &str, resource: &Resource) -> Value {
    if resource.name == resources::DETAIL.name {
        examples::success_detail(operation_id)
    } else {
        examples::resource(resource.name)
    }
}

fn success(operation_id: &str, endpoint: &Endpoint) -> Response {
    let builder = ResponseBuilder::new().description(endpoint.summary);
    let one = |resource: &Resource| {
        json_content(
            schema_ref(resource.name),
            example_of(operation_id, resource),
        )
    };
    match endpoint.reply.body {
        Body::Empty => builder,
        Body::One(resource) => builder.content("application/json", one(resource)),
        Body::Many(resource) => builder.content(
            "application/json",
            json_content(
                ArrayBuilder::new().items(schema_ref(resource.name)),
                Value::Array(vec![example_of(operation_id, resource)]),
            ),
        ),
        Body::Page => builder.content("text/html", html_content()),
        Body::OneOrPage(resource) => builder
            .content("application/json", one(resource))
            .content("text/html", html_content()),
    }
    .build()
}

fn bad_request_or_page() -> Response {
    ResponseBuilder::new()
        .description("Invalid input; a page for a client that accepts `text/html`.")
        .content(
            "application/json",
            json_content(bad_request_schema(), examples::invalid_key()),
        )
        .content("text/html", html_content())
        .build()
}

/// A failure answered with `{"detail": …}`, named `name` in the components.
fn detail_response(name: &str, description: &str) -> ResponseBuilder {
    ResponseBuilder::new().description(description).content(
        "application/json",
        json_content(schema_ref(resources::DETAIL.name), examples::failure(name)),
    )
}

/// The shared schemas, failures and security schemes.
pub(super) fn components() -> Components {
    let failures = [
        ("Unauthorized", "Missing or invalid credentials."),
        ("Forbidden", "Not allowed for this caller."),
        ("NotFound", "No such resource in this account."),
        ("PayloadTooLarge", "The body is over 64 KiB."),
        ("UnsupportedMediaType", "The body is not JSON."),
        (
            "Throttled",
            "Too many requests from this address or for this account.",
        ),
        (
            "ServerError",
            "The server failed; the cause is logged, never shown.",
        ),
    ];
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
                    json_content(bad_request_schema(), examples::failure("BadRequest")),
                )
                .build(),
        );
    for (name, description) in failures {
        let response = detail_response(name, description);
        let response = match name {
            "Unauthorized" => response.header("WWW-Authenticate", www_authenticate()),
            "Throttled" => response.header("Retry-After", retry_after()),
            _ => response,
        };
        components = components.response(name, response.build());
    }
    for resource in resources::ALL {
        components = components.schema(resource.name, response_schema(resource));
    }
    components.build()
}

fn api_key(description: &str) -> SecurityScheme {
    SecurityScheme::ApiKey(ApiKey::Header(ApiKeyValue::with_description(
        "Authorization",
        description,
    )))
}

fn www_authenticate() -> utoipa::openapi::header::Header {
    HeaderBuilder::new()
        .schema(Some(
            ObjectBuilder::new()
                .schema_type(Type::String)
                .enum_values(Some(["Token", "Device"])),
        ))
        .description(Some("The scheme the route accepts."))
        .build()
}

fn retry_after() -> utoipa::openapi::header::Header {
    HeaderBuilder::new()
        .schema(Some(
            ObjectBuilder::new()
                .schema_type(Type::Integer)
                .minimum(Some(0)),
        ))
        .description(Some("Seconds until a request may succeed."))
        .build()
}
