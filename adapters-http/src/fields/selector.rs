//! The selector field: which of the account's devices a request is about
//! (`docs/api.md`, "Fleet"), a nested object of criteria, each one given
//! must hold. Its errors nest under the field's name, as DRF's nested
//! serializers report them (`{"selector": {"tags": [...]}}`); unknown keys
//! are ignored. A self-contained field type: any body that names devices
//! reads one with [`Form::selector`] and declares [`Field::selector`].

use super::field::{Field, FieldType};
use super::form::{Form, Rejected};
use super::messages::text_error_message;
use crate::error::{ApiError, NON_FIELD_ERRORS};
use domain::selector::MAX_SERIALS;
use domain::text::{self, TextError};
use domain::{Criteria, MachineType, Search, Selector, Tag};
use serde_json::{Map, Value};

#[cfg(test)]
mod tests;

/// One serial of `serials`: any text (a serial the account does not have
/// matches nothing).
const SERIAL_ITEM: Field = Field::text("serial", "Serial").blank_ok();

/// `serials`: at least one, at most [`MAX_SERIALS`].
const SERIALS: Field = Field {
    kind: FieldType::List,
    required: false,
    minimum: Some(1),
    max_length: Some(MAX_SERIALS),
    item: Some(&SERIAL_ITEM),
    ..Field::text("serials", "Serials")
};

/// `tags`: the device carries every one (at least one tag given).
const TAGS: Field = Field {
    minimum: Some(1),
    ..Field::tags("tags", "Tags")
};

/// `any_tags`: the device carries at least one (at least one tag given).
const ANY_TAGS: Field = Field {
    minimum: Some(1),
    ..Field::tags("any_tags", "Any tags")
};

/// An optional boolean, DRF `BooleanField` style.
const fn boolean(name: &'static str, label: &'static str) -> Field {
    Field {
        kind: FieldType::Boolean,
        required: false,
        ..Field::text(name, label)
    }
}

/// `online`: online (`true`) or not (`false`).
const ONLINE: Field = boolean("online", "Online");

/// `machine_type`: one of the machine codes.
const MACHINE_TYPE: Field = Field {
    kind: FieldType::Choice,
    ..Field::text("machine_type", "Machine type")
        .optional()
        .choices(&MachineType::CODES)
};

/// `search`: text in the name, description or serial, ignoring case.
const SEARCH: Field = Field::text("search", "Search").optional();

/// `all`: every device, when no criterion is given.
const ALL: Field = boolean("all", "All");

/// The keys of a selector, in the order OPTIONS lists them.
pub const SELECTOR_FIELDS: &[Field] = &[SERIALS, TAGS, ANY_TAGS, ONLINE, MACHINE_TYPE, SEARCH, ALL];

/// DRF `BooleanField`'s spellings of true, beside JSON's `true`.
pub const TRUE_SPELLINGS: &[&str] = &[
    "t", "T", "y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON", "1",
];

/// DRF `BooleanField`'s spellings of false, beside JSON's `false`.
pub const FALSE_SPELLINGS: &[&str] = &[
    "f", "F", "n", "N", "no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF", "0",
];

impl Field {
    /// A required selector, a nested object with [`SELECTOR_FIELDS`].
    pub const fn selector(name: &'static str, label: &'static str) -> Self {
        Self {
            kind: FieldType::Object,
            children: Some(SELECTOR_FIELDS),
            ..Self::text(name, label)
        }
    }
}

impl Form {
    /// A required selector: the devices it names, or its errors nested under
    /// the field's name (every failing key at once; the rule that `all`
    /// comes alone only once every key is valid, under `non_field_errors`).
    pub fn selector(&mut self, field: &Field) -> Result<Selector, Rejected> {
        let present = Field {
            required: false,
            ..*field
        };
        let object = match self.raw(&present) {
            Some(Value::Object(object)) => object,
            None => return Err(self.error(field.name, "This field is required.")),
            Some(Value::Null) => return Err(self.error(field.name, "This field may not be null.")),
            Some(other) => {
                let message = format!(
                    "Invalid data. Expected a dictionary, but got {}.",
                    crate::body::python_type_name(&other)
                );
                let mut nested = Form::new(Map::new());
                nested.error(NON_FIELD_ERRORS, message);
                return Err(self.nested(field, nested));
            }
        };
        let mut nested = Form::new(object);
        if let Ok(selector) = nested.selector_keys() {
            return Ok(selector);
        }
        Err(self.nested(field, nested))
    }

    /// A required selector, with the JSON a job or a monitor shows for it:
    /// the known keys sent, with their validated values (`"all": false`
    /// beside criteria kept as sent).
    pub fn shown_selector(&mut self, field: &Field) -> Result<(Selector, String), Rejected> {
        let present = Field {
            required: false,
            ..*field
        };
        let sent_all = match self.raw(&present) {
            Some(Value::Object(mut object)) => object.remove(ALL.name),
            _ => None,
        };
        let selector = self.selector(field)?;
        let mut shown = selector_json(&selector);
        if let (Value::Object(keys), Some(_), Some(_)) = (&mut shown, sent_all, selector.criteria())
        {
            keys.insert(ALL.name.to_owned(), Value::Bool(false));
        }
        Ok((selector, shown.to_string()))
    }

    /// Reads every key of a selector object, then how they combine.
    fn selector_keys(&mut self) -> Result<Selector, Rejected> {
        let serials = self.serials(&SERIALS);
        let tags = self.some_tags(&TAGS);
        let any_tags = self.some_tags(&ANY_TAGS);
        let online = self.drf_boolean(&ONLINE);
        let machine_type = self.optional_choice(&MACHINE_TYPE, MachineType::from_code);
        let search = self.optional_text(&SEARCH);
        let all = self.drf_boolean(&ALL);
        let criteria = Criteria {
            serials: serials?,
            tags: tags?,
            any_tags: any_tags?,
            online: online?,
            machine_type: machine_type?,
            search: search?.and_then(|text| Search::new(text.trim())),
        };
        let all = all?.unwrap_or(false);
        Selector::new(criteria, all)
            .map_err(|error| self.error(NON_FIELD_ERRORS, error.to_string()))
    }

    /// Records a nested object's errors as the whole error of `field`.
    fn nested(&mut self, field: &Field, nested: Form) -> Rejected {
        let errors = match ApiError::from(nested) {
            ApiError::Validation(errors) => errors,
            other => Map::from_iter([(NON_FIELD_ERRORS.to_owned(), other.message().into())]),
        };
        // `error` is how a rejection is made; the nested object replaces its message.
        let rejected = self.error(field.name, "");
        self.error_value(field.name, Value::Object(errors));
        rejected
    }

    /// An optional list of tags that may not be empty.
    fn some_tags(&mut self, field: &Field) -> Result<Vec<Tag>, Rejected> {
        match self.optional_tags(field)? {
            None => Ok(Vec::new()),
            Some(tags) if tags.is_empty() => Err(self.error(field.name, EMPTY_LIST)),
            Some(tags) => Ok(tags.as_slice().to_vec()),
        }
    }

    /// An optional, non-empty list of at most the field's `max_length`
    /// strings, each failing rule's message once.
    fn serials(&mut self, field: &Field) -> Result<Option<Vec<String>>, Rejected> {
        let items = match self.raw(field) {
            None => return Ok(None),
            Some(Value::Array(items)) => items,
            Some(Value::Null) => return Err(self.error(field.name, "This field may not be null.")),
            Some(other) => {
                let message = format!(
                    "Expected a list of items but got type \"{}\".",
                    crate::body::python_type_name(&other)
                );
                return Err(self.error(field.name, message));
            }
        };
        if items.is_empty() {
            return Err(self.error(field.name, EMPTY_LIST));
        }
        let mut rejected = None;
        if items.iter().any(|item| !item.is_string()) {
            rejected = Some(self.error(field.name, "Not a valid string."));
        }
        // As every text the API reads: no NUL (no database stores it), no
        // bidirectional control.
        let texts = || items.iter().filter_map(Value::as_str);
        if texts().any(|text| text.contains('\0')) {
            rejected = Some(self.error(field.name, text_error_message(TextError::Nul)));
        }
        if texts().any(text::has_bidi_control) {
            let message = text_error_message(TextError::BidiControl);
            rejected = Some(self.error(field.name, message));
        }
        if let Some(max) = field.max_length
            && items.len() > max
        {
            let message = format!("Ensure this field has no more than {max} elements.");
            rejected = Some(self.error(field.name, message));
        }
        match rejected {
            Some(rejected) => Err(rejected),
            None => Ok(Some(
                items
                    .into_iter()
                    .filter_map(|item| item.as_str().map(str::to_owned))
                    .collect(),
            )),
        }
    }

    /// An optional boolean, DRF `BooleanField` style: JSON's `true` and
    /// `false`, their spellings as text ([`TRUE_SPELLINGS`],
    /// [`FALSE_SPELLINGS`]), `1` and `0`; `null` is refused.
    fn drf_boolean(&mut self, field: &Field) -> Result<Option<bool>, Rejected> {
        let value = match self.raw(field) {
            None => return Ok(None),
            Some(Value::Null) => return Err(self.error(field.name, "This field may not be null.")),
            Some(value) => value,
        };
        match drf_boolean_value(&value) {
            Some(flag) => Ok(Some(flag)),
            None => Err(self.error(field.name, "Must be a valid boolean.")),
        }
    }
}

/// DRF's message for an empty list where one is needed.
const EMPTY_LIST: &str = "This list may not be empty.";

/// The boolean a JSON value spells for DRF's `BooleanField`, if any.
fn drf_boolean_value(value: &Value) -> Option<bool> {
    match value {
        Value::Bool(flag) => Some(*flag),
        Value::String(text) if TRUE_SPELLINGS.contains(&text.as_str()) => Some(true),
        Value::String(text) if FALSE_SPELLINGS.contains(&text.as_str()) => Some(false),
        // Python compares 1.0 equal to 1, so DRF takes it too.
        Value::Number(number) => match number.as_f64() {
            Some(1.0) => Some(true),
            Some(0.0) => Some(false),
            _ => None,
        },
        _ => None,
    }
}

/// A selector as the JSON object a client sends for it (`{"all": true}`
/// for every device).
pub fn selector_json(selector: &Selector) -> Value {
    let Some(criteria) = selector.criteria() else {
        return Value::Object(Map::from_iter([(ALL.name.to_owned(), Value::Bool(true))]));
    };
    let names =
        |tags: &[Tag]| -> Value { tags.iter().map(|tag| Value::from(tag.as_str())).collect() };
    let mut object = Map::new();
    let mut put = |field: &Field, value: Value| object.insert(field.name.to_owned(), value);
    if let Some(serials) = &criteria.serials {
        put(
            &SERIALS,
            serials.iter().map(|s| Value::from(s.as_str())).collect(),
        );
    }
    if !criteria.tags.is_empty() {
        put(&TAGS, names(&criteria.tags));
    }
    if !criteria.any_tags.is_empty() {
        put(&ANY_TAGS, names(&criteria.any_tags));
    }
    if let Some(online) = criteria.online {
        put(&ONLINE, online.into());
    }
    if let Some(machine_type) = criteria.machine_type {
        put(&MACHINE_TYPE, machine_type.code().into());
    }
    if let Some(search) = &criteria.search {
        put(&SEARCH, search.needle().into());
    }
    Value::Object(object)
}
