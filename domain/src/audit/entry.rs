//! An entry of the log as stored, and the hash that chains it.

use super::AuditNote;
use super::canonical::canonical;
use serde_json::{Value, json};

/// The `previous_hash` of the first entry: 64 zeros.
pub const GENESIS_HASH: &str = "0000000000000000000000000000000000000000000000000000000000000000";

/// A place in the chain: an entry's id and hash (the newest entry, or the
/// checkpoint where verification starts once old entries are deleted).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChainLink {
    /// The entry's id.
    pub id: u64,
    /// The entry's hash.
    pub hash: String,
}

/// An entry as the log holds it, field by field as stored. Read back, any
/// field may have been edited, so nothing here is trusted: the verifier
/// recomputes the hash from these values.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuditEntry {
    /// Its place in the sequence: 1, 2, 3 … in the order of writing.
    pub id: u64,
    /// When, as the API writes times.
    pub time: String,
    /// The author's kind.
    pub actor_kind: String,
    /// The author's label.
    pub actor_label: String,
    /// The action's name.
    pub action: String,
    /// The target.
    pub target: String,
    /// The client's address, if any.
    pub ip: Option<String>,
    /// The `detail` object as JSON text.
    pub detail: String,
    /// The previous entry's hash.
    pub previous_hash: String,
    /// This entry's hash.
    pub hash: String,
}

impl AuditNote {
    /// The entry this note becomes when written after `previous` (the
    /// newest entry or the checkpoint; `None` for the very first entry).
    pub fn seal(&self, previous: Option<&ChainLink>) -> AuditEntry {
        let (id, previous_hash) = match previous {
            Some(link) => (link.id + 1, link.hash.clone()),
            None => (1, GENESIS_HASH.to_owned()),
        };
        let detail = self.detail.to_json();
        let mut entry = AuditEntry {
            id,
            time: crate::time::format_api(self.origin.time),
            actor_kind: self.origin.actor.kind().as_str().to_owned(),
            actor_label: self.origin.actor.label().to_owned(),
            action: self.action.as_str().to_owned(),
            target: self.target.as_str().to_owned(),
            ip: self.origin.ip.map(|ip| ip.to_string()),
            detail: canonical(&detail),
            previous_hash,
            hash: String::new(),
        };
        // The detail as a value, not parsed back from the text just written.
        entry.hash = hash_of(&entry.document(detail));
        entry
    }
}

impl AuditEntry {
    /// The entry as the API shows it, with `hash`; `detail` as stored when
    /// it is not JSON (only an edited row can hold that).
    pub fn to_json(&self) -> Value {
        let mut document = self.unsealed();
        document["hash"] = Value::String(self.hash.clone());
        document
    }

    /// The lowercase hex SHA-256 of the canonical JSON (RFC 8785) of the
    /// entry without `hash`; `None` when the stored `detail` is not JSON.
    pub fn computed_hash(&self) -> Option<String> {
        let detail = serde_json::from_str::<Value>(&self.detail).ok()?;
        Some(hash_of(&self.document(detail)))
    }

    /// This entry's place in the chain.
    pub fn link(&self) -> ChainLink {
        ChainLink {
            id: self.id,
            hash: self.hash.clone(),
        }
    }

    fn unsealed(&self) -> Value {
        let detail = serde_json::from_str::<Value>(&self.detail)
            .unwrap_or_else(|_| Value::String(self.detail.clone()));
        self.document(detail)
    }

    /// The entry without `hash`, its detail given as a value.
    fn document(&self, detail: Value) -> Value {
        json!({
            "id": self.id,
            "time": self.time,
            "actor": { "kind": self.actor_kind, "label": self.actor_label },
            "action": self.action,
            "target": self.target,
            "ip": self.ip,
            "detail": detail,
            "previous_hash": self.previous_hash,
        })
    }
}

/// The lowercase hex SHA-256 of `document`'s canonical JSON.
fn hash_of(document: &Value) -> String {
    crate::secret::sha256_hex(canonical(document).as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::audit::{Actor, AuditAction, AuditDetail, AuditTarget, Origin};
    use crate::{EmailAddress, Serial};
    use chrono::TimeZone;
    use sha2::{Digest, Sha256};

    fn note() -> AuditNote {
        let email = EmailAddress::parse("ops@example.com").unwrap();
        let serial = Serial::parse("7d3c1a52-0a1b-4c2d-8e9f-0123456789ab").unwrap();
        AuditNote::with_detail(
            Origin::new(
                chrono::Utc.with_ymd_and_hms(2026, 11, 26, 3, 0, 0).unwrap(),
                Actor::user(&email),
                Some("203.0.113.9".parse().unwrap()),
            ),
            AuditAction::DeviceUpdate,
            AuditTarget::device(&serial),
            AuditDetail::changed(vec!["tags", "name", "tags"]),
        )
    }

    #[test]
    fn the_first_entry_follows_sixty_four_zeros() {
        let entry = note().seal(None);
        assert_eq!(entry.id, 1);
        assert_eq!(entry.previous_hash, GENESIS_HASH);
        assert_eq!(entry.detail, r#"{"changed":["name","tags"]}"#);
    }

    #[test]
    fn the_hash_is_sha256_of_the_canonical_entry_without_it() {
        let entry = note().seal(Some(&ChainLink {
            id: 41,
            hash: "ab".repeat(32),
        }));
        let content = format!(
            concat!(
                r#"{{"action":"device.update","actor":{{"kind":"user","label":"ops@example.com"}},"#,
                r#""detail":{{"changed":["name","tags"]}},"id":42,"ip":"203.0.113.9","#,
                r#""previous_hash":"{}","target":"device:7d3c1a52-0a1b-4c2d-8e9f-0123456789ab","time":"2026-11-26T03:00:00"}}"#
            ),
            "ab".repeat(32)
        );
        assert_eq!(entry.id, 42);
        assert_eq!(entry.hash, hex::encode(Sha256::digest(content.as_bytes())));
        assert_eq!(entry.computed_hash().as_deref(), Some(entry.hash.as_str()));
    }

    #[test]
    fn any_edit_changes_the_hash() {
        let entry = note().seal(None);
        let mut edited = entry.clone();
        edited.action = "device.delete".into();
        assert_ne!(edited.computed_hash(), Some(entry.hash.clone()));
        let mut edited = entry.clone();
        edited.id = 2;
        assert_ne!(edited.computed_hash(), Some(entry.hash.clone()));
        let mut edited = entry;
        edited.detail = "{not json".into();
        assert_eq!(edited.computed_hash(), None);
    }

    #[test]
    fn control_characters_and_quotes_are_escaped_as_rfc_8785_says() {
        let value = json!({"b": "tab\there \"q\" \u{1f} é", "a": null});
        assert_eq!(
            canonical(&value),
            r#"{"a":null,"b":"tab\there \"q\" \u001f é"}"#
        );
    }
}
