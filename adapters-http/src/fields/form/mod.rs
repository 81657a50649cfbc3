//! Validating a body (or a query string) field by field with DRF's messages.
//! Every reader records its field's errors and returns the value or a
//! [`Rejected`], which only a recorded error can make: a body type's
//! [`FromForm`] reads every field, then combines them, so every field's
//! errors are reported at once and a valid value has every field it needs.

use super::field::{Field, FieldType};
use super::messages::{INVALID_EMAIL, INVALID_UUID, text_error_message};
use crate::error::{ApiError, FieldErrors};
use domain::text::{self, TextError};
use domain::{BoundedText, EmailAddress};
use serde_json::{Map, Value, json};

mod lists;

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

    /// Reads a text field with DRF `CharField`'s messages; `None` when absent
    /// (and not required) or invalid (the error is recorded). Only JSON
    /// strings are text, as the OpenAPI document says. Blank text and
    /// bidirectional controls are judged by the domain's text rules.
    fn read_text(&mut self, field: &Field) -> Option<String> {
        let value = match self.data.get(field.name) {
            None => {
                if field.required {
                    self.error(field.name, "This field is required.");
                }
                return None;
            }
            Some(Value::Null) => {
                self.error(field.name, "This field may not be null.");
                return None;
            }
            Some(Value::String(s)) => s.clone(),
            Some(_) => {
                self.error(field.name, "Not a valid string.");
                return None;
            }
        };
        let blank = if field.trim {
            text::is_blank(&value)
        } else {
            value.is_empty()
        };
        if blank && !field.allow_blank {
            self.error(field.name, text_error_message(TextError::Blank));
            return None;
        }
        let mut valid = true;
        if let Some(max) = field.max_length
            && value.chars().count() > max
        {
            self.error(field.name, text_error_message(TextError::TooLong { max }));
            // An address gets its format checked too, as DRF's EmailField does.
            valid = field.kind == FieldType::Email;
        }
        // No database stores NUL in text, and DRF refuses it alike.
        if value.contains('\0') {
            self.error(field.name, text_error_message(TextError::Nul));
            valid = false;
        }
        if text::has_bidi_control(&value) {
            self.error(field.name, text_error_message(TextError::BidiControl));
            valid = false;
        }
        valid.then_some(value)
    }

    /// Sets a field's whole error value (a list of per-item errors, say).
    fn error_value(&mut self, field: &str, errors: Value) {
        self.errors.insert(field.to_owned(), errors);
    }

    /// Whether any error was recorded.
    pub fn has_errors(&self) -> bool {
        !self.errors.is_empty()
    }

    /// The raw value of a field, if the body has one.
    fn raw(&mut self, field: &Field) -> Option<Value> {
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

    /// Reads a whole-number field within the field's range, with DRF
    /// `IntegerField`'s messages. JSON integers (and numbers with no
    /// fraction, which JSON Schema counts as integers) are accepted, text is
    /// not. `None` when absent or invalid (the error is recorded);
    /// `Some(None)` for a `null` where the field is nullable.
    fn read_integer(&mut self, field: &Field) -> Option<Option<i64>> {
        let value = self.raw(field)?;
        if value.is_null() {
            if field.nullable {
                return Some(None);
            }
            self.error(field.name, "This field may not be null.");
            return None;
        }
        let Some(number) = parse_integer(&value) else {
            self.error(field.name, "A valid integer is required.");
            return None;
        };
        if let Some(minimum) = field.minimum
            && number < minimum
        {
            self.error(
                field.name,
                format!("Ensure this value is greater than or equal to {minimum}."),
            );
            return None;
        }
        if let Some(maximum) = field.maximum
            && number > maximum
        {
            self.error(
                field.name,
                format!("Ensure this value is less than or equal to {maximum}."),
            );
            return None;
        }
        Some(Some(number))
    }

    /// Reads a field whose value must be one of the field's choices, DRF
    /// `ChoiceField` style (a number is compared as its text).
    fn read_choice(&mut self, field: &Field) -> Option<&'static str> {
        let choices = field.choices;
        let value = self.raw(field)?;
        let text = match &value {
            Value::Null => {
                self.error(field.name, "This field may not be null.");
                return None;
            }
            Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        let found = choices.iter().find(|choice| **choice == text).copied();
        if found.is_none() {
            self.error(field.name, format!("\"{text}\" is not a valid choice."));
        }
        found
    }

    /// Reads a UUID field, DRF `UUIDField` style: any spelling that names a
    /// UUID; the value comes back canonical (lowercase, hyphenated).
    fn read_serial(&mut self, field: &Field) -> Option<domain::Serial> {
        let value = self.raw(field)?;
        match value {
            Value::Null => {
                self.error(field.name, "This field may not be null.");
                None
            }
            Value::String(text) => match domain::Serial::parse(text.trim()) {
                Ok(serial) => Some(serial),
                Err(_) => {
                    self.error(field.name, INVALID_UUID);
                    None
                }
            },
            _ => {
                self.error(field.name, INVALID_UUID);
                None
            }
        }
    }

    /// Reads an e-mail address field.
    fn read_email(&mut self, field: &Field) -> Option<EmailAddress> {
        let text = self.read_text(field)?;
        match EmailAddress::parse(&text) {
            Ok(email) if !self.errors.contains_key(field.name) => Some(email),
            Ok(_) => None,
            Err(_) => {
                self.error(field.name, INVALID_EMAIL);
                None
            }
        }
    }
}

/// A JSON number with no fraction, as a whole number. Not text, not booleans.
fn parse_integer(value: &Value) -> Option<i64> {
    let number = value.as_number()?;
    number.as_i64().or_else(|| {
        number
            .as_f64()
            .filter(|f| f.fract() == 0.0 && f.abs() < 9.0e18)
            .map(|f| f as i64)
    })
}

/// The typed readers. A required reader reports "This field is required."
/// for an absent field; an optional one gives `None`.
impl Form {
    fn present(&mut self, field: &Field) -> Result<(), Rejected> {
        if self.data.contains_key(field.name) {
            Ok(())
        } else {
            Err(self.error(field.name, "This field is required."))
        }
    }

    fn given(&self, field: &Field) -> bool {
        self.data.contains_key(field.name)
    }

    /// A required text field, DRF `CharField` style: only JSON strings are
    /// text; blank text and bidirectional controls are judged by the
    /// domain's text rules.
    pub fn text(&mut self, field: &Field) -> Result<String, Rejected> {
        self.present(field)?;
        self.read_text(field).ok_or(Rejected(()))
    }

    /// An optional text field.
    pub fn optional_text(&mut self, field: &Field) -> Result<Option<String>, Rejected> {
        if !self.given(field) {
            return Ok(None);
        }
        self.read_text(field).map(Some).ok_or(Rejected(()))
    }

    /// A required text field read into the domain type that holds it; the
    /// type's rule is the field's, so a refusal is a field error.
    pub fn checked<T: BoundedText>(&mut self, field: &Field) -> Result<T, Rejected> {
        let text = self.text(field)?;
        T::parse(text).map_err(|e| self.error(field.name, text_error_message(e)))
    }

    /// An optional text field read into its domain type.
    pub fn optional_checked<T: BoundedText>(
        &mut self,
        field: &Field,
    ) -> Result<Option<T>, Rejected> {
        match self.optional_text(field)? {
            None => Ok(None),
            Some(text) => T::parse(text)
                .map(Some)
                .map_err(|e| self.error(field.name, text_error_message(e))),
        }
    }

    /// A required e-mail address field.
    pub fn email(&mut self, field: &Field) -> Result<EmailAddress, Rejected> {
        self.present(field)?;
        self.read_email(field).ok_or(Rejected(()))
    }

    /// A required whole number within the field's range, DRF `IntegerField`
    /// style: JSON integers (and numbers with no fraction, which JSON Schema
    /// counts as integers), never text; read into the type that holds it
    /// (`i64`, or a domain type whose bounds are the field's).
    pub fn integer<T: TryFrom<i64>>(&mut self, field: &Field) -> Result<T, Rejected> {
        self.present(field)?;
        match self.read_integer(field) {
            Some(Some(number)) => self.convert(field, number),
            Some(None) => Err(self.error(field.name, "This field may not be null.")),
            None => Err(Rejected(())),
        }
    }

    /// A number within the field's range as `T`; a type that refuses it
    /// disagrees with the field, and the number is refused alike.
    fn convert<T: TryFrom<i64>>(&mut self, field: &Field, number: i64) -> Result<T, Rejected> {
        T::try_from(number).map_err(|_| self.error(field.name, "A valid integer is required."))
    }

    /// An optional whole number; `null` is refused.
    pub fn optional_integer<T: TryFrom<i64>>(
        &mut self,
        field: &Field,
    ) -> Result<Option<T>, Rejected> {
        if !self.given(field) {
            return Ok(None);
        }
        self.integer(field).map(Some)
    }

    /// An optional whole number that may be `null` (an unknown value):
    /// `None` when absent, `Some(None)` for `null`.
    pub fn optional_nullable_integer<T: TryFrom<i64>>(
        &mut self,
        field: &Field,
    ) -> Result<Option<Option<T>>, Rejected> {
        if !self.given(field) {
            return Ok(None);
        }
        match self.read_integer(field) {
            Some(Some(number)) => self.convert(field, number).map(|value| Some(Some(value))),
            Some(None) => Ok(Some(None)),
            None => Err(Rejected(())),
        }
    }

    /// A required choice among the field's choices, DRF `ChoiceField` style
    /// (a number is compared as its text), read into its domain value by
    /// `parse` (`Protocol::from_code`).
    pub fn choice<T>(
        &mut self,
        field: &Field,
        parse: impl Fn(&str) -> Option<T>,
    ) -> Result<T, Rejected> {
        self.present(field)?;
        let code = self.read_choice(field).ok_or(Rejected(()))?;
        parse(code)
            .ok_or_else(|| self.error(field.name, format!("\"{code}\" is not a valid choice.")))
    }

    /// An optional choice.
    pub fn optional_choice<T>(
        &mut self,
        field: &Field,
        parse: impl Fn(&str) -> Option<T>,
    ) -> Result<Option<T>, Rejected> {
        if !self.given(field) {
            return Ok(None);
        }
        self.choice(field, parse).map(Some)
    }

    /// An optional UUID, DRF `UUIDField` style: any spelling that names a
    /// UUID; the value comes back canonical (lowercase, hyphenated).
    pub fn optional_serial(&mut self, field: &Field) -> Result<Option<domain::Serial>, Rejected> {
        if !self.given(field) {
            return Ok(None);
        }
        self.read_serial(field).map(Some).ok_or(Rejected(()))
    }

    /// Whether the field was given as valid text (its value then), whatever
    /// the other fields' fate: for checks a handler adds to the engine's.
    pub fn valid_text(&mut self, field: &Field) -> Option<String> {
        let before = self.errors.clone();
        let value = self.optional_text(field).ok().flatten();
        self.errors = before;
        value
    }
}

impl From<Form> for ApiError {
    /// The recorded errors as DRF's 400 body.
    fn from(form: Form) -> Self {
        ApiError::Validation(form.errors)
    }
}
