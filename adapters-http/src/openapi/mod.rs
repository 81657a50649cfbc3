//! The OpenAPI 3.1 document of the API, built with utoipa's typed model from
//! the [route table](crate::routes) and the [field descriptions](crate::fields):
//! the same descriptions that validate bodies and answer OPTIONS, so the
//! document cannot drift from what the server does.

mod examples;
mod responses;
mod schemas;

use crate::routes::{self, Access, Endpoint, Route};
use actix_web::http::Method;
use schemas::Direction;
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
    let id = operation_id(route, &endpoint.method);
    let mut operation = OperationBuilder::new()
        .operation_id(Some(id))
        .summary(Some(endpoint.summary))
        .description(Some(route.description))
        .tag(tag(route))
        .securities(Some(security(endpoint.access)));
    let path = path_parameters(route.pattern)
        .map(|name| (name, ParameterIn::Path, true, path_parameter_schema(name)));
    let query = endpoint.query.iter().map(|field| {
        let schema = schemas::field_schema(field, Direction::Query);
        (field.name, ParameterIn::Query, field.required, schema)
    });
    for (name, place, required, schema) in path.chain(query) {
        let (description, example) = examples::parameter(name);
        operation = operation.parameter(
            ParameterBuilder::new()
                .name(name)
                .parameter_in(place)
                .required(required_if(required))
                .description(Some(description))
                .example(Some(example))
                .schema(Some(schema)),
        );
    }
    if let Some(fields) = endpoint.fields {
        let partial = endpoint.method == Method::PATCH;
        let required = !partial && fields.iter().any(|f| f.required && !f.read_only);
        let example = examples::request(id).expect("every operation with a body has an example");
        operation = operation.request_body(Some(
            RequestBodyBuilder::new()
                .required(Some(required_if(required)))
                .content(
                    "application/json",
                    responses::json_content(schemas::request_schema(fields, partial), example),
                )
                .build(),
        ));
    }
    for (status, response) in responses::responses(id, endpoint) {
        operation = operation.response(status.to_string(), response);
    }
    operation.build()
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

fn path_parameter_schema(name: &str) -> Schema {
    let text = ObjectBuilder::new().schema_type(Type::String);
    match name {
        "serial" | "id" => text.format(Some(SchemaFormat::Custom("uuid".into()))),
        _ => text.min_length(Some(1)),
    }
    .into()
}
