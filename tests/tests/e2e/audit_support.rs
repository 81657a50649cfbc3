//! Helpers of the audit log's command-line and chain tests (docs/audit.md):
//! `devmgr audit verify` and `export` as processes, the log as the API
//! pages it, SQL run straight on either database (to tamper with it), and
//! an entry's hash computed here, independently of devmgr's own code:
//! SHA-256 over canonical JSON (RFC 8785) written for the tests.

use crate::support::*;
use serde_json::Value;
use sha2::{Digest, Sha256};
use std::process::Output;

/// The `previous_hash` of entry 1.
pub const GENESIS: &str = "0000000000000000000000000000000000000000000000000000000000000000";

fn describe(output: &Output) -> String {
    format!(
        "exit status: {}\nstdout: {}\nstderr: {}",
        output.status,
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

/// `devmgr audit verify` on `db`, as a process.
pub fn verify(db: &Db) -> Output {
    db.run(&["audit", "verify"])
}

/// Asserts that `devmgr audit verify` finds the chain intact: exit 0 and
/// exactly `{"ok": true, "entries": N}`; returns N.
#[track_caller]
pub fn verified(db: &Db) -> u64 {
    let output = verify(db);
    assert_eq!(output.status.code(), Some(0), "{}", describe(&output));
    let stdout = String::from_utf8_lossy(&output.stdout);
    let verdict: Value = serde_json::from_str(stdout.trim())
        .unwrap_or_else(|e| panic!("not JSON ({e})\n{}", describe(&output)));
    let entries = verdict["entries"].as_u64().expect("a count of entries");
    assert_eq!(
        stdout,
        format!("{{\"ok\": true, \"entries\": {entries}}}\n"),
        "{}",
        describe(&output)
    );
    entries
}

/// Asserts that `devmgr audit verify` finds the chain broken: exit 1 and
/// `{"ok": false, "entries": N, "broken": ID, "reason": "…"}` on one line;
/// returns N, the id and the reason.
#[track_caller]
pub fn broken(db: &Db) -> (u64, u64, String) {
    let output = verify(db);
    assert_eq!(output.status.code(), Some(1), "{}", describe(&output));
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(stdout.lines().count(), 1, "{}", describe(&output));
    let verdict: Value = serde_json::from_str(stdout.trim())
        .unwrap_or_else(|e| panic!("not JSON ({e})\n{}", describe(&output)));
    let entries = verdict["entries"].as_u64().expect("a count of entries");
    let id = verdict["broken"].as_u64().expect("the broken entry's id");
    let reason = string(&verdict, "reason");
    assert!(!reason.is_empty(), "{}", describe(&output));
    let expected = format!(
        "{{\"ok\": false, \"entries\": {entries}, \"broken\": {id}, \"reason\": {}}}\n",
        Value::String(reason.clone())
    );
    assert_eq!(stdout, expected, "{}", describe(&output));
    (entries, id, reason)
}

/// Asserts that an `audit` command could not read the log: exit 2, the
/// reason on stderr and nothing on stdout; returns the reason.
#[track_caller]
pub fn unreadable(output: &Output) -> String {
    assert_eq!(output.status.code(), Some(2), "{}", describe(output));
    assert!(output.stdout.is_empty(), "{}", describe(output));
    let stderr = String::from_utf8_lossy(&output.stderr).trim().to_owned();
    assert!(!stderr.is_empty(), "{}", describe(output));
    stderr
}

/// `devmgr audit export --since SINCE`: its JSON lines.
#[track_caller]
pub fn export(db: &Db, since: u64) -> Vec<Value> {
    let output = db.run(&["audit", "export", "--since", &since.to_string()]);
    assert_eq!(output.status.code(), Some(0), "{}", describe(&output));
    String::from_utf8(output.stdout.clone())
        .expect("the export is UTF-8")
        .lines()
        .map(|line| {
            serde_json::from_str(line)
                .unwrap_or_else(|e| panic!("{line:?} is not JSON ({e})\n{}", describe(&output)))
        })
        .collect()
}

/// The ids of `entries`.
pub fn ids(entries: &[Value]) -> Vec<u64> {
    entries
        .iter()
        .map(|entry| entry["id"].as_u64().expect("an id"))
        .collect()
}

/// `GET /audit/?limit=1000&offset=0` by `token`: the page.
#[track_caller]
pub fn audit_page(server: &Server, token: &str) -> Value {
    let reply = server
        .get("/audit/?limit=1000&offset=0")
        .token(token)
        .send();
    reply.expect_status(200);
    reply.json()
}

/// Runs SQL statements on the database itself, beside devmgr: rusqlite on
/// the SQLite file, a connection of their own on PostgreSQL.
pub fn execute(db: &Db, statements: &str) {
    if db.url().starts_with("sqlite:") {
        rusqlite::Connection::open(db.path())
            .and_then(|connection| connection.execute_batch(statements))
            .unwrap_or_else(|e| panic!("SQLite refused {statements:?}: {e}"));
    } else {
        db.postgres().execute(statements);
    }
}

/// `value` as canonical JSON (RFC 8785) for the values an entry holds:
/// object keys sorted by UTF-16 code units, no white space, only `"`, `\`
/// and control characters escaped (the short forms where JSON has them).
pub fn canonical(value: &Value) -> String {
    let mut out = String::new();
    write_canonical(value, &mut out);
    out
}

fn write_canonical(value: &Value, out: &mut String) {
    match value {
        Value::Null | Value::Bool(_) | Value::Number(_) => out.push_str(&value.to_string()),
        Value::String(text) => write_string(text, out),
        Value::Array(items) => {
            out.push('[');
            for (n, item) in items.iter().enumerate() {
                if n > 0 {
                    out.push(',');
                }
                write_canonical(item, out);
            }
            out.push(']');
        }
        Value::Object(members) => {
            let mut keys: Vec<&String> = members.keys().collect();
            keys.sort_by_key(|key| key.encode_utf16().collect::<Vec<u16>>());
            out.push('{');
            for (n, key) in keys.into_iter().enumerate() {
                if n > 0 {
                    out.push(',');
                }
                write_string(key, out);
                out.push(':');
                write_canonical(&members[key], out);
            }
            out.push('}');
        }
    }
}

fn write_string(text: &str, out: &mut String) {
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if u32::from(c) < 0x20 => out.push_str(&format!("\\u{:04x}", u32::from(c))),
            c => out.push(c),
        }
    }
    out.push('"');
}

/// The hash an entry (as the API or the export shows it) must have: the
/// lowercase hex SHA-256 of the canonical JSON of the entry without `hash`.
pub fn hash_of(entry: &Value) -> String {
    let mut unsealed = entry.clone();
    unsealed
        .as_object_mut()
        .expect("an entry is an object")
        .remove("hash");
    Sha256::digest(canonical(&unsealed).as_bytes())
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect()
}

/// `text` as an SQL string literal.
pub fn sql_text(text: &str) -> String {
    format!("'{}'", text.replace('\'', "''"))
}

#[test]
fn canonical_json_sorts_keys_and_escapes_only_what_it_must() {
    let value =
        serde_json::json!({"b": [1, "é/\u{1}\n"], "a": {"z": null, "\u{e9}": true, "Z": "\"\\"}});
    assert_eq!(
        canonical(&value),
        "{\"a\":{\"Z\":\"\\\"\\\\\",\"z\":null,\"é\":true},\"b\":[1,\"é/\\u0001\\n\"]}"
    );
}
