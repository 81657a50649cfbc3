//! One chain under concurrent writers, on one instance and on two (docs/audit.md).
//!
//! Many requests that each append an entry run at once; whatever order
//! they commit in, the log is one sequence: ids 1..N without gaps, each
//! entry linked to the one before it, and `devmgr audit verify` finds it
//! intact. On PostgreSQL two `devmgr serve` processes share the database
//! and so the chain's head.

use crate::alerts_support::device_monitor_body;
use crate::audit_support::*;
use crate::support::*;
use serde_json::{Value, json};

/// Writers at once: as many as one instance's pool of PostgreSQL
/// connections. Every audited change takes the chain's one lock until it
/// commits, so writers beyond that only wait longer in line (and, past the
/// store's 2 s budget for one try, get 503: docs/audit.md).
const WRITERS: usize = 16;
/// Changes each writer makes.
const CHANGES: usize = 12;
/// Devices the writers share.
const DEVICES: usize = 8;

/// Writer `writer`'s change number `n` on `server`: a reboot, a rename or
/// a new monitor in turn, each one entry.
fn change(server: &Server, token: &str, serials: &[String], writer: usize, n: usize) {
    let serial = &serials[(writer + n) % serials.len()];
    let (reply, status) = match n % 3 {
        0 => (
            server
                .post(&format!("/devices/{serial}/reboot/"))
                .token(token)
                .send(),
            202,
        ),
        1 => (
            server
                .patch(&format!("/devices/{serial}/"))
                .token(token)
                .json(&json!({"name": format!("Writer {writer} change {n}")}))
                .send(),
            200,
        ),
        _ => (
            server
                .post("/monitors/")
                .token(token)
                .json(&device_monitor_body(&format!(
                    "Writer {writer} monitor {n}"
                )))
                .send(),
            201,
        ),
    };
    reply.expect_status(status);
}

/// Runs [`WRITERS`] threads of [`CHANGES`] changes each at once, writer
/// `w` sending to `servers[w % servers.len()]`.
fn write_at_once(servers: &[&Server], token: &str, serials: &[String]) {
    std::thread::scope(|scope| {
        for writer in 0..WRITERS {
            let server = servers[writer % servers.len()];
            scope.spawn(move || {
                for n in 0..CHANGES {
                    change(server, token, serials, writer, n);
                }
            });
        }
    });
}

/// Asserts that the log holds exactly ids 1..=`expected`, chained, that
/// verify finds it intact, and that the account's log counts them all.
#[track_caller]
fn assert_one_sequence(server: &Server, token: &str, expected: u64) {
    let entries = export(&server.db, 0);
    assert_eq!(ids(&entries), (1..=expected).collect::<Vec<_>>());
    let mut previous = GENESIS.to_owned();
    for entry in &entries {
        assert_eq!(entry["previous_hash"], previous.as_str(), "{entry:#}");
        assert_eq!(string(entry, "hash"), hash_of(entry), "{entry:#}");
        previous = string(entry, "hash");
    }
    assert_eq!(verified(&server.db), expected);
    let page = audit_page(server, token);
    assert_eq!(page["count"], expected, "{}", page["count"]);
    let actions = |name: &str| {
        entries
            .iter()
            .filter(|entry| entry["action"] == name)
            .count()
    };
    let per_kind = WRITERS * CHANGES / 3;
    assert_eq!(actions("device.reboot"), per_kind);
    assert_eq!(actions("device.update"), per_kind);
    assert_eq!(actions("monitor.create"), per_kind);
}

/// An account with [`DEVICES`] devices (1 + DEVICES entries): its token and serials.
fn fleet(server: &Server) -> (String, Vec<String>) {
    let owner = server.account("ada@example.com");
    let serials = (0..DEVICES)
        .map(|_| server.device_serial(&owner.email))
        .collect();
    (owner.token, serials)
}

fn expected_entries() -> u64 {
    (1 + DEVICES + WRITERS * CHANGES) as u64
}

e2e!(concurrent_writers_on_one_instance_make_one_sequence: sqlite);
fn concurrent_writers_on_one_instance_make_one_sequence() {
    let server = Server::builder().throttle_off().start();
    let (token, serials) = fleet(&server);
    write_at_once(&[&server], &token, &serials);
    assert_one_sequence(&server, &token, expected_entries());
}

/// A `devmgr serve` process on `db`.
fn instance(db: Db) -> Server {
    Server::builder().db(db).throttle_off().process().start()
}

e2e!(concurrent_writers_on_two_instances_make_one_sequence: postgres; instances 2);
fn concurrent_writers_on_two_instances_make_one_sequence() {
    let db = Db::new();
    let a = instance(db.clone());
    let b = instance(db);
    let (token, serials) = fleet(&a);
    write_at_once(&[&a, &b], &token, &serials);
    assert_one_sequence(&a, &token, expected_entries());
    let newest: &Value = &audit_page(&b, &token)["results"][0];
    assert_eq!(newest["id"], expected_entries(), "{newest:#}");
}
