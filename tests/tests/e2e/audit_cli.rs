//! `devmgr audit verify` and `export`, tampering, and retention (docs/audit.md).
//!
//! The log is written through the command line and the API; tampering is
//! done straight in the database (rusqlite, or a PostgreSQL connection),
//! as someone with access to it would; re-sealing a chain uses the tests'
//! own SHA-256 over canonical JSON, not devmgr's.

use crate::audit_support::*;
use crate::support::*;
use serde_json::{Value, json};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// How long retention may take to run once a server started.
const RETENTION_WITHIN: Duration = Duration::from_secs(60);

/// A log of `1 + devices + reboots` entries by one account: its creation,
/// its devices' (by the command line) and reboots through the API. Returns
/// the account and its devices' serials.
fn some_entries(server: &Server, devices: usize, reboots: usize) -> (Account, Vec<String>) {
    let owner = server.account("ada@example.com");
    let serials: Vec<String> = (0..devices)
        .map(|_| server.device_serial(&owner.email))
        .collect();
    for n in 0..reboots {
        let serial = &serials[n % serials.len()];
        server
            .post(&format!("/devices/{serial}/reboot/"))
            .token(&owner.token)
            .send()
            .expect_status(202);
    }
    (owner, serials)
}

/// Asserts that `entries` are ids `first..` without gaps, each linked to
/// the one before it (to `previous` first) and hashing to its `hash`.
#[track_caller]
fn assert_chained(entries: &[Value], first: u64, previous: &str) {
    let mut previous = previous.to_owned();
    for (n, entry) in entries.iter().enumerate() {
        assert_eq!(entry["id"], first + n as u64, "{entry:#}");
        assert_eq!(entry["previous_hash"], previous.as_str(), "{entry:#}");
        assert_eq!(string(entry, "hash"), hash_of(entry), "{entry:#}");
        previous = string(entry, "hash");
    }
}

e2e!(verify_and_export_agree_with_the_api_while_the_server_runs);
fn verify_and_export_agree_with_the_api_while_the_server_runs() {
    let server = Server::start();
    assert_eq!(verified(&server.db), 0, "a fresh log is intact and empty");
    assert_eq!(export(&server.db, 0), Vec::<Value>::new());

    let (owner, serials) = some_entries(&server, 2, 3);
    server
        .patch(&format!("/devices/{}/", serials[0]))
        .token(&owner.token)
        .json(&json!({"name": "Renamed"}))
        .send()
        .expect_status(200);
    let page = audit_page(&server, &owner.token);
    let count = page["count"].as_u64().expect("a count");
    assert_eq!(count, 7, "{page:#}");
    assert_eq!(verified(&server.db), count);

    // The export is the API's entries, oldest first, chained.
    let mut api: Vec<Value> = page["results"].as_array().expect("results").clone();
    api.reverse();
    let exported = export(&server.db, 0);
    assert_eq!(exported, api);
    assert_chained(&exported, 1, GENESIS);
    assert_eq!(exported[0]["action"], "account.create");
    assert_eq!(exported[6]["action"], "device.update");
    assert_eq!(exported[6]["detail"], json!({"changed": ["name"]}));

    let since = export(&server.db, 3);
    assert_eq!(since, api[3..].to_vec());
    assert_eq!(ids(&since), [4, 5, 6, 7]);
    assert_eq!(export(&server.db, 7), Vec::<Value>::new());
}

/// A copy of the log beside it, to put back after each tampering.
const SET_ASIDE: &str = "CREATE TABLE audit_copy AS SELECT * FROM audit_log";
const PUT_BACK: &str = "DELETE FROM audit_log; INSERT INTO audit_log SELECT * FROM audit_copy";

e2e!(tampering_in_the_database_is_named_by_verify);
fn tampering_in_the_database_is_named_by_verify() {
    let server = Server::start();
    some_entries(&server, 2, 5);
    let db = server.kill();
    assert_eq!(verified(&db), 8);
    execute(&db, SET_ASIDE);
    let cases: [(&str, &str, u64, u64); 5] = [
        (
            "an edited action",
            "UPDATE audit_log SET action = 'device.delete' WHERE id = 3",
            8,
            3,
        ),
        (
            "a middle entry deleted: its successor is named",
            "DELETE FROM audit_log WHERE id = 4",
            7,
            5,
        ),
        (
            "two entries' ids swapped: the lower is named",
            "UPDATE audit_log SET id = 999999 WHERE id = 2; \
             UPDATE audit_log SET id = 2 WHERE id = 6; \
             UPDATE audit_log SET id = 6 WHERE id = 999999",
            8,
            2,
        ),
        (
            "the newest entry deleted: the head remembers it",
            "DELETE FROM audit_log WHERE id = 8",
            7,
            8,
        ),
        (
            "a detail that is no longer JSON",
            "UPDATE audit_log SET detail = 'not {json' WHERE id = 5",
            8,
            5,
        ),
    ];
    for (what, tampering, entries, id) in cases {
        execute(&db, tampering);
        let (counted, named, reason) = broken(&db);
        assert_eq!((counted, named), (entries, id), "{what}: {reason}");
        execute(&db, PUT_BACK);
        assert_eq!(verified(&db), 8, "{what}: put back");
    }
    execute(
        &db,
        "UPDATE audit_log SET detail = 'not {json' WHERE id = 5",
    );
    let (_, _, reason) = broken(&db);
    assert!(reason.contains("JSON"), "{reason}");
}

/// `devmgr --database-url URL audit ARGS…` in `dir`.
fn audit_at(dir: &Path, url: &str, args: &[&str]) -> std::process::Output {
    run(devmgr(dir)
        .args(["--database-url", url, "audit"])
        .args(args))
}

e2e!(a_log_that_cannot_be_read_exits_2_saying_why);
fn a_log_that_cannot_be_read_exits_2_saying_why() {
    // Never migrated (and, for SQLite, not even created).
    let db = Db::new();
    for args in [&["verify"][..], &["export"], &["export", "--since", "5"]] {
        let reason = unreadable(&audit_at(db.dir(), &db.url(), args));
        assert!(reason.contains("audit log"), "{reason}");
    }
    if db.url().starts_with("sqlite:") {
        assert!(!db.path().exists(), "verify made no database");
        std::fs::write(db.path(), b"").expect("an empty file");
        unreadable(&verify(&db));
        std::fs::write(db.path(), b"not a database at all, only some text").expect("a file");
        unreadable(&verify(&db));
    } else {
        let missing = db
            .url()
            .replace(db.postgres().name(), "no_such_devmgr_database");
        unreadable(&audit_at(db.dir(), &missing, &["verify"]));
    }
}

/// Moves the first `k` entries' time back 400 days and re-seals the whole
/// chain with the tests' own hashing (and the head with it): a log that
/// is intact and whose oldest entries are past the default retention.
fn age_and_reseal(db: &Db, entries: &[Value], k: usize) {
    let mut previous = GENESIS.to_owned();
    let mut statements = String::new();
    for (n, entry) in entries.iter().enumerate() {
        let mut entry = entry.clone();
        if n < k {
            let time =
                chrono::NaiveDateTime::parse_from_str(&string(&entry, "time"), "%Y-%m-%dT%H:%M:%S")
                    .expect("an entry's time");
            let aged = (time - chrono::Duration::days(400)).format("%Y-%m-%dT%H:%M:%S");
            entry["time"] = json!(aged.to_string());
        }
        entry["previous_hash"] = json!(previous);
        let hash = hash_of(&entry);
        statements.push_str(&format!(
            "UPDATE audit_log SET time = {}, previous_hash = {}, hash = {} WHERE id = {};\n",
            sql_text(&string(&entry, "time")),
            sql_text(&previous),
            sql_text(&hash),
            entry["id"]
        ));
        previous = hash;
    }
    statements.push_str(&format!(
        "UPDATE audit_chain SET head_hash = {};",
        sql_text(&previous)
    ));
    execute(db, &statements);
}

e2e!(retention_deletes_old_entries_and_verification_starts_at_the_checkpoint);
fn retention_deletes_old_entries_and_verification_starts_at_the_checkpoint() {
    const N: u64 = 7;
    const K: u64 = 3;
    let server = Server::start();
    let (owner, serials) = some_entries(&server, 2, 4);
    let db = server.kill();
    let entries = export(&db, 0);
    assert_eq!(ids(&entries), (1..=N).collect::<Vec<_>>());
    age_and_reseal(&db, &entries, K as usize);
    assert_eq!(verified(&db), N, "re-sealed by the tests' own hashing");
    let resealed = export(&db, 0);
    assert_chained(&resealed, 1, GENESIS);

    let server = Server::builder().db(db.clone()).start();
    let deadline = Instant::now() + RETENTION_WITHIN;
    while export(&db, 0).len() as u64 != N - K {
        assert!(Instant::now() < deadline, "retention did not run");
        std::thread::sleep(Duration::from_millis(200));
    }
    assert_eq!(
        verified(&db),
        N - K,
        "verification starts at the checkpoint"
    );
    let page = audit_page(&server, &owner.token);
    assert_eq!(page["count"], N - K, "{page:#}");
    let mut listed = ids(page["results"].as_array().expect("results"));
    listed.reverse();
    assert_eq!(listed, (K + 1..=N).collect::<Vec<_>>());

    server
        .post(&format!("/devices/{}/reboot/", serials[0]))
        .token(&owner.token)
        .send()
        .expect_status(202);
    let newest = &audit_page(&server, &owner.token)["results"][0];
    assert_eq!(newest["id"], N + 1, "{newest:#}");
    assert_eq!(
        newest["previous_hash"],
        resealed[N as usize - 1]["hash"],
        "{newest:#}"
    );
    assert_eq!(verified(&db), N - K + 1);
}

e2e!(a_retention_of_zero_or_not_a_number_is_refused: sqlite);
fn a_retention_of_zero_or_not_a_number_is_refused() {
    let db = Db::new();
    for days in ["0", "-3", "a year", "1.5"] {
        let option = format!("--audit-retention-days={days}");
        let args = ["serve", "--bind", "127.0.0.1:0", &option];
        let output = db.run_for(&args, Duration::from_secs(30));
        assert_refused(&output, &args.join(" "));
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains("whole number of days"), "{days}: {stderr}");
    }
    let config = db.dir().join("devmgr.toml");
    std::fs::write(&config, "audit_retention_days = 0\n").expect("a configuration file");
    let config = config.display().to_string();
    let args = ["--config", &config, "serve", "--bind", "127.0.0.1:0"];
    let output = db.run_for(&args, Duration::from_secs(30));
    assert_refused(&output, &args.join(" "));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("whole number of days"), "{stderr}");
    // A retention of a day or more is taken.
    let server = Server::builder()
        .db(db)
        .args(&["--audit-retention-days", "1"])
        .start();
    assert_eq!(verified(&server.db), 0);
}

fn audit_page_doc() -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/audit.md");
    std::fs::read_to_string(path).expect("docs/audit.md is there")
}

/// The page's one ```python block.
fn python_checker() -> String {
    let page = audit_page_doc();
    let blocks: Vec<&str> = page
        .split("```python\n")
        .skip(1)
        .map(|rest| rest.split("```").next().unwrap_or_default())
        .collect();
    assert_eq!(blocks.len(), 1, "docs/audit.md has one Python block");
    blocks[0].to_owned()
}

/// Runs the page's checker on `export` (JSON lines), with `hash` as the
/// entry before the first line if given: its exit status and what it printed.
fn run_checker(dir: &Path, export: &str, hash: Option<&str>) -> (Option<i32>, String) {
    let script = dir.join("check_audit.py");
    std::fs::write(&script, python_checker()).expect("the checker is written");
    let file = dir.join("audit.jsonl");
    std::fs::write(&file, export).expect("the export is written");
    let mut command = Command::new("python3");
    command.arg("-I").arg(&script).arg(&file).args(hash);
    let output = command.stdin(Stdio::null()).output().expect("python3 runs");
    (
        output.status.code(),
        String::from_utf8_lossy(&output.stdout).trim().to_owned(),
    )
}

/// The export as `devmgr audit export` prints it.
fn export_text(db: &Db, since: u64) -> String {
    let output = db.run(&["audit", "export", "--since", &since.to_string()]);
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    String::from_utf8(output.stdout).expect("UTF-8")
}

e2e!(the_python_checker_of_the_docs_verifies_a_real_export: sqlite);
fn the_python_checker_of_the_docs_verifies_a_real_export() {
    let server = Server::start();
    // An address with characters JSON writers might escape (`/`, `'`, braces).
    let owner = server.account("o'hara/ops+{audit}@example.com");
    let serial = server.device_serial(&owner.email);
    server
        .patch(&format!("/devices/{serial}/"))
        .token(&owner.token)
        .json(&json!({"name": "Zoë's Pi", "description": "über"}))
        .send()
        .expect_status(200);
    for _ in 0..2 {
        server
            .post(&format!("/devices/{serial}/reboot/"))
            .token(&owner.token)
            .send()
            .expect_status(202);
    }
    let entries = export(&server.db, 0);
    let last = entries.last().expect("entries");
    let dir = tempfile::tempdir().expect("a folder");

    let (status, said) = run_checker(dir.path(), &export_text(&server.db, 0), None);
    assert_eq!(
        (status, said),
        (
            Some(0),
            format!(
                "intact: 5 entries, the last 5 with hash {}",
                string(last, "hash")
            )
        )
    );

    // An export --since, checked against the hash of the entry before it.
    let third = string(&entries[2], "hash");
    let (status, said) = run_checker(dir.path(), &export_text(&server.db, 3), Some(&third));
    assert_eq!(status, Some(0), "{said}");
    assert!(said.starts_with("intact: 2 entries, the last 5"), "{said}");
    let (status, said) = run_checker(dir.path(), &export_text(&server.db, 3), Some(GENESIS));
    assert_eq!(status, Some(1), "{said}");
    assert!(said.starts_with("broken at entry 4:"), "{said}");

    // One line edited: the checker names it.
    let edited = export_text(&server.db, 0).replacen("device.reboot", "device.delete", 1);
    let (status, said) = run_checker(dir.path(), &edited, None);
    assert_eq!(status, Some(1), "{said}");
    assert_eq!(
        said,
        "broken at entry 4: its hash does not match its content"
    );
}
