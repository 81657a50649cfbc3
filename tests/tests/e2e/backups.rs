//! `devmgr backup` and `devmgr restore` (docs/operations.md, "Backups"): a
//! consistent copy of a database a server is writing, and a backup put back
//! once no server uses the database.

use crate::device_support::*;
use crate::support::*;
use serde_json::json;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// The serials of the devices in an SQLite file, after SQLite's integrity
/// check passed on it.
#[track_caller]
fn serials_in(file: &Path) -> Vec<String> {
    let conn =
        rusqlite::Connection::open_with_flags(file, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
            .expect("the backup opens");
    let check: String = conn
        .query_row("PRAGMA integrity_check", [], |row| row.get(0))
        .expect("the integrity check runs");
    assert_eq!(check, "ok", "SQLite's integrity check of {file:?}");
    let mut statement = conn.prepare("SELECT serial FROM devices").unwrap();
    statement
        .query_map([], |row| row.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap()
}

e2e!(a_backup_taken_while_a_server_writes_has_every_acknowledged_write: sqlite);
fn a_backup_taken_while_a_server_writes_has_every_acknowledged_write() {
    let server = Server::builder().throttle_off().start();
    let alice = server.account("alice@example.com");
    // (when the 201 arrived, the serial it named)
    let acknowledged: Mutex<Vec<(Instant, String)>> = Mutex::new(Vec::new());
    let stop = AtomicBool::new(false);
    let file = server.db.dir().join("backups").join("devmgr-backup.db");
    std::fs::create_dir(file.parent().unwrap()).unwrap();
    let (started, output) = std::thread::scope(|scope| {
        for writer in 0..3 {
            let (server, alice, acknowledged, stop) = (&server, &alice, &acknowledged, &stop);
            scope.spawn(move || {
                let mut n = 0;
                while !stop.load(Ordering::SeqCst) {
                    n += 1;
                    let body = json!({"install_token": alice.install_token, "name": format!("w{writer}-{n}")});
                    let reply = install_call(server, &body);
                    reply.expect_status(201);
                    let serial = string(&reply.json(), "serial");
                    acknowledged.lock().unwrap().push((Instant::now(), serial));
                }
            });
        }
        std::thread::sleep(Duration::from_millis(400));
        let started = Instant::now();
        let output = server.db.run(&["backup", "--to", file.to_str().unwrap()]);
        std::thread::sleep(Duration::from_millis(200));
        stop.store(true, Ordering::SeqCst);
        (started, output)
    });
    let printed = stdout_json(&output, "backup --to FILE");
    assert_eq!(
        keys(&printed),
        ["backup", "bytes", "schema_version"],
        "{printed}"
    );
    assert_eq!(
        printed["backup"],
        std::fs::canonicalize(&file).unwrap().display().to_string()
    );
    let metadata = std::fs::metadata(&file).unwrap();
    assert_eq!(printed["bytes"], metadata.len());
    assert!(printed["schema_version"].as_u64() >= Some(1), "{printed}");
    assert_eq!(
        metadata.permissions().mode() & 0o777,
        0o600,
        "mode of the backup"
    );
    let in_backup = serials_in(&file);
    let acknowledged = acknowledged.into_inner().unwrap();
    let before: Vec<&String> = acknowledged
        .iter()
        .filter(|(at, _)| *at < started)
        .map(|(_, serial)| serial)
        .collect();
    assert!(
        before.len() >= 3,
        "the writers wrote before the backup began"
    );
    for serial in before {
        assert!(
            in_backup.contains(serial),
            "device {serial}, acknowledged before the backup began, is in the backup"
        );
    }
    // Nothing but the backup is left in its folder (no temporary file).
    let left: Vec<_> = std::fs::read_dir(file.parent().unwrap())
        .unwrap()
        .map(|entry| entry.unwrap().file_name())
        .collect();
    assert_eq!(left, [file.file_name().unwrap()]);
    // An existing file is never replaced.
    let again = server.db.run(&["backup", "--to", file.to_str().unwrap()]);
    assert_refused(&again, "backup --to an existing file");
    assert!(String::from_utf8_lossy(&again.stderr).contains("already exists"));
    assert_eq!(std::fs::metadata(&file).unwrap().len(), metadata.len());
}

/// A server on a fresh SQLite database with alice and her device "Before",
/// backed up, then her device "After"; returns the server, alice, the
/// backup's path and both devices' serials.
fn served_with_a_backup() -> (Server, Account, String, String, String) {
    let server = Server::start();
    let alice = server.account("alice@example.com");
    let before = install(&server, &alice, "Before").serial;
    let file = server.db.dir().join("before.db").display().to_string();
    server.cli(&["backup", "--to", &file]);
    let after = install(&server, &alice, "After").serial;
    (server, alice, file, before, after)
}

e2e!(restore_is_refused_while_a_server_uses_the_database_then_puts_the_backup_back: sqlite);
fn restore_is_refused_while_a_server_uses_the_database_then_puts_the_backup_back() {
    let (server, alice, file, before, after) = served_with_a_backup();
    let refused = server.db.run(&["restore", "--from", &file]);
    assert_refused(&refused, "restore while a server runs");
    assert_eq!(
        String::from_utf8_lossy(&refused.stderr).trim(),
        format!(
            "error: a devmgr server is using {}; stop it first (restore replaces the whole database)",
            server.db.url()
        )
    );
    assert_eq!(
        listed_serials(&server, &alice.token).len(),
        2,
        "nothing changed"
    );
    let db = server.kill();
    let restored = db.json(&["restore", "--from", &file]);
    assert_eq!(
        keys(&restored),
        ["from", "restored", "schema_version"],
        "{restored}"
    );
    assert_eq!(
        restored["restored"],
        std::fs::canonicalize(db.path())
            .unwrap()
            .display()
            .to_string()
    );
    let mode = std::fs::metadata(db.path()).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o600, "mode of the restored database");
    let server = Server::builder().db(db).start();
    let serials = listed_serials(&server, &alice.token);
    assert_eq!(serials, [before], "the backup's devices, not {after}");
    server.login_token(&alice.email, &alice.password);
}

e2e!(restore_refuses_files_that_are_not_intact_devmgr_backups: sqlite);
fn restore_refuses_files_that_are_not_intact_devmgr_backups() {
    let (server, alice, file, _, _) = served_with_a_backup();
    let db = server.kill();
    let dir = db.dir().to_owned();
    let refused = |from: &Path, says: &str| {
        let output = db.run(&["restore", "--from", from.to_str().unwrap()]);
        assert_refused(&output, &format!("restore --from {from:?}"));
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            stderr.contains(says),
            "stderr should say {says:?}:\n{stderr}"
        );
    };
    refused(&dir.join("missing.db"), "there is no database at");
    let text = dir.join("notes.txt");
    std::fs::write(
        &text,
        "not a database, only some text long enough to look like one".repeat(20),
    )
    .unwrap();
    refused(&text, "is not an SQLite database");
    let other = dir.join("other.db");
    let conn = rusqlite::Connection::open(&other).unwrap();
    conn.execute_batch("CREATE TABLE notes (body TEXT); INSERT INTO notes VALUES ('x');")
        .unwrap();
    drop(conn);
    refused(&other, "is not a devmgr database");
    let newer = dir.join("newer.db");
    std::fs::copy(&file, &newer).unwrap();
    let conn = rusqlite::Connection::open(&newer).unwrap();
    conn.execute(
        "INSERT INTO refinery_schema_history (version, name, applied_on, checksum) \
         VALUES (999, 'from_the_future', '2030-01-01T00:00:00Z', '1')",
        [],
    )
    .unwrap();
    drop(conn);
    refused(&newer, "newer than this devmgr knows");
    let damaged = dir.join("damaged.db");
    let mut bytes = std::fs::read(&file).unwrap();
    let page = 4096;
    for byte in &mut bytes[page..] {
        *byte = 0x5a;
    }
    std::fs::write(&damaged, bytes).unwrap();
    refused(&damaged, "is damaged");
    // None of that touched the database.
    let server = Server::builder().db(db).start();
    assert_eq!(listed_serials(&server, &alice.token).len(), 2);
}

e2e!(backup_and_restore_point_postgresql_to_its_own_tools: postgres);
fn backup_and_restore_point_postgresql_to_its_own_tools() {
    let db = Db::new();
    db.json(&["migrate"]);
    let says = |args: &[&str], expected: &str| {
        let output = db.run(args);
        assert_refused(&output, &args.join(" "));
        assert_eq!(String::from_utf8_lossy(&output.stderr).trim(), expected);
    };
    says(
        &["backup", "--to", "copy.db"],
        "error: devmgr backup copies SQLite databases; for PostgreSQL use pg_dump \
         (docs/operations.md, Backups)",
    );
    says(
        &["restore", "--from", "copy.db"],
        "error: devmgr restore replaces SQLite databases; for PostgreSQL use pg_restore or \
         psql with a pg_dump file (docs/operations.md, Backups)",
    );
    assert!(!db.dir().join("copy.db").exists());
}
