//! Request body fields: one description per field drives both validation
//! (with DRF's messages) and the OPTIONS metadata.

use crate::error::{ApiError, FieldErrors};
use domain::EmailAddress;
use domain::email::MAX_EMAIL_CHARS;
use serde_json::{Map, Value, json};

/// How a field's value is typed in OPTIONS metadata.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FieldType {
    /// Free text.
    String,
    /// An e-mail address.
    Email,
    /// true/false.
    Boolean,
}

impl FieldType {
    fn name(self) -> &'static str {
        match self {
            Self::String => "string",
            Self::Email => "email",
            Self::Boolean => "boolean",
        }
    }
}

/// One field of a request body.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Field {
    /// JSON key.
    pub name: &'static str,
    /// Human label.
    pub label: &'static str,
    /// Value type.
    pub kind: FieldType,
    /// Whether a request must carry it.
    pub required: bool,
    /// Shown by responses but ignored in requests.
    pub read_only: bool,
    /// Whether empty (or white-space) text is accepted.
    pub allow_blank: bool,
    /// Whether white space alone counts as blank (false for passwords).
    pub trim: bool,
    /// Most characters, when bounded.
    pub max_length: Option<usize>,
}

impl Field {
    /// A required text field that may not be blank.
    pub const fn text(name: &'static str, label: &'static str) -> Self {
        Self {
            name,
            label,
            kind: FieldType::String,
            required: true,
            read_only: false,
            allow_blank: false,
            trim: true,
            max_length: None,
        }
    }

    /// A required password field: not blank, white space kept as sent.
    pub const fn password(name: &'static str, label: &'static str) -> Self {
        Self {
            trim: false,
            ..Self::text(name, label)
        }
    }

    /// A required e-mail address field.
    pub const fn email(name: &'static str, label: &'static str) -> Self {
        Self {
            kind: FieldType::Email,
            max_length: Some(MAX_EMAIL_CHARS),
            ..Self::text(name, label)
        }
    }

    /// A field shown in responses only.
    pub const fn read_only(name: &'static str, label: &'static str, kind: FieldType) -> Self {
        Self {
            kind,
            required: false,
            read_only: true,
            ..Self::text(name, label)
        }
    }

    /// The same field, not required.
    pub const fn optional(self) -> Self {
        Self {
            required: false,
            ..self
        }
    }

    /// The same field, accepting blank text.
    pub const fn blank_ok(self) -> Self {
        Self {
            allow_blank: true,
            ..self
        }
    }

    /// The same field, bounded.
    pub const fn max(self, max_length: usize) -> Self {
        Self {
            max_length: Some(max_length),
            ..self
        }
    }

    /// The field's OPTIONS metadata.
    pub fn metadata(&self) -> Value {
        let mut meta = json!({
            "type": self.kind.name(),
            "required": self.required,
            "read_only": self.read_only,
            "label": self.label,
        });
        if let (Some(max), false) = (self.max_length, self.read_only) {
            meta["max_length"] = json!(max);
        }
        meta
    }
}

/// The `actions` entry of one method: every field of its body.
pub fn actions_entry(fields: &[Field]) -> Value {
    Value::Object(
        fields
            .iter()
            .map(|f| (f.name.to_owned(), f.metadata()))
            .collect(),
    )
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
    pub fn error(&mut self, field: &str, message: impl Into<String>) {
        let list = self
            .errors
            .entry(field.to_owned())
            .or_insert_with(|| json!([]));
        if let Value::Array(messages) = list {
            messages.push(Value::String(message.into()));
        }
    }

    /// Reads a text field, DRF `CharField` style: numbers become text; `None`
    /// when absent (and not required) or invalid (the error is recorded).
    pub fn text(&mut self, field: &Field) -> Option<String> {
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
            Some(Value::Number(n)) => n.to_string(),
            Some(_) => {
                self.error(field.name, "Not a valid string.");
                return None;
            }
        };
        let blank = if field.trim {
            value.trim().is_empty()
        } else {
            value.is_empty()
        };
        if blank && !field.allow_blank {
            self.error(field.name, "This field may not be blank.");
            return None;
        }
        if let Some(max) = field.max_length
            && value.chars().count() > max
        {
            self.error(
                field.name,
                format!("Ensure this field has no more than {max} characters."),
            );
            if field.kind != FieldType::Email {
                return None;
            }
        }
        Some(value)
    }

    /// Reads an e-mail address field.
    pub fn email(&mut self, field: &Field) -> Option<EmailAddress> {
        let text = self.text(field)?;
        match EmailAddress::parse(&text) {
            Ok(email) if !self.errors.contains_key(field.name) => Some(email),
            Ok(_) => None,
            Err(e) => {
                self.error(field.name, e.to_string());
                None
            }
        }
    }

    /// Ends validation: the errors found, if any.
    pub fn finish(self) -> Result<(), ApiError> {
        if self.errors.is_empty() {
            Ok(())
        } else {
            Err(ApiError::Validation(self.errors))
        }
    }
}

/// A field that validation has already proved present.
pub fn validated<T>(value: Option<T>) -> Result<T, ApiError> {
    value.ok_or_else(|| ApiError::Internal("a validated field is missing".into()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn form(body: Value) -> Form {
        let Value::Object(map) = body else {
            panic!("object expected")
        };
        Form::new(map)
    }

    fn errors(form: Form) -> Value {
        match form.finish() {
            Err(ApiError::Validation(errors)) => Value::Object(errors),
            other => panic!("expected validation errors, got {other:?}"),
        }
    }

    const NAME: Field = Field::text("name", "Name").max(3);

    #[test]
    fn drf_messages_for_each_kind_of_bad_value() {
        let mut f = form(json!({"a": null, "b": [], "c": "  ", "name": "long"}));
        f.text(&Field::text("a", "A"));
        f.text(&Field::text("b", "B"));
        f.text(&Field::text("c", "C"));
        f.text(&NAME);
        f.text(&Field::text("missing", "Missing"));
        assert_eq!(
            errors(f),
            json!({
                "a": ["This field may not be null."],
                "b": ["Not a valid string."],
                "c": ["This field may not be blank."],
                "name": ["Ensure this field has no more than 3 characters."],
                "missing": ["This field is required."],
            })
        );
    }

    #[test]
    fn numbers_are_text_and_passwords_keep_white_space() {
        let mut f = form(json!({"n": 42, "p": "   "}));
        assert_eq!(f.text(&Field::text("n", "N")).as_deref(), Some("42"));
        assert_eq!(f.text(&Field::password("p", "P")).as_deref(), Some("   "));
        assert!(f.finish().is_ok());
    }

    #[test]
    fn emails_are_parsed() {
        let mut f = form(json!({"email": "nope"}));
        assert!(f.email(&Field::email("email", "Email")).is_none());
        assert_eq!(
            errors(f),
            json!({"email": ["Enter a valid email address."]})
        );
    }

    #[test]
    fn metadata_lists_type_requirement_and_bounds() {
        assert_eq!(
            NAME.optional().blank_ok().metadata(),
            json!({"type": "string", "required": false, "read_only": false, "label": "Name", "max_length": 3})
        );
    }
}
