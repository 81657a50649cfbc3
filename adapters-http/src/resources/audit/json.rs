//! An audit entry as the API shows it (`docs/api.md`, "Audit log";
//! `docs/audit.md`), with its description and example.

use crate::description::examples as ex;
use crate::description::{Described, ObjectSchema};
use crate::fields::{Field, FieldType};
use crate::resources::lists::{Page, page_fields};
use domain::audit::ChainLink;
use domain::{Actor, AuditAction, AuditDetail, AuditEntry, AuditNote, AuditTarget, Origin};
use serde::Serialize;
use serde_json::Value;

/// The kinds of author an entry names.
const ACTOR_KINDS: [&str; 5] = ["user", "device", "cli", "system", "anonymous"];

const fn shown(name: &'static str, label: &'static str, kind: FieldType) -> Field {
    Field::read_only(name, label, kind)
}

/// `actor`: its kind and its label.
const ACTOR_FIELDS: &[Field] = &[
    shown("kind", "Kind", FieldType::String).choices(&ACTOR_KINDS),
    shown("label", "Label", FieldType::String),
];

/// A name in `changed`.
const CHANGED_ITEM: Field = shown("changed", "Changed", FieldType::String);

/// `detail`: the keys some actions write, each only where its action does.
const DETAIL_FIELDS: &[Field] = &[
    Field {
        kind: FieldType::List,
        item: Some(&CHANGED_ITEM),
        ..Field::text("changed", "Changed").optional()
    },
    Field::text("command", "Command").optional().format("uuid"),
    Field {
        kind: FieldType::Datetime,
        ..Field::text("until", "Until").optional().nullable()
    },
];

/// An entry's fields as answers show them.
pub const AUDIT_ENTRY_FIELDS: &[Field] = &[
    shown("id", "Id", FieldType::Integer).range(1, i64::MAX),
    shown("time", "Time", FieldType::Datetime),
    shown("actor", "Actor", FieldType::Object).children(ACTOR_FIELDS),
    shown("action", "Action", FieldType::String).choices(&AuditAction::NAMES),
    shown("target", "Target", FieldType::String),
    shown("ip", "Ip", FieldType::String).nullable(),
    shown("detail", "Detail", FieldType::Object).children(DETAIL_FIELDS),
    shown("previous_hash", "Previous hash", FieldType::String),
    shown("hash", "Hash", FieldType::String),
];

/// An audit entry.
pub const AUDIT_ENTRY_SCHEMA: ObjectSchema = ObjectSchema {
    name: "AuditEntry",
    description: "An entry of the audit log: its place in the server's one sequence (`id`), when (UTC), who (`actor`: `user` with the e-mail address, `device` with the serial, or `cli`, `system`, `anonymous` labelled with the kind), what (`action`) to what (`target`: `account:<e-mail>`, `device:<serial>`, `job:<id>`, `monitor:<id>` or `webhook:<id>`), from which client address (null for `cli` and `system`), and its particulars (`detail`: `{}`, `changed` fields sorted, a reboot's `command`, a snooze's `until`). `previous_hash` is the hash of entry `id` − 1 (64 zeros for entry 1); `hash` is the lowercase hex SHA-256 of the canonical JSON (RFC 8785) of the entry without `hash`.",
    fields: AUDIT_ENTRY_FIELDS,
};

/// A page of audit entries.
pub const AUDIT_PAGE_SCHEMA: ObjectSchema = ObjectSchema {
    name: "AuditPage",
    description: "A page of the entries about the account, its devices, jobs, monitors and webhooks (deleted ones' too) that match the filters, newest first: how many match in all, the URLs of the next and the previous page (null at either end), and the page's entries.",
    fields: page_fields!(AUDIT_ENTRY_FIELDS),
};

/// An entry as the API shows it: exactly the object whose hash the chain
/// holds ([`AuditEntry::to_json`]).
#[derive(Debug, Clone, Serialize, PartialEq)]
#[serde(transparent)]
pub struct AuditEntryJson(Value);

impl From<&AuditEntry> for AuditEntryJson {
    fn from(entry: &AuditEntry) -> Self {
        Self(entry.to_json())
    }
}

/// The hash of the entry before the example's.
const EXAMPLE_PREVIOUS_HASH: &str =
    "5d41402abc4b2a76b9719d911017c592e4f1b1b4c4d0b6f2e7a9c3d8f0a1b2c3";

impl Described for AuditEntryJson {
    const SCHEMA: &'static ObjectSchema = &AUDIT_ENTRY_SCHEMA;

    fn example() -> Self {
        let note = AuditNote::with_detail(
            Origin::new(
                ex::at(ex::ISSUED),
                Actor::user(&ex::email()),
                Some(std::net::Ipv4Addr::new(203, 0, 113, 9).into()),
            ),
            AuditAction::DeviceReboot,
            AuditTarget::device(&ex::serial()),
            AuditDetail::Command(ex::command_id()),
        );
        let previous = ChainLink {
            id: 41,
            hash: EXAMPLE_PREVIOUS_HASH.to_owned(),
        };
        Self::from(&note.seal(Some(&previous)))
    }
}

impl Described for Page<AuditEntryJson> {
    const SCHEMA: &'static ObjectSchema = &AUDIT_PAGE_SCHEMA;

    fn example() -> Self {
        Page::sample("/audit/", AuditEntryJson::example())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::description::assert_described;

    #[test]
    fn the_answers_write_their_described_fields() {
        assert_described(&AuditEntryJson::example());
        assert_described(&Page::<AuditEntryJson>::example());
    }

    #[test]
    fn the_example_is_a_sealed_reboot() {
        let example = serde_json::to_value(AuditEntryJson::example()).unwrap();
        assert_eq!(example["id"], 42);
        assert_eq!(example["actor"]["label"], ex::EMAIL);
        assert_eq!(example["detail"]["command"], ex::COMMAND_ID);
        assert_eq!(example["ip"], "203.0.113.9");
        assert_eq!(example["previous_hash"], EXAMPLE_PREVIOUS_HASH);
        assert_eq!(example["hash"].as_str().map(str::len), Some(64));
    }
}
