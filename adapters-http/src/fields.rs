//! Request body fields: one description per field drives both validation
//! (with DRF's messages) and the OPTIONS metadata.

use crate::error::{ApiError, FieldErrors, NON_FIELD_ERRORS};
use domain::email::MAX_EMAIL_CHARS;
use domain::text::{self, TextError};
use domain::{BoundedText, EmailAddress};
use serde_json::{Map, Value, json};

/// DRF's wording of a domain text problem.
pub(crate) fn text_error_message(error: TextError) -> String {
    match error {
        TextError::Blank => "This field may not be blank.".to_owned(),
        TextError::TooLong { max } => {
            format!("Ensure this field has no more than {max} characters.")
        }
        TextError::Nul => "Null characters are not allowed.".to_owned(),
        TextError::BidiControl => "Bidirectional control characters are not allowed.".to_owned(),
    }
}

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
    /// A list of objects, each with the field's `children`.
    List,
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
    /// Whether `null` is a value (an unknown one).
    pub nullable: bool,
    /// The only values accepted, when the field is a choice.
    pub choices: &'static [&'static str],
    /// The smallest whole number accepted.
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
            nullable: false,
            choices: &[],
            minimum: None,
            maximum: None,
            format: None,
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

    /// The same list field, with these fields in each item.
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
        if let Some(children) = self.children {
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

    /// Reads a text field with DRF `CharField`'s messages; `None` when absent
    /// (and not required) or invalid (the error is recorded). Only JSON
    /// strings are text, as the OpenAPI document says. Blank text and
    /// bidirectional controls are judged by the domain's text rules.
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
    pub fn error_value(&mut self, field: &str, errors: Value) {
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
    pub fn integer(&mut self, field: &Field) -> Option<Option<i64>> {
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
    pub fn choice(&mut self, field: &Field) -> Option<&'static str> {
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
    pub fn serial(&mut self, field: &Field) -> Option<domain::Serial> {
        let value = self.raw(field)?;
        match value {
            Value::Null => {
                self.error(field.name, "This field may not be null.");
                None
            }
            Value::String(text) => match domain::Serial::parse(text.trim()) {
                Ok(serial) => Some(serial),
                Err(e) => {
                    self.error(field.name, e.to_string());
                    None
                }
            },
            _ => {
                self.error(field.name, domain::device::InvalidSerial.to_string());
                None
            }
        }
    }

    /// Reads a list of objects, DRF `ListSerializer` style: each item is
    /// validated by `item` on a [`Form`] of its own; the errors come back as a
    /// list with one object per item (empty for good items).
    pub fn objects<T>(
        &mut self,
        field: &Field,
        mut item: impl FnMut(&mut Form) -> Option<T>,
    ) -> Option<Vec<T>> {
        let value = self.raw(field)?;
        let items = match value {
            Value::Array(items) => items,
            Value::Null => {
                self.error(field.name, "This field may not be null.");
                return None;
            }
            other => {
                self.error(
                    field.name,
                    format!(
                        "Expected a list of items but got type \"{}\".",
                        crate::body::python_type_name(&other)
                    ),
                );
                return None;
            }
        };
        let mut values = Vec::with_capacity(items.len());
        let mut item_errors = Vec::with_capacity(items.len());
        for entry in items {
            let Value::Object(map) = entry else {
                item_errors.push(json!({
                    NON_FIELD_ERRORS: [format!(
                        "Invalid data. Expected a dictionary, but got {}.",
                        crate::body::python_type_name(&entry)
                    )]
                }));
                continue;
            };
            let mut form = Form::new(map);
            let value = item(&mut form);
            item_errors.push(Value::Object(form.errors));
            values.extend(value);
        }
        if item_errors
            .iter()
            .any(|e| e.as_object().is_some_and(|e| !e.is_empty()))
        {
            self.error_value(field.name, Value::Array(item_errors));
            return None;
        }
        Some(values)
    }

    /// Reads a text field into the domain type that holds it; the type's
    /// rule is the field's, so a refusal is reported as a field error.
    pub fn checked<T: BoundedText>(&mut self, field: &Field) -> Option<T> {
        let text = self.text(field)?;
        match T::parse(text) {
            Ok(value) => Some(value),
            Err(e) => {
                self.error(field.name, text_error_message(e));
                None
            }
        }
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
    fn null_characters_are_refused_besides_other_errors() {
        let mut f = form(json!({"name": "a\0", "long": "ab\0", "p": "\0"}));
        assert_eq!(f.text(&NAME), None);
        assert_eq!(f.text(&Field::text("long", "Long").max(2)), None);
        assert_eq!(f.text(&Field::password("p", "P")), None);
        assert_eq!(
            errors(f),
            json!({
                "name": ["Null characters are not allowed."],
                "long": [
                    "Ensure this field has no more than 2 characters.",
                    "Null characters are not allowed.",
                ],
                "p": ["Null characters are not allowed."],
            })
        );
    }

    #[test]
    fn only_strings_are_text_and_passwords_keep_white_space() {
        let mut f = form(json!({"p": "   "}));
        assert_eq!(f.text(&Field::password("p", "P")).as_deref(), Some("   "));
        assert!(f.finish().is_ok());
        let mut f = form(json!({"n": 42}));
        assert_eq!(f.text(&Field::text("n", "N")), None);
        assert_eq!(errors(f), json!({"n": ["Not a valid string."]}));
    }

    #[test]
    fn invisible_text_is_blank_except_in_passwords() {
        let mut f = form(json!({"zw": "\u{200B}\u{200B}", "filler": "\u{3164}", "p": "\u{200B}"}));
        assert_eq!(f.text(&Field::text("zw", "Zw")), None);
        assert_eq!(f.text(&Field::text("filler", "Filler")), None);
        assert_eq!(
            f.text(&Field::password("p", "P")).as_deref(),
            Some("\u{200B}")
        );
        assert_eq!(
            errors(f),
            json!({
                "zw": ["This field may not be blank."],
                "filler": ["This field may not be blank."],
            })
        );
        let mut f = form(json!({"d": "\u{200B}", "n": "👩\u{200D}💻 lab"}));
        assert_eq!(
            f.text(&Field::text("d", "D").blank_ok()).as_deref(),
            Some("\u{200B}")
        );
        assert_eq!(
            f.text(&Field::text("n", "N")).as_deref(),
            Some("👩\u{200D}💻 lab")
        );
        assert!(f.finish().is_ok());
    }

    #[test]
    fn bidirectional_controls_are_refused_in_every_text_field() {
        const BIDI: &str = "Bidirectional control characters are not allowed.";
        let mut f = form(json!({
            "name": "a\u{202E}",
            "long": "abc\u{2066}",
            "d": "\u{2069}",
            "p": "secret\u{202A}word",
        }));
        assert_eq!(f.text(&NAME), None);
        assert_eq!(f.text(&Field::text("long", "Long").max(2)), None);
        assert_eq!(f.text(&Field::text("d", "D").blank_ok()), None);
        assert_eq!(f.text(&Field::password("p", "P")), None);
        assert_eq!(
            errors(f),
            json!({
                "name": [BIDI],
                "long": ["Ensure this field has no more than 2 characters.", BIDI],
                "d": [BIDI],
                "p": [BIDI],
            })
        );
        let mut f = form(json!({"name": "\u{05E9}\u{200F}1"}));
        assert!(f.text(&NAME).is_some());
    }

    #[test]
    fn passwords_are_bounded_before_any_rule() {
        let longest = "x".repeat(domain::password::MAX_LENGTH);
        let mut f = form(json!({"p": longest, "q": format!("{longest}x")}));
        assert_eq!(f.text(&Field::password("p", "P")), Some(longest));
        assert_eq!(f.text(&Field::password("q", "Q")), None);
        assert_eq!(
            errors(f),
            json!({"q": ["Ensure this field has no more than 4096 characters."]})
        );
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
    fn integers_are_json_integers_within_the_range() {
        let field = Field::integer("n", "N").range(0, 100);
        let mut f = form(json!({"n": 12}));
        assert_eq!(f.integer(&field), Some(Some(12)));
        let mut f = form(json!({"n": 7.0}));
        assert_eq!(f.integer(&field), Some(Some(7)));
        let mut f = form(json!({"n": null}));
        assert_eq!(f.integer(&field.nullable()), Some(None));
        for (value, message) in [
            (json!(true), "A valid integer is required."),
            (json!(1.5), "A valid integer is required."),
            (json!("12"), "A valid integer is required."),
            (json!(1e300), "A valid integer is required."),
            (
                json!(-1),
                "Ensure this value is greater than or equal to 0.",
            ),
            (
                json!(101),
                "Ensure this value is less than or equal to 100.",
            ),
            (json!(null), "This field may not be null."),
        ] {
            let mut f = form(json!({ "n": value }));
            assert_eq!(f.integer(&field), None);
            assert_eq!(errors(f), json!({ "n": [message] }));
        }
    }

    #[test]
    fn choices_name_the_refused_value() {
        let field = Field::text("p", "P").choices(&["tcp", "udp"]);
        let mut f = form(json!({"p": "tcp"}));
        assert_eq!(f.choice(&field), Some("tcp"));
        let mut f = form(json!({"p": 5}));
        assert_eq!(f.choice(&field), None);
        assert_eq!(errors(f), json!({"p": ["\"5\" is not a valid choice."]}));
    }

    #[test]
    fn serials_accept_any_uuid_spelling() {
        let field = Field::text("serial", "Serial");
        let mut f = form(json!({"serial": "0F8FAD5BD9CB469FA16570867728950E"}));
        assert_eq!(
            f.serial(&field).unwrap().as_str(),
            "0f8fad5b-d9cb-469f-a165-70867728950e"
        );
        let mut f = form(json!({"serial": 42}));
        assert!(f.serial(&field).is_none());
        assert_eq!(errors(f), json!({"serial": ["Must be a valid UUID."]}));
    }

    #[test]
    fn list_errors_line_up_with_the_items() {
        const CHILDREN: &[Field] = &[Field::integer("port", "Port").range(1, 65535)];
        let field = Field::list("ports", "Ports", CHILDREN);
        let read = |f: &mut Form| f.integer(&CHILDREN[0]).flatten();
        let mut f = form(json!({"ports": [{"port": 22}, {"port": 0}, "x"]}));
        assert_eq!(f.objects(&field, read), None);
        assert_eq!(
            errors(f),
            json!({"ports": [
                {},
                {"port": ["Ensure this value is greater than or equal to 1."]},
                {"non_field_errors": ["Invalid data. Expected a dictionary, but got str."]},
            ]})
        );
        let mut f = form(json!({"ports": {"port": 22}}));
        assert_eq!(f.objects(&field, read), None);
        assert_eq!(
            errors(f),
            json!({"ports": ["Expected a list of items but got type \"dict\"."]})
        );
        let mut f = form(json!({"ports": [{"port": 22}]}));
        assert_eq!(f.objects(&field, read), Some(vec![22]));
    }

    #[test]
    fn metadata_lists_type_requirement_and_bounds() {
        assert_eq!(
            NAME.optional().blank_ok().metadata(),
            json!({"type": "string", "required": false, "read_only": false, "label": "Name", "max_length": 3})
        );
    }
}
