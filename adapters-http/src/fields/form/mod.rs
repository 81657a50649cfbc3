//! Validating a body (or a query string) field by field with DRF's messages.
//! Every reader records its field's errors and returns the value or a
//! [`Rejected`], which only a recorded error can make: a body type's
//! [`FromForm`] reads every field, then combines them, so every field's
//! errors are reported at once and a valid value has every field it needs.

use super::field::Field;
use crate::error::{ApiError, FieldErrors};
use serde_json::{Map, Value, json};

mod lists;
mod typed_readers;
mod value_readers;

/// Proof that a field's error was recorded in the [`Form`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rejected(());

/// A request body (or query string) that validates into a typed value.
pub trait FromForm: Sized {
    /// Its fields, as OPTIONS and the OpenAPI document describe them.
    const FIELDS: &'static [Field];

    /// Reads every field; the value, or [`Rejected`] once any field failed.
    fn from_form(form: &mut Form) -> Result<Self, Rejected>;
}

/// A body type whose values can be written back as the JSON object a client
/// sends: how the OpenAPI document shows a request example that is a value
/// of the type.
pub trait ToForm: FromForm {
    /// The JSON object [`FromForm::from_form`] reads this value from.
    fn to_form(&self) -> Map<String, Value>;
}

/// Whether `B` reads `body` without an error.
pub fn reads_back<B: FromForm>(body: &Map<String, Value>) -> bool {
    let mut form = Form::new(body.clone());
    B::from_form(&mut form).is_ok() && !form.has_errors()
}

/// A JSON object of `(field, value)` pairs, keyed by the fields' names.
pub fn form_of<const N: usize>(entries: [(&Field, Value); N]) -> Map<String, Value> {
    entries
        .into_iter()
        .map(|(field, value)| (field.name.to_owned(), value))
        .collect()
}

/// A JSON object body being validated; collects every field's errors.
pub struct Form {
    data: Map<String, Value>,
    errors: FieldErrors,
}

impl Form {
    /// Starts validating a body.
    pub fn new(data: Map<String, Value>) -> Self {
        Self {
            data,
            errors: FieldErrors::new(),
        }
    }

    /// Records an error on a field.
    pub fn error(&mut self, field: &str, message: impl Into<String>) -> Rejected {
        let list = self
            .errors
            .entry(field.to_owned())
            .or_insert_with(|| json!([]));
        if let Value::Array(messages) = list {
            messages.push(Value::String(message.into()));
        }
        Rejected(())
    }

    /// Sets a field's whole error value (a list of per-item errors, say).
    pub(super) fn error_value(&mut self, field: &str, errors: Value) {
        self.errors.insert(field.to_owned(), errors);
    }

    /// Sets a field's whole error value and refuses the field.
    pub(super) fn nested_errors(&mut self, field: &str, errors: Value) -> Rejected {
        self.error_value(field, errors);
        Rejected(())
    }

    /// Whether any error was recorded.
    pub fn has_errors(&self) -> bool {
        !self.errors.is_empty()
    }

    /// The raw value of a field, if the body has one.
    pub(crate) fn raw(&mut self, field: &Field) -> Option<Value> {
        match self.data.get(field.name) {
            None => {
                if field.required {
                    self.error(field.name, "This field is required.");
                }
                None
            }
            Some(value) => Some(value.clone()),
        }
    }
}

impl From<Form> for ApiError {
    /// The recorded errors as DRF's 400 body.
    fn from(form: Form) -> Self {
        ApiError::Validation(form.errors)
    }
}
