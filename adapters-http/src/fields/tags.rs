//! Lists of tags, in a body (a device's `tags`, a bulk change's `add` and
//! `remove`) or a query (`tag`): `docs/api.md`, "Devices". In a form, a list
//! is its key repeated (`tags=lab&tags=site:berlin`), as DRF's `ListField`
//! reads HTML input.

use super::field::{Field, FieldType};
use super::form::{Form, Rejected};
use super::messages::python_type_name;
use super::messages::{INVALID_TAG, too_many_tags};
use domain::tag::{MAX_TAG_LENGTH, MAX_TAGS};
use domain::{Tag, TagSet};
use serde_json::Value;

/// One tag, as an item of a list of tags.
pub const TAG_ITEM: Field = Field {
    max_length: Some(MAX_TAG_LENGTH),
    ..Field::text("tag", "Tag")
};

/// A pattern for one tag as sent (either letter case: tags are taken
/// lowercased), for the OpenAPI document.
pub const TAG_PATTERN: &str = r"^[A-Za-z0-9][A-Za-z0-9._:-]{0,39}$";

impl Field {
    /// An optional list of tags, DRF `ListField(child=CharField(max_length=40),
    /// max_length=20)` style.
    pub const fn tags(name: &'static str, label: &'static str) -> Self {
        Self {
            kind: FieldType::List,
            required: false,
            max_length: Some(MAX_TAGS),
            item: Some(&TAG_ITEM),
            ..Self::text(name, label)
        }
    }
}

impl Form {
    /// An optional list of tags, read into the set it names (lowercased,
    /// distinct, ascending). Refused, each failing rule's message once and
    /// all at once: anything but a list, `null`, an item that is not text,
    /// an item that is no tag, more than [`MAX_TAGS`] distinct tags.
    pub fn optional_tags(&mut self, field: &Field) -> Result<Option<TagSet>, Rejected> {
        let Some(value) = self.raw(field) else {
            return Ok(None);
        };
        let items = match value {
            Value::Array(items) => items,
            Value::Null => return Err(self.error(field.name, "This field may not be null.")),
            other => {
                let message = format!(
                    "Expected a list of items but got type \"{}\".",
                    python_type_name(&other)
                );
                return Err(self.error(field.name, message));
            }
        };
        let (mut not_text, mut invalid) = (false, false);
        let mut tags = Vec::with_capacity(items.len());
        for item in &items {
            match item.as_str().map(Tag::parse) {
                None => not_text = true,
                Some(Err(_)) => invalid = true,
                Some(Ok(tag)) => tags.push(tag),
            }
        }
        let not_text = not_text.then(|| self.error(field.name, "Not a valid string."));
        let invalid = invalid.then(|| self.error(field.name, INVALID_TAG));
        let rejected = match (TagSet::new(tags), not_text.or(invalid)) {
            (Ok(set), None) => return Ok(Some(set)),
            (Ok(_), Some(rejected)) => rejected,
            (Err(_), _) => self.error(field.name, too_many_tags()),
        };
        Err(rejected)
    }

    /// The tags of a query's filter (`?tag=lab&tag=ci`), never refused: the
    /// tags, lowercased (empty values left out), or `None` when one of them
    /// is no tag, so no device can carry it and the filter matches nothing.
    pub fn filter_tags(&mut self, field: &Field) -> Option<Vec<Tag>> {
        let values = match self.raw(field) {
            None => return Some(Vec::new()),
            Some(Value::Array(values)) => values,
            Some(value) => vec![value],
        };
        let mut tags = Vec::with_capacity(values.len());
        for value in values {
            match value.as_str() {
                Some("") => {}
                Some(text) => tags.push(Tag::parse(text).ok()?),
                None => return None,
            }
        }
        tags.sort();
        tags.dedup();
        Some(tags)
    }
}

#[cfg(test)]
mod tests;
