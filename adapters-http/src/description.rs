//! The words the route table describes the API with: the JSON objects it
//! answers with ([`Resource`]) and the answer of each endpoint ([`Reply`]).
//! One description drives the OPTIONS metadata and the OpenAPI document.

use crate::fields::Field;

/// A JSON object of the API, named in the OpenAPI document's components.
pub struct Resource {
    /// The component name.
    pub name: &'static str,
    /// What it is.
    pub description: &'static str,
    /// Its fields; in a response every one of them is always present.
    pub fields: &'static [Field],
}

/// A typed answer body and the resource that describes it. A unit test of
/// each resource module checks that the keys it writes are the described
/// fields, in order.
pub trait Described: serde::Serialize {
    /// Its description.
    const RESOURCE: &'static Resource;
}

/// The body of a successful answer.
#[derive(Clone, Copy)]
pub enum Body {
    /// No body (204, or 202 without one).
    Empty,
    /// One object.
    One(&'static Resource),
    /// An array of objects.
    Many(&'static Resource),
    /// An HTML page or another file.
    Page,
    /// One object, or an HTML page for a client that accepts `text/html`.
    OneOrPage(&'static Resource),
}

/// The answer of an endpoint on success.
#[derive(Clone, Copy)]
pub struct Reply {
    /// The status code.
    pub status: u16,
    /// The body.
    pub body: Body,
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

/// Asserts that an answer writes exactly its resource's fields.
#[cfg(test)]
pub(crate) fn assert_described<T: Described>(example: &T) {
    let described: Vec<&str> = T::RESOURCE.fields.iter().map(|f| f.name).collect();
    let mut written = keys_of(example);
    let mut expected: Vec<String> = described.iter().map(|s| (*s).to_owned()).collect();
    written.sort();
    expected.sort();
    assert_eq!(written, expected, "fields of {}", T::RESOURCE.name);
}
