//! Helpers of the audit API and action tests (docs/api.md, "Audit log";
//! docs/audit.md): an account's entries as `GET /audit/` pages them, the
//! whole log as `devmgr audit export` writes it (every account's, to see
//! that a request wrote one entry and nothing else), and the fields an
//! entry records, its hash recomputed here.

use crate::audit_support::{export, hash_of};
use crate::support::*;
use serde_json::{Value, json};

/// `GET /audit/`.
pub const AUDIT: &str = "/audit/";
/// The address the tests' requests come from.
pub const LOCAL: &str = "127.0.0.1";
/// The keys of an entry, sorted.
pub const ENTRY_KEYS: [&str; 9] = [
    "action",
    "actor",
    "detail",
    "hash",
    "id",
    "ip",
    "previous_hash",
    "target",
    "time",
];

/// `GET /audit/?<query>` by `token`, asserting a 200 page; the page.
#[track_caller]
pub fn audit_query(server: &Server, token: &str, query: &str) -> Value {
    let reply = server.get(&format!("{AUDIT}?{query}")).token(token).send();
    reply.expect_status(200);
    let page = reply.json();
    assert_eq!(
        keys(&page),
        ["count", "next", "previous", "results"],
        "{reply}"
    );
    page
}

/// A page's entries, each of the entry's shape with the hash the
/// documented rule gives.
#[track_caller]
pub fn results(page: &Value) -> Vec<Value> {
    let entries = page["results"].as_array().expect("results").clone();
    for entry in &entries {
        assert_eq!(keys(entry), ENTRY_KEYS, "{entry:#}");
        assert!(is_timestamp(&string(entry, "time")), "{entry:#}");
        assert_eq!(entry["hash"], hash_of(entry), "{entry:#}");
    }
    entries
}

/// Every entry of `token`'s account, newest first.
#[track_caller]
pub fn account_log(server: &Server, token: &str) -> Vec<Value> {
    results(&audit_query(server, token, "limit=1000"))
}

/// The ids of `entries`, in order.
pub fn entry_ids(entries: &[Value]) -> Vec<u64> {
    entries
        .iter()
        .map(|entry| entry["id"].as_u64().expect("an id"))
        .collect()
}

/// The id of the newest entry of the whole log (0 for none): what
/// [`written_since`] counts from.
#[track_caller]
pub fn mark(server: &Server) -> u64 {
    entry_ids(&export(&server.db, 0))
        .last()
        .copied()
        .unwrap_or(0)
}

/// The entries of the whole log written after `mark`, oldest first.
#[track_caller]
pub fn written_since(server: &Server, mark: u64) -> Vec<Value> {
    export(&server.db, mark)
}

/// Asserts that nothing was written to the log after `mark`.
#[track_caller]
pub fn nothing_written(server: &Server, mark: u64, what: &str) {
    assert_eq!(written_since(server, mark), Vec::<Value>::new(), "{what}");
}

/// Asserts that exactly one entry was written to the whole log after
/// `mark`, and that it is the newest of `token`'s account as the API
/// shows it; the entry.
#[track_caller]
pub fn one_written(server: &Server, token: &str, mark: u64) -> Value {
    let written = written_since(server, mark);
    assert_eq!(written.len(), 1, "one entry after {mark}: {written:#?}");
    let newest = results(&audit_query(server, token, "limit=1"));
    assert_eq!(newest, written, "the account's newest entry");
    written[0].clone()
}

/// `{"kind": "user", "label": email}`.
pub fn user(email: &str) -> Value {
    json!({"kind": "user", "label": email})
}

/// `{"kind": "device", "label": serial}`.
pub fn device_actor(serial: &str) -> Value {
    json!({"kind": "device", "label": serial})
}

/// An actor labelled with its own kind: `cli`, `system`, `anonymous`.
pub fn bare(kind: &str) -> Value {
    json!({"kind": kind, "label": kind})
}

/// Asserts what `entry` records: `expected` holds its `actor`, `action`,
/// `target`, `ip` and `detail`; the rest is its place in the chain and its
/// time.
#[track_caller]
pub fn assert_records(entry: &Value, expected: Value) {
    let mut recorded = entry.clone();
    let fields = recorded.as_object_mut().expect("an entry is an object");
    for key in ["id", "time", "previous_hash", "hash"] {
        assert!(fields.remove(key).is_some(), "{key} in {entry:#}");
    }
    assert_eq!(recorded, expected, "{entry:#}");
    assert_eq!(entry["hash"], hash_of(entry), "{entry:#}");
}

/// Asserts that exactly one entry was written after `mark`, the newest of
/// `token`'s account, recording `expected` (see [`assert_records`]); the
/// entry.
#[track_caller]
pub fn recorded(server: &Server, token: &str, mark: u64, expected: Value) -> Value {
    let entry = one_written(server, token, mark);
    assert_records(&entry, expected);
    entry
}
