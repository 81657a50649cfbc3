//! What only SQLite has: the file itself (no secret in plain text, the rows
//! as stored), migrations, and two processes writing one file at once.
//!
//! Everything the ports show is in the repository contract
//! (`tests/store-contract`), which `tests/contract.rs` runs on SQLite.

use adapters_sqlite::SqliteStore;
use application::ports::{
    AccountRepository, CommandRepository, ConsoleSessionRepository, DeviceRepository,
    TokenRepository,
};
use chrono::Duration;
use domain::Serial;
use domain::secret::SecretHash;
use std::path::{Path, PathBuf};
use std::process::Command;
use store_contract::{command_id, device, done, failed, new_account, t0};

/// A fresh database file, migrated.
struct Fixture {
    _dir: tempfile::TempDir,
    path: PathBuf,
    store: SqliteStore,
}

fn fixture() -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("db.sqlite");
    let store = SqliteStore::open(&path).unwrap();
    store.migrate().unwrap();
    Fixture {
        _dir: dir,
        path,
        store,
    }
}

// --- Secrets in the file ----------------------------------------------------------

/// The file part of the former `tokens_are_stored_only_as_hashes_and_revoked_one_by_one`
/// (revocation is in the contract: `tokens_are_revoked_one_by_one`).
/// Console sessions likewise.
#[tokio::test]
async fn tokens_and_console_sessions_are_stored_only_as_hashes() {
    let f = fixture();
    let account = AccountRepository::create(
        &f.store,
        new_account("a@example.com", Some("first-token")),
        &store_contract::noted(domain::AuditAction::AccountCreate),
    )
    .await
    .unwrap();
    f.store
        .issue(account.id, &SecretHash::of("second-token"), t0(), None)
        .await
        .unwrap();
    f.store
        .revoke(&SecretHash::of("first-token"), None)
        .await
        .unwrap();
    f.store
        .open_session(account.id, &SecretHash::of("console-secret"), t0())
        .await
        .unwrap();

    let raw = std::fs::read(&f.path).unwrap();
    let wal = std::fs::read(f.path.with_extension("sqlite-wal")).unwrap_or_default();
    for bytes in [raw, wal] {
        let text = String::from_utf8_lossy(&bytes);
        for token in ["first-token", "second-token", "console-secret"] {
            assert!(!text.contains(token), "{token} is stored in plain text");
        }
    }
}

// --- One view per request ----------------------------------------------------------

/// The name of `serial` as a read through the store sees it.
async fn name_of(store: &SqliteStore, owner: domain::AccountId, serial: &Serial) -> String {
    let found = store.find_for(owner, serial).await.unwrap();
    found.expect("the device").name.as_str().to_owned()
}

/// The reads of a view (a request's, `application::view`) see one commit,
/// so another process's commit made meanwhile is not seen, until a write
/// of the store's own, grouped or not, ends the view's snapshot.
#[tokio::test]
async fn a_views_reads_see_one_commit_until_the_store_writes() {
    let f = fixture();
    let serial = devices_with_reboots(&f.store, &[(1, "first")])
        .await
        .remove(0);
    let ann = domain::EmailAddress::parse("ann@example.com").unwrap();
    let owner = f.store.find_by_email(&ann).await.unwrap().expect("ann").id;
    let by_the_cli = |name: &str| {
        rusqlite::Connection::open(&f.path)
            .unwrap()
            .execute(
                "UPDATE devices SET name = ?1 WHERE serial = ?2",
                [name, serial.as_str()],
            )
            .unwrap();
    };
    application::view::in_one_view(async {
        assert_eq!(name_of(&f.store, owner, &serial).await, "device-1");
        by_the_cli("renamed");
        assert_eq!(name_of(&f.store, owner, &serial).await, "device-1");
        let second = command_id("second");
        let reboot = f.store.queue_reboot(&serial, &second, t0(), t0(), None);
        reboot.await.unwrap();
        assert_eq!(
            name_of(&f.store, owner, &serial).await,
            "renamed",
            "a grouped write"
        );
        by_the_cli("renamed again");
        assert_eq!(name_of(&f.store, owner, &serial).await, "renamed");
        let token = SecretHash::of("a-token");
        f.store.issue(owner, &token, t0(), None).await.unwrap();
        assert_eq!(
            name_of(&f.store, owner, &serial).await,
            "renamed again",
            "a write"
        );
        by_the_cli("renamed once more");
    })
    .await;
    assert_eq!(name_of(&f.store, owner, &serial).await, "renamed once more");
}

// --- Command outcomes, as stored ----------------------------------------------------

/// The stored outcome of the command [`command_id`]`(id)`, read straight from the file.
fn stored_outcome(path: &Path, id: &str) -> (Option<String>, Option<String>) {
    let conn = rusqlite::Connection::open(path).unwrap();
    conn.query_row(
        "SELECT status, detail FROM device_commands WHERE id = ?1",
        [command_id(id).as_str()],
        |row| Ok((row.get(0)?, row.get(1)?)),
    )
    .unwrap()
}

/// Creates ann and, for each `(serial_byte, id)`, her device of that serial
/// byte with the reboot `id` queued at [`t0`]; returns the serials.
async fn devices_with_reboots(store: &SqliteStore, reboots: &[(u8, &str)]) -> Vec<Serial> {
    let ann = AccountRepository::create(
        store,
        new_account("ann@example.com", None),
        &store_contract::noted(domain::AuditAction::AccountCreate),
    )
    .await
    .unwrap();
    let mut serials = Vec::new();
    for &(serial_byte, id) in reboots {
        let made = device(ann.id, serial_byte, t0());
        DeviceRepository::create(
            store,
            &made,
            &store_contract::noted(domain::AuditAction::DeviceCreate),
        )
        .await
        .unwrap();
        let queued = store
            .queue_reboot(
                &made.serial,
                &command_id(id),
                t0(),
                t0() - Duration::minutes(10),
                None,
            )
            .await
            .unwrap()
            .queued;
        assert!(queued, "set-up: the reboot {id} was not queued");
        serials.push(made.serial);
    }
    serials
}

/// The file part of `an_acknowledgement_is_recorded_once_for_the_devices_own_command`
/// (which acknowledgements are accepted is in the contract).
#[tokio::test]
async fn an_acknowledgement_is_stored_once_for_the_devices_own_command() {
    let f = fixture();
    let serials = devices_with_reboots(&f.store, &[(1, "c1"), (2, "c-other")]).await;
    let (pi, other) = (&serials[0], &serials[1]);
    let handed = f
        .store
        .take_due(
            pi,
            t0(),
            t0() - Duration::minutes(10),
            t0() - Duration::seconds(15),
        )
        .await
        .unwrap();
    assert_eq!(handed.len(), 1, "set-up: c1 was not handed out");
    assert_eq!(stored_outcome(&f.path, "c1"), (None, None));

    let at = t0() + Duration::minutes(1);
    let done = done("rebooted");
    f.store
        .acknowledge(pi, &command_id("c1"), &done, at)
        .await
        .unwrap();
    assert_eq!(
        stored_outcome(&f.path, "c1"),
        (Some("done".into()), Some("rebooted".into()))
    );

    // A second acknowledgement does not overwrite the first.
    let again = failed("again");
    f.store
        .acknowledge(pi, &command_id("c1"), &again, at + Duration::minutes(1))
        .await
        .unwrap();
    assert_eq!(
        stored_outcome(&f.path, "c1"),
        (Some("done".into()), Some("rebooted".into()))
    );

    // Neither does another device's.
    let not_mine = failed("not mine");
    f.store
        .acknowledge(pi, &command_id("c-other"), &not_mine, at)
        .await
        .unwrap();
    assert_eq!(stored_outcome(&f.path, "c-other"), (None, None));
    f.store
        .acknowledge(other, &command_id("c1"), &not_mine, at)
        .await
        .unwrap();
    assert_eq!(
        stored_outcome(&f.path, "c1"),
        (Some("done".into()), Some("rebooted".into()))
    );
}

/// The file part of `an_acknowledged_command_is_not_handed_out_later`: a
/// command acknowledged before it was handed out keeps its outcome.
#[tokio::test]
async fn an_acknowledgement_before_hand_out_is_stored() {
    let f = fixture();
    let serials = devices_with_reboots(&f.store, &[(1, "c1")]).await;
    let failed = failed("no permission");
    f.store
        .acknowledge(&serials[0], &command_id("c1"), &failed, t0())
        .await
        .unwrap();
    assert_eq!(
        stored_outcome(&f.path, "c1"),
        (Some("failed".into()), Some("no permission".into()))
    );
}

/// The database, its `-wal` and its `-shm` are readable by their owner only,
/// whatever the umask, also when the file existed with looser permissions.
#[tokio::test]
async fn the_database_files_are_private() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("db.sqlite");
    std::fs::write(&path, "").unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
    let store = SqliteStore::open(&path).unwrap();
    store.migrate().unwrap();
    AccountRepository::create(
        &store,
        new_account("a@example.com", Some("t")),
        &store_contract::noted(domain::AuditAction::AccountCreate),
    )
    .await
    .unwrap();
    for suffix in ["", "-wal", "-shm"] {
        let file = dir.path().join(format!("db.sqlite{suffix}"));
        let mode = std::fs::metadata(&file).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600, "{}", file.display());
    }
}

// --- Migrations -----------------------------------------------------------------------

#[test]
fn migrating_twice_is_harmless() {
    let dir = tempfile::tempdir().unwrap();
    let store = SqliteStore::open(&dir.path().join("db.sqlite")).unwrap();
    let version = store.migrate().unwrap();
    assert!(version >= 1);
    assert_eq!(store.migrate().unwrap(), version);
}

// --- Two processes, one file ------------------------------------------------------------

const WRITER_ENV: &str = "DEVMGR_TEST_WRITER";
const WRITES_PER_PROCESS: usize = 60;

/// Not a test of its own: the body of each writer process of the test below,
/// which runs it with `--ignored`.
#[tokio::test]
#[ignore = "run by two_processes_write_the_same_file_at_once"]
async fn writer_process() {
    let spec =
        std::env::var(WRITER_ENV).expect("started by two_processes_write_the_same_file_at_once");
    let (path, tag) = spec.split_once('|').unwrap();
    let store = SqliteStore::open(Path::new(path)).unwrap();
    store.migrate().unwrap();
    for i in 0..WRITES_PER_PROCESS {
        let account = AccountRepository::create(
            &store,
            new_account(
                &format!("{tag}-{i}@example.com"),
                Some(&format!("{tag}-{i}")),
            ),
            &store_contract::noted(domain::AuditAction::AccountCreate),
        )
        .await
        .unwrap();
        let serial_byte = if tag == "a" { 100 } else { 200 } + (i % 50) as u8;
        let mut d = device(account.id, serial_byte, t0());
        d.serial = Serial::parse(&format!(
            "00000000-0000-4000-8000-{:02x}{:010x}",
            serial_byte, i
        ))
        .unwrap();
        d.wormhole_slug = format!("{tag}-{i}");
        DeviceRepository::create(
            &store,
            &d,
            &store_contract::noted(domain::AuditAction::DeviceCreate),
        )
        .await
        .unwrap();
    }
}

#[test]
fn two_processes_write_the_same_file_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("shared.sqlite");
    let me = std::env::current_exe().unwrap();
    let writers: Vec<_> = ["a", "b"]
        .iter()
        .map(|tag| {
            Command::new(&me)
                .args(["--exact", "writer_process", "--ignored", "--nocapture"])
                .env(WRITER_ENV, format!("{}|{tag}", path.display()))
                .stdout(std::process::Stdio::null())
                .spawn()
                .unwrap()
        })
        .collect();
    for mut writer in writers {
        assert!(writer.wait().unwrap().success(), "a writer process failed");
    }
    let conn = rusqlite::Connection::open(&path).unwrap();
    let count = |sql: &str| conn.query_row(sql, [], |row| row.get::<_, i64>(0)).unwrap() as usize;
    assert_eq!(
        count("SELECT COUNT(*) FROM accounts"),
        2 * WRITES_PER_PROCESS
    );
    assert_eq!(
        count("SELECT COUNT(*) FROM devices"),
        2 * WRITES_PER_PROCESS
    );
    assert_eq!(
        count("SELECT COUNT(*) FROM api_tokens"),
        2 * WRITES_PER_PROCESS
    );
    let integrity: String = conn
        .query_row("PRAGMA integrity_check", [], |row| row.get(0))
        .unwrap();
    assert_eq!(integrity, "ok");
}
