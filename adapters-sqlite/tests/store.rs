//! The SQLite repositories against a real database file.

use adapters_sqlite::SqliteStore;
use application::mail::Email;
use application::ports::{
    AccountRepository, CommandRepository, CreateAccountError, CreateDeviceError, DeviceRepository,
    EmailKeyRepository, KeyPurpose, MailedKey, NewAccount, NewEmailKey, TokenRepository,
};
use chrono::{Duration, TimeZone, Utc};
use domain::secret::SecretHash;
use domain::{AccountId, Device, DeviceFacts, EmailAddress, MachineType, Serial, Timestamp};
use std::path::Path;
use std::process::Command;

fn t0() -> Timestamp {
    Utc.with_ymd_and_hms(2026, 5, 1, 8, 0, 0).unwrap()
}

fn open(path: &Path) -> SqliteStore {
    let store = SqliteStore::open(path).unwrap();
    store.migrate().unwrap();
    store
}

fn new_account(email: &str, token: Option<&str>) -> NewAccount {
    NewAccount {
        email: EmailAddress::parse(email).unwrap(),
        name: "Name".into(),
        password_hash: Some("$argon2id$fake".into()),
        email_verified: true,
        install_token: format!("install-{email}"),
        created_time: t0(),
        first_token: token.map(SecretHash::of),
        verification: Some(MailedKey {
            key: NewEmailKey {
                hash: SecretHash::of(&format!("key-{email}")),
                purpose: KeyPurpose::VerifyEmail,
                expires: t0() + Duration::hours(72),
            },
            mail: Email {
                id: format!("mail-{email}"),
                to: email.into(),
                subject: "Confirm".into(),
                text: "text".into(),
                html: "html".into(),
            },
            created: t0(),
        }),
    }
}

fn device(owner: AccountId, serial_byte: u8, created: Timestamp) -> Device {
    Device {
        serial: Serial::from_random_bytes([serial_byte; 16]),
        owner,
        name: format!("device-{serial_byte}"),
        description: "desc".into(),
        wormhole_slug: format!("slug-{serial_byte}"),
        facts: DeviceFacts {
            agent_version: "1.0".into(),
            operating_system: "Debian".into(),
            uname: "Linux".into(),
            machine_type: MachineType::from_code("rpi_4b").unwrap(),
            disk_capacity: Some(1 << 35),
            disk_used: None,
            processor_speed: 1500,
            ram_capacity: 4096,
        },
        last_seen: Some(created),
        created_time: created,
    }
}

#[tokio::test]
async fn accounts_are_unique_ignoring_case_and_created_with_their_token() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(&dir.path().join("db.sqlite"));
    let account = AccountRepository::create(&store, new_account("Ann@Example.com", Some("tok-1")))
        .await
        .unwrap();
    assert_eq!(account.email.as_str(), "Ann@example.com");

    let duplicate =
        AccountRepository::create(&store, new_account("ANN@example.COM", Some("tok-2"))).await;
    assert!(matches!(duplicate, Err(CreateAccountError::DuplicateEmail)));
    // The failed creation left nothing behind: its token does not exist.
    assert!(
        store
            .account_for(&SecretHash::of("tok-2"))
            .await
            .unwrap()
            .is_none()
    );

    let found = store
        .find_by_email(&EmailAddress::parse("ann@EXAMPLE.com").unwrap())
        .await
        .unwrap();
    assert_eq!(found, Some(account.clone()));
    let by_token = store.account_for(&SecretHash::of("tok-1")).await.unwrap();
    assert_eq!(by_token, Some(account));
}

#[tokio::test]
async fn tokens_are_stored_only_as_hashes_and_revoked_one_by_one() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("db.sqlite");
    let store = open(&path);
    let account =
        AccountRepository::create(&store, new_account("a@example.com", Some("first-token")))
            .await
            .unwrap();
    store
        .issue(account.id, &SecretHash::of("second-token"), t0())
        .await
        .unwrap();
    store.revoke(&SecretHash::of("first-token")).await.unwrap();
    assert!(
        store
            .account_for(&SecretHash::of("first-token"))
            .await
            .unwrap()
            .is_none()
    );
    assert!(
        store
            .account_for(&SecretHash::of("second-token"))
            .await
            .unwrap()
            .is_some()
    );

    let raw = std::fs::read(&path).unwrap();
    let wal = std::fs::read(path.with_extension("sqlite-wal")).unwrap_or_default();
    for bytes in [raw, wal] {
        let text = String::from_utf8_lossy(&bytes);
        assert!(
            !text.contains("second-token"),
            "a token is stored in plain text"
        );
    }
}

#[tokio::test]
async fn names_passwords_and_keys_are_updated() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(&dir.path().join("db.sqlite"));
    let account = AccountRepository::create(&store, new_account("a@example.com", None))
        .await
        .unwrap();
    let renamed = store.update_name(account.id, "Ada Lovelace").await.unwrap();
    assert_eq!(renamed.name, "Ada Lovelace");
    store
        .set_password(account.id, "$argon2id$new")
        .await
        .unwrap();
    let reread = store.find_by_email(&account.email).await.unwrap().unwrap();
    assert_eq!(reread.password_hash.as_deref(), Some("$argon2id$new"));
    assert!(
        store
            .verify_email(&SecretHash::of("key-a@example.com"), t0())
            .await
            .unwrap()
    );
}

#[tokio::test]
async fn devices_are_listed_in_order_and_foreign_ones_are_invisible() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(&dir.path().join("db.sqlite"));
    let ann = AccountRepository::create(&store, new_account("ann@example.com", None))
        .await
        .unwrap();
    let bob = AccountRepository::create(&store, new_account("bob@example.com", None))
        .await
        .unwrap();
    let later = device(ann.id, 1, t0() + Duration::seconds(5));
    let first_b = device(ann.id, 9, t0());
    let first_a = device(ann.id, 2, t0());
    for d in [&later, &first_b, &first_a] {
        DeviceRepository::create(&store, d).await.unwrap();
    }
    let bobs = device(bob.id, 3, t0());
    DeviceRepository::create(&store, &bobs).await.unwrap();

    let listed = store.list_for(ann.id).await.unwrap();
    let mut expected = vec![first_a.clone(), first_b.clone()];
    expected.sort_by(|a, b| a.serial.cmp(&b.serial));
    expected.push(later.clone());
    assert_eq!(listed, expected);

    assert_eq!(
        store.find_for(ann.id, &later.serial).await.unwrap(),
        Some(later.clone())
    );
    assert_eq!(store.find_for(ann.id, &bobs.serial).await.unwrap(), None);

    let again = DeviceRepository::create(&store, &device(bob.id, 1, t0())).await;
    assert!(matches!(again, Err(CreateDeviceError::DuplicateSerial)));
}

/// A fresh database with one account and one device, for command tests.
async fn store_with_device(serial_byte: u8) -> (tempfile::TempDir, SqliteStore, Device) {
    let dir = tempfile::tempdir().unwrap();
    let store = open(&dir.path().join("db.sqlite"));
    let ann = AccountRepository::create(&store, new_account("ann@example.com", None))
        .await
        .unwrap();
    let pi = device(ann.id, serial_byte, t0());
    DeviceRepository::create(&store, &pi).await.unwrap();
    (dir, store, pi)
}

#[tokio::test]
async fn a_pending_reboot_is_queued_once_until_it_lapses() {
    let (_dir, store, pi) = store_with_device(4).await;
    let lapse = Duration::minutes(10);

    assert!(
        store
            .queue_reboot(&pi.serial, "c1", t0(), t0() - lapse)
            .await
            .unwrap()
    );
    let soon = t0() + Duration::minutes(3);
    assert!(
        !store
            .queue_reboot(&pi.serial, "c2", soon, soon - lapse)
            .await
            .unwrap()
    );
    let late = t0() + Duration::minutes(11);
    assert!(
        store
            .queue_reboot(&pi.serial, "c3", late, late - lapse)
            .await
            .unwrap()
    );
}

#[tokio::test]
async fn concurrent_reboots_queue_one_command() {
    let (_dir, store, pi) = store_with_device(5).await;
    let attempts = (0..16).map(|i| {
        let (store, serial) = (store.clone(), pi.serial.clone());
        tokio::spawn(async move {
            store
                .queue_reboot(
                    &serial,
                    &format!("c{i}"),
                    t0(),
                    t0() - Duration::minutes(10),
                )
                .await
        })
    });
    let mut queued = 0;
    for attempt in attempts {
        queued += usize::from(attempt.await.unwrap().unwrap());
    }
    assert_eq!(queued, 1);
}

#[test]
fn migrating_twice_is_harmless() {
    let dir = tempfile::tempdir().unwrap();
    let store = SqliteStore::open(&dir.path().join("db.sqlite")).unwrap();
    let version = store.migrate().unwrap();
    assert!(version >= 1);
    assert_eq!(store.migrate().unwrap(), version);
}

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
        DeviceRepository::create(&store, &d).await.unwrap();
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
