//! The words the route table describes the API with: the JSON objects it
//! answers with ([`ObjectSchema`], with an example from the answer type
//! itself), the answer of each endpoint ([`Reply`]), the groups operations
//! are listed under ([`Tag`]) and the parameters of paths and queries
//! ([`Parameter`]). One description drives the OPTIONS metadata and the
//! OpenAPI document.
//!
//! `ObjectSchema` is the schema of one JSON object (the OpenAPI component of
//! that name), not an API resource: those are the modules of
//! [`resources`](crate::resources).

pub mod examples;

use crate::fields::Field;
use serde_json::Value;

/// The schema of a JSON object of the API, named in the OpenAPI document's
/// components.
pub struct ObjectSchema {
    /// The component name.
    pub name: &'static str,
    /// What it is.
    pub description: &'static str,
    /// Its fields; in a response every one of them is always present.
    pub fields: &'static [Field],
}

/// A typed answer body, its schema and an example of it. A unit test of
/// each resource module checks that the keys it writes are the described
/// fields, in order.
pub trait Described: serde::Serialize {
    /// Its schema.
    const SCHEMA: &'static ObjectSchema;

    /// A typical value, as the OpenAPI document shows it.
    fn example() -> Self;
}

/// A described answer type as the description reads it: its schema, and its
/// example serialized.
#[derive(Clone, Copy)]
pub struct AnswerObject {
    /// The schema.
    pub schema: &'static ObjectSchema,
    /// The JSON of [`Described::example`].
    pub example: fn() -> Value,
}

impl AnswerObject {
    /// The description of `T`.
    pub const fn of<T: Described>() -> Self {
        Self {
            schema: T::SCHEMA,
            example: example_json::<T>,
        }
    }
}

/// The JSON of `T`'s example.
fn example_json<T: Described>() -> Value {
    to_json(&T::example())
}

/// A described value as JSON, as the server writes it.
pub(crate) fn to_json(value: &impl serde::Serialize) -> Value {
    serde_json::to_value(value).expect("an answer type serializes to JSON, as the server sends it")
}

/// The body the server answers `error` with, as JSON.
pub(crate) fn error_json(error: &crate::error::ApiError) -> Value {
    use actix_web::ResponseError;
    use actix_web::body::MessageBody;
    error
        .error_response()
        .into_body()
        .try_into_bytes()
        .ok()
        .and_then(|bytes| serde_json::from_slice(&bytes).ok())
        .unwrap_or(Value::Null)
}

/// The body of a successful answer.
#[derive(Clone, Copy)]
pub enum ReplyBody {
    /// No body (204, or 202 without one).
    Empty,
    /// One object.
    One(AnswerObject),
    /// An array of objects.
    Many(AnswerObject),
    /// An HTML page or another file.
    Page,
    /// One object, or an HTML page for a client that accepts `text/html`.
    OneOrPage(AnswerObject),
    /// An array of objects, or a page of them (`{count, next, previous,
    /// results}`) when the query has `limit`.
    ManyOrPaged {
        /// Each object.
        item: AnswerObject,
        /// The page.
        page: AnswerObject,
    },
}

/// The answer of an endpoint on success.
#[derive(Clone, Copy)]
pub struct Reply {
    /// The status code.
    pub status: u16,
    /// The body.
    pub body: ReplyBody,
    /// The `Location` header it carries, if any.
    pub location: Option<Location>,
}

/// The `Location` header of a successful answer: the absolute URL where what
/// the answer is about can be read, as the document describes it.
#[derive(Clone, Copy)]
pub struct Location {
    /// What the URL leads to.
    pub description: &'static str,
    /// A typical value, as sent.
    pub example: fn() -> String,
}

/// The group an operation is listed under in the OpenAPI document.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tag {
    /// Registration, log-in, passwords and the profile.
    Accounts,
    /// The account's devices.
    Devices,
    /// Fleet jobs: reboots in waves.
    Jobs,
    /// Monitors and the alerts they open.
    Alerts,
    /// Webhooks and their deliveries.
    Webhooks,
    /// The audit log.
    Audit,
    /// What a device's agent calls.
    Agent,
    /// Probes for load balancers and orchestrators.
    Health,
}

impl Tag {
    /// Every tag, in the order the document lists them.
    pub const ALL: [Tag; 8] = [
        Tag::Accounts,
        Tag::Devices,
        Tag::Jobs,
        Tag::Alerts,
        Tag::Webhooks,
        Tag::Audit,
        Tag::Agent,
        Tag::Health,
    ];

    /// Its name in the document.
    pub fn name(self) -> &'static str {
        match self {
            Self::Accounts => "Accounts",
            Self::Devices => "Devices",
            Self::Jobs => "Jobs",
            Self::Alerts => "Alerts",
            Self::Webhooks => "Webhooks",
            Self::Audit => "Audit",
            Self::Agent => "Agent",
            Self::Health => "Health",
        }
    }

    /// What the operations under it do.
    pub fn description(self) -> &'static str {
        match self {
            Self::Accounts => "Registration, log-in, passwords and the profile.",
            Self::Devices => "The account's devices: list, edit, delete, reboot.",
            Self::Jobs => {
                "Fleet jobs: reboots of the selected devices in waves that halt by themselves."
            }
            Self::Alerts => {
                "Monitors that watch the fleet for devices offline, and the alerts they open."
            }
            Self::Webhooks => {
                "Webhooks: alert and job events posted, signed, to URLs of the account's choosing."
            }
            Self::Audit => {
                "The audit log: who changed what about the account, its devices, jobs, monitors and webhooks, hash-chained."
            }
            Self::Agent => "The device side: enrolment, heartbeats and commands.",
            Self::Health => "Probes for load balancers: no credentials, never throttled.",
        }
    }
}

/// A parameter of a route's path (`{serial}`) or of a query (`?wait=`), as
/// the document describes it; its type comes from the path's format or the
/// query's field.
#[derive(Clone, Copy)]
pub struct Parameter {
    /// Its name: the `{name}` of the path, or the query field's name.
    pub name: &'static str,
    /// What it is.
    pub description: &'static str,
    /// The OpenAPI `format` of a path parameter (`uuid`); without one, any
    /// text that is not empty.
    pub format: Option<&'static str>,
    /// A typical value, as sent.
    pub example: fn() -> Value,
}

/// The keys a value serializes to, in order: what the resource tests compare
/// with the described fields.
#[cfg(test)]
pub(crate) fn keys_of(value: &impl serde::Serialize) -> Vec<String> {
    match serde_json::to_value(value) {
        Ok(serde_json::Value::Object(map)) => map.keys().cloned().collect(),
        other => panic!("not an object: {other:?}"),
    }
}

/// Asserts that an answer writes exactly its schema's fields.
#[cfg(test)]
pub(crate) fn assert_described<T: Described>(example: &T) {
    let described: Vec<&str> = T::SCHEMA.fields.iter().map(|f| f.name).collect();
    let mut written = keys_of(example);
    let mut expected: Vec<String> = described.iter().map(|s| (*s).to_owned()).collect();
    written.sort();
    expected.sort();
    assert_eq!(written, expected, "fields of {}", T::SCHEMA.name);
}
