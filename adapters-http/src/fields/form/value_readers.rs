//! Reading one field's JSON value, kind by kind, with DRF's messages: each
//! reader records the field's errors and gives the value only when it is
//! valid. The [typed readers](super::typed_readers) build on these.

use super::Form;
use crate::fields::field::{Field, FieldType};
use crate::fields::messages::{INVALID_EMAIL, INVALID_UUID, text_error_message};
use domain::EmailAddress;
use domain::text::{self, TextError};
use serde_json::Value;

impl Form {
    /// Reads a text field with DRF `CharField`'s messages; `None` when absent
    /// (and not required) or invalid (the error is recorded). Only JSON
    /// strings are text, as the OpenAPI document says. Blank text and
    /// bidirectional controls are judged by the domain's text rules.
    pub(super) fn read_text(&mut self, field: &Field) -> Option<String> {
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
        // A text field's `minimum` is its fewest characters (a webhook's secret).
        if let (Some(min), FieldType::String) = (field.minimum, field.kind)
            && (value.chars().count() as u64) < min.unsigned_abs()
        {
            let message = format!("Ensure this field has at least {min} characters.");
            self.error(field.name, message);
            valid = false;
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

    /// Reads a whole-number field within the field's range, with DRF
    /// `IntegerField`'s messages. JSON integers (and numbers with no
    /// fraction, which JSON Schema counts as integers) are accepted, text is
    /// not. `None` when absent or invalid (the error is recorded);
    /// `Some(None)` for a `null` where the field is nullable.
    pub(super) fn read_integer(&mut self, field: &Field) -> Option<Option<i64>> {
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
    pub(super) fn read_choice(&mut self, field: &Field) -> Option<&'static str> {
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
    pub(super) fn read_serial(&mut self, field: &Field) -> Option<domain::Serial> {
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
    pub(super) fn read_email(&mut self, field: &Field) -> Option<EmailAddress> {
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
