//! One field of a body or an answer: its name, type, bounds and flags.

use domain::BoundedText;
use domain::email::MAX_EMAIL_CHARS;
use serde_json::{Value, json};

/// How a field's value is typed in OPTIONS metadata.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FieldType {
    /// Free text.
    String,
    /// An e-mail address.
    Email,
    /// true/false.
    Boolean,
    /// A whole number.
    Integer,
    /// A timestamp as the API writes it (`YYYY-MM-DDTHH:MM:SS`, UTC).
    Datetime,
    /// An absolute URL.
    Url,
    /// A list: of objects, each with the field's `children`, or of the
    /// field's `item`s.
    List,
    /// One object with the field's `children` (a selector in requests).
    Object,
    /// One of the field's `choices`.
    Choice,
    /// A number, with or without a fraction.
    Float,
}

impl FieldType {
    /// Its name in OPTIONS metadata.
    pub fn name(self) -> &'static str {
        match self {
            Self::String => "string",
            Self::Email => "email",
            Self::Boolean => "boolean",
            Self::Integer => "integer",
            Self::Datetime => "datetime",
            Self::Url => "url",
            Self::List => "list",
            Self::Object => "nested object",
            Self::Choice => "choice",
            Self::Float => "float",
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
    /// Whether blank text is accepted.
    pub allow_blank: bool,
    /// Whether text that shows nothing (white space, invisible characters)
    /// counts as blank; false for passwords, where only empty text is blank.
    pub trim: bool,
    /// Most characters, when bounded.
    pub max_length: Option<usize>,
    /// The fields of each item of a list.
    pub children: Option<&'static [Field]>,
    /// Each item of a list of plain values (tags); a list's `max_length` is
    /// then its most items.
    pub item: Option<&'static Field>,
    /// Whether `null` is a value (an unknown one).
    pub nullable: bool,
    /// The only values accepted, when the field is a choice.
    pub choices: &'static [&'static str],
    /// The smallest whole number accepted; a list's fewest items; a text
    /// field's fewest characters.
    pub minimum: Option<i64>,
    /// The largest whole number accepted.
    pub maximum: Option<i64>,
    /// The OpenAPI `format` of text beyond its type (`uuid`).
    pub format: Option<&'static str>,
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
            children: None,
            item: None,
            nullable: false,
            choices: &[],
            minimum: None,
            maximum: None,
            format: None,
        }
    }

    /// A required text field read into the domain type `T`: its limit and
    /// whether it may be blank are the type's rule.
    pub const fn bounded<T: BoundedText>(name: &'static str, label: &'static str) -> Self {
        Self {
            max_length: Some(T::RULE.max_chars),
            allow_blank: T::RULE.allow_blank,
            ..Self::text(name, label)
        }
    }

    /// A required whole-number field.
    pub const fn integer(name: &'static str, label: &'static str) -> Self {
        Self {
            kind: FieldType::Integer,
            ..Self::text(name, label)
        }
    }

    /// A required list of objects with the given fields.
    pub const fn list(name: &'static str, label: &'static str, children: &'static [Field]) -> Self {
        Self {
            kind: FieldType::List,
            children: Some(children),
            ..Self::text(name, label)
        }
    }

    /// A required password field: not empty, white space kept as sent, at
    /// most [`domain::password::MAX_LENGTH`] characters (so an overlong one
    /// is never hashed).
    pub const fn password(name: &'static str, label: &'static str) -> Self {
        Self {
            trim: false,
            max_length: Some(domain::password::MAX_LENGTH),
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

    /// The same list or object field, with these fields in each item (in
    /// the object).
    pub const fn children(self, children: &'static [Field]) -> Self {
        Self {
            children: Some(children),
            ..self
        }
    }

    /// The same field, accepting `null`.
    pub const fn nullable(self) -> Self {
        Self {
            nullable: true,
            ..self
        }
    }

    /// The same field, accepting only these values.
    pub const fn choices(self, choices: &'static [&'static str]) -> Self {
        Self { choices, ..self }
    }

    /// The same whole-number field, accepting `minimum..=maximum` only.
    pub const fn range(self, minimum: i64, maximum: i64) -> Self {
        Self {
            minimum: Some(minimum),
            maximum: Some(maximum),
            ..self
        }
    }

    /// The same text field, with an OpenAPI `format` (`uuid`).
    pub const fn format(self, format: &'static str) -> Self {
        Self {
            format: Some(format),
            ..self
        }
    }

    /// The same field, bounded (the API's fields take their bound from
    /// their domain type: [`bounded`](Self::bounded)).
    #[cfg(test)]
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
        // DRF shows the fewest characters of a text field as `min_length`.
        if let (Some(min), FieldType::String, false) = (self.minimum, self.kind, self.read_only) {
            meta["min_length"] = json!(min);
        }
        // DRF shows a number field's bounds as `min_value` and `max_value`.
        if !self.read_only && matches!(self.kind, FieldType::Integer | FieldType::Float) {
            if let Some(min) = self.minimum {
                meta["min_value"] = json!(min);
            }
            if let Some(max) = self.maximum {
                meta["max_value"] = json!(max);
            }
        }
        if let Some(item) = self.item {
            let mut child = item.metadata();
            // DRF shows no label for a list's child.
            if let Some(child) = child.as_object_mut() {
                child.remove("label");
            }
            meta["child"] = child;
        }
        if self.kind == FieldType::Choice {
            let choices: Vec<Value> = self
                .choices
                .iter()
                .map(|c| json!({"value": c, "display_name": c}))
                .collect();
            meta["choices"] = choices.into();
        }
        if let (Some(children), FieldType::Object) = (self.children, self.kind) {
            meta["children"] = actions_entry(children);
        } else if let Some(children) = self.children {
            meta["child"] = json!({
                "type": "nested object",
                "required": true,
                "read_only": false,
                "children": actions_entry(children),
            });
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
