//! The fleet's answers: the account's tags with their counts, a selection's
//! preview, a bulk tagging's count.

use crate::description::{Described, ObjectSchema};
use crate::fields::{Field, FieldType};
use crate::resources::devices::{DEVICE_FIELDS, DeviceJson};
use application::use_cases::{DevicesPage, PREVIEW};
use domain::TagCount;
use serde::Serialize;

/// The tag the examples select and count.
pub(super) const EXAMPLE_TAG: &str = "lab";

const fn shown(name: &'static str, label: &'static str, kind: FieldType) -> Field {
    Field::read_only(name, label, kind)
}

/// A tag of the account and how many of its devices carry it.
pub const TAG_COUNT_SCHEMA: ObjectSchema = ObjectSchema {
    name: "TagCount",
    description: "A tag on at least one of the account's devices, and on how many.",
    fields: &[
        shown("name", "Name", FieldType::String),
        shown("device_count", "Device count", FieldType::Integer).range(1, i64::MAX),
    ],
};

/// A tag and its count as the API shows them.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct TagCountJson {
    name: String,
    device_count: u64,
}

impl From<&TagCount> for TagCountJson {
    fn from(count: &TagCount) -> Self {
        Self {
            name: count.tag.as_str().to_owned(),
            device_count: count.devices,
        }
    }
}

impl Described for TagCountJson {
    const SCHEMA: &'static ObjectSchema = &TAG_COUNT_SCHEMA;

    fn example() -> Self {
        Self {
            name: EXAMPLE_TAG.to_owned(),
            device_count: 2,
        }
    }
}

/// How many devices a selector selects, and the first of them.
pub const SELECTION_SCHEMA: ObjectSchema = ObjectSchema {
    name: "Selection",
    description: "How many devices the selector selects now (`count`), and the first 100 of\nthem in list order (`devices`, oldest first).",
    fields: &[
        shown("count", "Count", FieldType::Integer).range(0, i64::MAX),
        shown("devices", "Devices", FieldType::List).children(DEVICE_FIELDS),
    ],
};

/// A selection's preview as the API shows it.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct SelectionJson {
    count: u64,
    devices: Vec<DeviceJson>,
}

impl SelectionJson {
    /// The preview of a selection, with absolute URLs under `base_url`.
    pub fn new(page: DevicesPage, base_url: &str) -> Self {
        Self {
            count: page.count,
            devices: page
                .views
                .into_iter()
                .take(PREVIEW as usize)
                .map(|view| DeviceJson::new(view, base_url))
                .collect(),
        }
    }
}

impl Described for SelectionJson {
    const SCHEMA: &'static ObjectSchema = &SELECTION_SCHEMA;

    fn example() -> Self {
        Self {
            count: 1,
            devices: vec![DeviceJson::example()],
        }
    }
}

/// How many devices a bulk tagging selected.
pub const MATCHED_SCHEMA: ObjectSchema = ObjectSchema {
    name: "Retagged",
    description: "How many devices the selector selected; each of them lost the `remove` tags,\nthen gained the `add` tags.",
    fields: &[shown("matched", "Matched", FieldType::Integer).range(0, i64::MAX)],
};

/// A bulk tagging's answer.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct MatchedJson {
    matched: u64,
}

impl MatchedJson {
    /// The answer for `matched` selected devices.
    pub fn new(matched: u64) -> Self {
        Self { matched }
    }
}

impl Described for MatchedJson {
    const SCHEMA: &'static ObjectSchema = &MATCHED_SCHEMA;

    fn example() -> Self {
        Self { matched: 2 }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::description::assert_described;

    #[test]
    fn the_fleet_answers_write_their_described_fields() {
        assert_described(&TagCountJson::example());
        assert_described(&SelectionJson::example());
        assert_described(&MatchedJson::example());
    }

    #[test]
    fn a_tag_count_names_the_tag_as_stored() {
        let count = TagCount {
            tag: domain::Tag::parse("Site:Berlin").unwrap(),
            devices: 3,
        };
        let json = serde_json::to_value(TagCountJson::from(&count)).unwrap();
        assert_eq!(
            json,
            serde_json::json!({"name": "site:berlin", "device_count": 3})
        );
    }
}
