//! The device side against a real SQLite file: enrolment and device tokens,
//! edits and deletion, heartbeats and ports, commands and their listeners.

use adapters_sqlite::SqliteStore;
use application::ports::{
    AccountRepository, CommandRepository, DeviceChanges, DeviceRepository, EnrolError, Enrolment,
    NewAccount,
};
use chrono::{TimeZone, Utc};
use domain::port::normalize_ports;
use domain::secret::SecretHash;
use domain::{
    Account, AccountId, Command, CommandOutcome, CommandStatus, Device, DeviceFacts, EmailAddress,
    FactsReport, MachineType, Port, Protocol, Serial, Timestamp,
};
use std::path::{Path, PathBuf};
use std::time::Duration;

fn t0() -> Timestamp {
    Utc.with_ymd_and_hms(2026, 5, 1, 8, 0, 0).unwrap()
}

fn minutes(n: i64) -> chrono::Duration {
    chrono::Duration::minutes(n)
}

/// How long an undelivered command stays pending, in these tests.
fn lapse() -> chrono::Duration {
    minutes(10)
}

struct Fixture {
    _dir: tempfile::TempDir,
    path: PathBuf,
    store: SqliteStore,
}

fn open() -> Fixture {
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

async fn account(store: &SqliteStore, name: &str) -> Account {
    AccountRepository::create(
        store,
        NewAccount {
            email: EmailAddress::parse(&format!("{name}@example.com")).unwrap(),
            name: name.into(),
            password_hash: Some("$argon2id$fake".into()),
            email_verified: true,
            install_token: format!("install-{name}"),
            created_time: t0(),
            first_token: None,
            verification: None,
        },
    )
    .await
    .unwrap()
}

fn serial(byte: u8) -> Serial {
    Serial::from_random_bytes([byte; 16])
}

fn rpi_4b() -> MachineType {
    MachineType::from_code("rpi_4b").unwrap()
}

/// An enrolment of `serial` into `owner` with the device token `token`.
fn enrolment(owner: AccountId, serial: &Serial, token: &str) -> Enrolment {
    Enrolment {
        owner,
        serial: serial.clone(),
        name: format!("pi-{token}"),
        machine_type: None,
        token: SecretHash::of(token),
        wormhole_slug: format!("slug-{token}"),
        now: t0(),
    }
}

async fn enrol(store: &SqliteStore, owner: AccountId, serial: &Serial, token: &str) -> Device {
    store
        .enroll(&enrolment(owner, serial, token))
        .await
        .unwrap()
}

/// A device made by `DeviceRepository::create`: with facts, without a token.
fn created_device(owner: AccountId, serial_byte: u8) -> Device {
    Device {
        serial: serial(serial_byte),
        owner,
        name: format!("device-{serial_byte}"),
        description: "made by hand".into(),
        wormhole_slug: format!("created-{serial_byte}"),
        facts: DeviceFacts {
            agent_version: "1.0".into(),
            operating_system: "Debian".into(),
            uname: "Linux".into(),
            machine_type: rpi_4b(),
            disk_capacity: Some(1 << 35),
            disk_used: Some(1 << 30),
            processor_speed: 1500,
            ram_capacity: 4096,
        },
        last_seen: Some(t0()),
        created_time: t0(),
    }
}

fn port(number: u16, protocol: Protocol, name: &str) -> Port {
    Port::new(number, protocol, name.into()).unwrap()
}

/// A heartbeat report carrying every fact and no ports.
fn report() -> FactsReport {
    FactsReport {
        agent_version: Some("2.0".into()),
        operating_system: Some("Raspberry Pi OS 12".into()),
        uname: Some("Linux pi 6.1.0".into()),
        machine_type: Some(rpi_4b()),
        disk_capacity: Some(Some(64_000_000_000)),
        disk_used: Some(Some(8_000_000_000)),
        processor_speed: Some(1800),
        ram_capacity: Some(8192),
        ports: None,
    }
}

/// A report of only these ports (normalized, as the use case does).
fn ports_report(ports: Vec<Port>) -> FactsReport {
    FactsReport {
        ports: Some(normalize_ports(ports)),
        ..FactsReport::default()
    }
}

fn done(detail: &str) -> CommandOutcome {
    CommandOutcome {
        status: CommandStatus::Done,
        detail: detail.into(),
    }
}

fn failed(detail: &str) -> CommandOutcome {
    CommandOutcome {
        status: CommandStatus::Failed,
        detail: detail.into(),
    }
}

/// Queues a reboot issued at `at`, lapsing the usual time before.
async fn queue(store: &SqliteStore, device: &Serial, id: &str, at: Timestamp) -> bool {
    store
        .queue_reboot(device, id, at, at - lapse())
        .await
        .unwrap()
}

/// Takes the pending commands at `at`, lapsing the usual time before.
/// Acknowledges a command; whether the device has it.
async fn ack(
    store: &SqliteStore,
    device: &Serial,
    id: &str,
    outcome: CommandOutcome,
    at: Timestamp,
) -> bool {
    store.acknowledge(device, id, &outcome, at).await.unwrap()
}

/// A fresh store with account "ann" and her device `serial(1)`, enrolled.
async fn one_enrolled_device() -> (Fixture, Serial) {
    let f = open();
    let ann = account(&f.store, "ann").await;
    let pi = serial(1);
    enrol(&f.store, ann.id, &pi, "tok").await;
    (f, pi)
}

async fn take(store: &SqliteStore, device: &Serial, at: Timestamp) -> Vec<Command> {
    store.take_pending(device, at, at - lapse()).await.unwrap()
}

fn ids(commands: &[Command]) -> Vec<&str> {
    commands.iter().map(|c| c.id.as_str()).collect()
}

/// The stored outcome of a command, read straight from the file.
fn stored_outcome(path: &Path, id: &str) -> (Option<String>, Option<String>) {
    let conn = rusqlite::Connection::open(path).unwrap();
    conn.query_row(
        "SELECT status, detail FROM device_commands WHERE id = ?1",
        [id],
        |row| Ok((row.get(0)?, row.get(1)?)),
    )
    .unwrap()
}

// --- Install tokens ---------------------------------------------------------

#[tokio::test]
async fn an_install_token_finds_its_account() {
    let f = open();
    let ann = account(&f.store, "ann").await;
    let _bob = account(&f.store, "bob").await;
    let found = f.store.find_by_install_token("install-ann").await.unwrap();
    assert_eq!(found, Some(ann));
    assert_eq!(
        f.store
            .find_by_install_token("install-nobody")
            .await
            .unwrap(),
        None
    );
}

// --- Enrolment ----------------------------------------------------------------

#[tokio::test]
async fn enrolling_a_new_serial_creates_a_bare_device() {
    let f = open();
    let ann = account(&f.store, "ann").await;
    let pi = serial(1);
    let mut e = enrolment(ann.id, &pi, "tok-1");
    e.now = t0() + minutes(5);
    let device = f.store.enroll(&e).await.unwrap();

    let expected = Device {
        serial: pi.clone(),
        owner: ann.id,
        name: "pi-tok-1".into(),
        description: String::new(),
        wormhole_slug: "slug-tok-1".into(),
        facts: DeviceFacts::default(),
        last_seen: None,
        created_time: t0() + minutes(5),
    };
    assert_eq!(device, expected);
    assert_eq!(device.facts.machine_type, MachineType::UNKNOWN);
    assert!(!device.is_online(t0() + minutes(5), chrono::Duration::seconds(90)));
    assert_eq!(
        f.store
            .find_by_token(&SecretHash::of("tok-1"))
            .await
            .unwrap(),
        Some(expected.clone())
    );
    assert_eq!(f.store.list_for(ann.id).await.unwrap(), vec![expected]);
}

#[tokio::test]
async fn enrolling_a_new_serial_keeps_the_machine_type_sent() {
    let f = open();
    let ann = account(&f.store, "ann").await;
    let mut e = enrolment(ann.id, &serial(1), "tok-1");
    e.machine_type = Some(rpi_4b());
    let device = f.store.enroll(&e).await.unwrap();
    assert_eq!(device.facts.machine_type, rpi_4b());
    assert_eq!(
        device.facts,
        DeviceFacts {
            machine_type: rpi_4b(),
            ..DeviceFacts::default()
        }
    );
}

#[tokio::test]
async fn enrolling_again_rekeys_and_renames_but_keeps_everything_else() {
    let f = open();
    let ann = account(&f.store, "ann").await;
    let pi = serial(1);
    let mut first = enrolment(ann.id, &pi, "old-token");
    first.machine_type = Some(MachineType::from_code("rpi_3b").unwrap());
    f.store.enroll(&first).await.unwrap();
    f.store
        .update(
            ann.id,
            &pi,
            &DeviceChanges {
                name: None,
                description: Some("in the attic".into()),
            },
        )
        .await
        .unwrap()
        .unwrap();
    let mut facts = report();
    facts.ports = Some(vec![port(22, Protocol::Tcp, "sshd")]);
    f.store
        .record_heartbeat(&pi, &facts, t0() + minutes(1))
        .await
        .unwrap();
    assert!(queue(&f.store, &pi, "reboot-1", t0() + minutes(2)).await);
    let before = f.store.find_for(ann.id, &pi).await.unwrap().unwrap();

    // Again with a machine type: the type changes too.
    let mut again = enrolment(ann.id, &pi, "new-token");
    again.name = "renamed".into();
    again.machine_type = Some(MachineType::from_code("rpi_5").unwrap());
    again.wormhole_slug = "another-slug".into();
    again.now = t0() + minutes(3);
    let rekeyed = f.store.enroll(&again).await.unwrap();
    let expected = Device {
        name: "renamed".into(),
        facts: DeviceFacts {
            machine_type: MachineType::from_code("rpi_5").unwrap(),
            ..before.facts.clone()
        },
        ..before.clone()
    };
    assert_eq!(rekeyed, expected);
    assert_eq!(rekeyed.wormhole_slug, before.wormhole_slug);
    assert_eq!(rekeyed.description, "in the attic");
    assert_eq!(rekeyed.created_time, t0());
    assert_eq!(
        f.store.find_for(ann.id, &pi).await.unwrap(),
        Some(expected.clone())
    );
    assert_eq!(
        f.store
            .find_by_token(&SecretHash::of("old-token"))
            .await
            .unwrap(),
        None
    );
    assert_eq!(
        f.store
            .find_by_token(&SecretHash::of("new-token"))
            .await
            .unwrap(),
        Some(expected.clone())
    );

    // Again without a machine type: the type stays.
    let mut third = enrolment(ann.id, &pi, "third-token");
    third.name = "renamed again".into();
    let rekeyed = f.store.enroll(&third).await.unwrap();
    assert_eq!(
        rekeyed,
        Device {
            name: "renamed again".into(),
            ..expected
        }
    );
    assert_eq!(
        f.store
            .find_by_token(&SecretHash::of("new-token"))
            .await
            .unwrap(),
        None
    );

    assert_eq!(
        f.store.ports(ann.id, &pi).await.unwrap(),
        Some(vec![port(22, Protocol::Tcp, "sshd")])
    );
    assert_eq!(
        ids(&take(&f.store, &pi, t0() + minutes(4)).await),
        ["reboot-1"]
    );
    assert_eq!(f.store.list_for(ann.id).await.unwrap().len(), 1);
}

#[tokio::test]
async fn a_serial_of_another_account_cannot_enrol() {
    let f = open();
    let ann = account(&f.store, "ann").await;
    let bob = account(&f.store, "bob").await;
    let pi = serial(1);
    let bobs = enrol(&f.store, bob.id, &pi, "bob-token").await;
    f.store
        .record_heartbeat(
            &pi,
            &ports_report(vec![port(80, Protocol::Tcp, "nginx")]),
            t0(),
        )
        .await
        .unwrap();
    let bobs = f
        .store
        .find_for(bob.id, &bobs.serial)
        .await
        .unwrap()
        .unwrap();

    let mut e = enrolment(ann.id, &pi, "ann-token");
    e.machine_type = Some(rpi_4b());
    let refused = f.store.enroll(&e).await;
    assert!(
        matches!(refused, Err(EnrolError::ForeignSerial)),
        "{refused:?}"
    );

    assert_eq!(
        f.store.find_for(bob.id, &pi).await.unwrap(),
        Some(bobs.clone())
    );
    assert_eq!(
        f.store
            .find_by_token(&SecretHash::of("bob-token"))
            .await
            .unwrap(),
        Some(bobs)
    );
    assert_eq!(
        f.store
            .find_by_token(&SecretHash::of("ann-token"))
            .await
            .unwrap(),
        None
    );
    assert_eq!(f.store.find_for(ann.id, &pi).await.unwrap(), None);
    assert!(f.store.list_for(ann.id).await.unwrap().is_empty());
    assert_eq!(
        f.store.ports(bob.id, &pi).await.unwrap(),
        Some(vec![port(80, Protocol::Tcp, "nginx")])
    );
}

#[tokio::test]
async fn a_device_created_without_a_token_is_enrolled_by_its_owner() {
    let f = open();
    let ann = account(&f.store, "ann").await;
    let made = created_device(ann.id, 7);
    DeviceRepository::create(&f.store, &made).await.unwrap();

    let mut e = enrolment(ann.id, &made.serial, "first-token");
    e.name = "enrolled".into();
    let enrolled = f.store.enroll(&e).await.unwrap();
    let expected = Device {
        name: "enrolled".into(),
        ..made
    };
    assert_eq!(enrolled, expected);
    assert_eq!(
        f.store
            .find_by_token(&SecretHash::of("first-token"))
            .await
            .unwrap(),
        Some(expected)
    );
}

// --- Edits and deletion -------------------------------------------------------

#[tokio::test]
async fn an_update_changes_only_the_fields_given() {
    let f = open();
    let ann = account(&f.store, "ann").await;
    let made = created_device(ann.id, 1);
    DeviceRepository::create(&f.store, &made).await.unwrap();

    let renamed = f
        .store
        .update(
            ann.id,
            &made.serial,
            &DeviceChanges {
                name: Some("kitchen".into()),
                description: None,
            },
        )
        .await
        .unwrap();
    let expected = Device {
        name: "kitchen".into(),
        ..made.clone()
    };
    assert_eq!(renamed, Some(expected.clone()));

    let described = f
        .store
        .update(
            ann.id,
            &made.serial,
            &DeviceChanges {
                name: None,
                description: Some("by the fridge".into()),
            },
        )
        .await
        .unwrap();
    let expected = Device {
        description: "by the fridge".into(),
        ..expected
    };
    assert_eq!(described, Some(expected.clone()));

    let both = f
        .store
        .update(
            ann.id,
            &made.serial,
            &DeviceChanges {
                name: Some("hall".into()),
                description: Some(String::new()),
            },
        )
        .await
        .unwrap();
    let expected = Device {
        name: "hall".into(),
        description: String::new(),
        ..expected
    };
    assert_eq!(both, Some(expected.clone()));

    let nothing = f
        .store
        .update(ann.id, &made.serial, &DeviceChanges::default())
        .await
        .unwrap();
    assert_eq!(nothing, Some(expected.clone()));
    assert_eq!(
        f.store.find_for(ann.id, &made.serial).await.unwrap(),
        Some(expected)
    );
}

#[tokio::test]
async fn an_update_of_a_foreign_or_missing_device_changes_nothing() {
    let f = open();
    let ann = account(&f.store, "ann").await;
    let bob = account(&f.store, "bob").await;
    let bobs = created_device(bob.id, 1);
    DeviceRepository::create(&f.store, &bobs).await.unwrap();
    let changes = DeviceChanges {
        name: Some("stolen".into()),
        description: Some("mine now".into()),
    };

    assert_eq!(
        f.store
            .update(ann.id, &bobs.serial, &changes)
            .await
            .unwrap(),
        None
    );
    assert_eq!(
        f.store.update(bob.id, &serial(2), &changes).await.unwrap(),
        None
    );
    assert_eq!(
        f.store.find_for(bob.id, &bobs.serial).await.unwrap(),
        Some(bobs)
    );
    assert!(f.store.list_for(ann.id).await.unwrap().is_empty());
    assert_eq!(f.store.list_for(bob.id).await.unwrap().len(), 1);
}

#[tokio::test]
async fn a_deleted_device_goes_with_its_token_ports_and_commands() {
    let f = open();
    let ann = account(&f.store, "ann").await;
    let pi = serial(1);
    let kept = serial(2);
    enrol(&f.store, ann.id, &pi, "pi-token").await;
    enrol(&f.store, ann.id, &kept, "kept-token").await;
    f.store
        .record_heartbeat(
            &pi,
            &ports_report(vec![port(22, Protocol::Tcp, "sshd")]),
            t0(),
        )
        .await
        .unwrap();
    assert!(queue(&f.store, &pi, "handed-out", t0()).await);
    assert_eq!(ids(&take(&f.store, &pi, t0()).await), ["handed-out"]);
    assert!(queue(&f.store, &pi, "pending", t0() + minutes(1)).await);

    assert!(f.store.delete(ann.id, &pi).await.unwrap());

    assert_eq!(f.store.find_for(ann.id, &pi).await.unwrap(), None);
    let listed = f.store.list_for(ann.id).await.unwrap();
    assert_eq!(
        listed.iter().map(|d| &d.serial).collect::<Vec<_>>(),
        [&kept]
    );
    assert_eq!(
        f.store
            .find_by_token(&SecretHash::of("pi-token"))
            .await
            .unwrap(),
        None
    );
    assert_eq!(f.store.ports(ann.id, &pi).await.unwrap(), None);
    assert!(take(&f.store, &pi, t0() + minutes(2)).await.is_empty());
    for id in ["handed-out", "pending"] {
        assert!(
            !ack(&f.store, &pi, id, done("ok"), t0() + minutes(2)).await,
            "{id} was acknowledged after its device was deleted"
        );
    }
    assert!(!f.store.delete(ann.id, &pi).await.unwrap());

    // A device made again with the serial inherits nothing.
    let mut again = created_device(ann.id, 1);
    again.wormhole_slug = "again".into();
    DeviceRepository::create(&f.store, &again).await.unwrap();
    assert_eq!(f.store.ports(ann.id, &pi).await.unwrap(), Some(vec![]));
    assert!(take(&f.store, &pi, t0() + minutes(2)).await.is_empty());
    assert!(!ack(&f.store, &pi, "pending", done("ok"), t0() + minutes(2)).await);
    assert_eq!(
        f.store
            .find_by_token(&SecretHash::of("pi-token"))
            .await
            .unwrap(),
        None
    );
}

#[tokio::test]
async fn deleting_a_device_of_another_account_keeps_it() {
    let f = open();
    let ann = account(&f.store, "ann").await;
    let bob = account(&f.store, "bob").await;
    let pi = serial(1);
    let bobs = enrol(&f.store, bob.id, &pi, "bob-token").await;
    assert!(queue(&f.store, &pi, "bob-reboot", t0()).await);

    assert!(!f.store.delete(ann.id, &pi).await.unwrap());
    assert!(!f.store.delete(ann.id, &serial(9)).await.unwrap());

    assert_eq!(
        f.store.find_for(bob.id, &pi).await.unwrap(),
        Some(bobs.clone())
    );
    assert_eq!(
        f.store
            .find_by_token(&SecretHash::of("bob-token"))
            .await
            .unwrap(),
        Some(bobs)
    );
    assert_eq!(ids(&take(&f.store, &pi, t0()).await), ["bob-reboot"]);
}

// --- Heartbeats and ports -----------------------------------------------------

#[tokio::test]
async fn ports_are_empty_until_reported_and_hidden_from_other_accounts() {
    let f = open();
    let ann = account(&f.store, "ann").await;
    let bob = account(&f.store, "bob").await;
    let pi = serial(1);
    enrol(&f.store, ann.id, &pi, "tok").await;
    let made = created_device(ann.id, 2);
    DeviceRepository::create(&f.store, &made).await.unwrap();

    assert_eq!(f.store.ports(ann.id, &pi).await.unwrap(), Some(vec![]));
    assert_eq!(
        f.store.ports(ann.id, &made.serial).await.unwrap(),
        Some(vec![])
    );
    f.store
        .record_heartbeat(
            &pi,
            &ports_report(vec![port(22, Protocol::Tcp, "sshd")]),
            t0(),
        )
        .await
        .unwrap();
    assert_eq!(f.store.ports(bob.id, &pi).await.unwrap(), None);
    assert_eq!(f.store.ports(ann.id, &serial(3)).await.unwrap(), None);
}

#[tokio::test]
async fn reported_ports_are_listed_ascending_and_replaced_only_when_sent() {
    let f = open();
    let ann = account(&f.store, "ann").await;
    let pi = serial(1);
    enrol(&f.store, ann.id, &pi, "tok").await;

    let first = ports_report(vec![
        port(443, Protocol::Tcp, "nginx"),
        port(53, Protocol::Udp, "dnsmasq"),
        port(22, Protocol::Tcp, "sshd"),
        port(53, Protocol::Tcp, "dnsmasq"),
        port(65535, Protocol::Udp, ""),
    ]);
    f.store.record_heartbeat(&pi, &first, t0()).await.unwrap();
    let listed = f.store.ports(ann.id, &pi).await.unwrap().unwrap();
    assert_eq!(
        listed,
        [
            port(22, Protocol::Tcp, "sshd"),
            port(53, Protocol::Tcp, "dnsmasq"),
            port(53, Protocol::Udp, "dnsmasq"),
            port(443, Protocol::Tcp, "nginx"),
            port(65535, Protocol::Udp, ""),
        ]
    );

    // No ports in the report: the list stays.
    f.store
        .record_heartbeat(&pi, &report(), t0() + minutes(1))
        .await
        .unwrap();
    assert_eq!(
        f.store.ports(ann.id, &pi).await.unwrap(),
        Some(listed.clone())
    );

    // A new list replaces the old one entirely.
    let second = ports_report(vec![
        port(8080, Protocol::Tcp, "app"),
        port(22, Protocol::Tcp, "dropbear"),
    ]);
    f.store
        .record_heartbeat(&pi, &second, t0() + minutes(2))
        .await
        .unwrap();
    assert_eq!(
        f.store.ports(ann.id, &pi).await.unwrap(),
        Some(vec![
            port(22, Protocol::Tcp, "dropbear"),
            port(8080, Protocol::Tcp, "app"),
        ])
    );

    // An empty list is a list: nothing listens any more.
    f.store
        .record_heartbeat(&pi, &ports_report(vec![]), t0() + minutes(3))
        .await
        .unwrap();
    assert_eq!(f.store.ports(ann.id, &pi).await.unwrap(), Some(vec![]));
}

#[tokio::test]
async fn a_heartbeat_sets_last_seen_and_applies_the_report() {
    let f = open();
    let ann = account(&f.store, "ann").await;
    let pi = serial(1);
    let enrolled = enrol(&f.store, ann.id, &pi, "tok").await;

    let seen = t0() + minutes(1);
    f.store
        .record_heartbeat(&pi, &report(), seen)
        .await
        .unwrap();
    let after = f.store.find_for(ann.id, &pi).await.unwrap().unwrap();
    let full_facts = DeviceFacts {
        agent_version: "2.0".into(),
        operating_system: "Raspberry Pi OS 12".into(),
        uname: "Linux pi 6.1.0".into(),
        machine_type: rpi_4b(),
        disk_capacity: Some(64_000_000_000),
        disk_used: Some(8_000_000_000),
        processor_speed: 1800,
        ram_capacity: 8192,
    };
    assert_eq!(
        after,
        Device {
            facts: full_facts.clone(),
            last_seen: Some(seen),
            ..enrolled.clone()
        }
    );
    assert!(after.is_online(seen, chrono::Duration::seconds(90)));

    // Present facts replace, absent ones stay, `Some(None)` disks become unknown.
    let later = t0() + minutes(2);
    let partial = FactsReport {
        agent_version: Some("2.1".into()),
        disk_capacity: Some(None),
        disk_used: Some(None),
        ram_capacity: Some(16384),
        ..FactsReport::default()
    };
    f.store
        .record_heartbeat(&pi, &partial, later)
        .await
        .unwrap();
    let after = f.store.find_for(ann.id, &pi).await.unwrap().unwrap();
    assert_eq!(
        after,
        Device {
            facts: DeviceFacts {
                agent_version: "2.1".into(),
                disk_capacity: None,
                disk_used: None,
                ram_capacity: 16384,
                ..full_facts.clone()
            },
            last_seen: Some(later),
            ..enrolled.clone()
        }
    );

    // An empty report only moves last_seen.
    let latest = t0() + minutes(3);
    f.store
        .record_heartbeat(&pi, &FactsReport::default(), latest)
        .await
        .unwrap();
    let again = f.store.find_for(ann.id, &pi).await.unwrap().unwrap();
    assert_eq!(
        again,
        Device {
            last_seen: Some(latest),
            ..after
        }
    );
    assert_eq!(
        f.store.find_by_token(&SecretHash::of("tok")).await.unwrap(),
        Some(again)
    );
}

#[tokio::test]
async fn a_heartbeat_of_a_deleted_or_unknown_device_is_ignored() {
    let f = open();
    let ann = account(&f.store, "ann").await;
    let pi = serial(1);
    enrol(&f.store, ann.id, &pi, "tok").await;
    assert!(f.store.delete(ann.id, &pi).await.unwrap());

    let mut facts = report();
    facts.ports = Some(vec![port(22, Protocol::Tcp, "sshd")]);
    f.store.record_heartbeat(&pi, &facts, t0()).await.unwrap();
    f.store
        .record_heartbeat(&serial(2), &facts, t0())
        .await
        .unwrap();

    assert_eq!(f.store.find_for(ann.id, &pi).await.unwrap(), None);
    assert!(f.store.list_for(ann.id).await.unwrap().is_empty());
    assert_eq!(f.store.ports(ann.id, &pi).await.unwrap(), None);
    assert_eq!(
        f.store.find_by_token(&SecretHash::of("tok")).await.unwrap(),
        None
    );
}

// --- Commands -----------------------------------------------------------------

#[tokio::test]
async fn a_reboot_is_queued_once_while_pending_and_again_after_hand_out() {
    let (f, pi) = one_enrolled_device().await;

    assert!(queue(&f.store, &pi, "c1", t0()).await);
    assert!(!queue(&f.store, &pi, "c2", t0() + minutes(1)).await);
    let handed = take(&f.store, &pi, t0() + minutes(2)).await;
    assert_eq!(
        handed,
        [Command {
            id: "c1".into(),
            action: domain::Action::Reboot,
            issued_time: t0(),
        }]
    );
    assert!(queue(&f.store, &pi, "c3", t0() + minutes(3)).await);
    assert_eq!(ids(&take(&f.store, &pi, t0() + minutes(4)).await), ["c3"]);
}

#[tokio::test]
async fn pending_commands_are_handed_out_oldest_first_and_only_once() {
    let (f, pi) = one_enrolled_device().await;

    // Ids in the opposite order of their issue times.
    assert!(queue(&f.store, &pi, "z-oldest", t0()).await);
    assert!(queue(&f.store, &pi, "m-middle", t0() + minutes(11)).await);
    assert!(queue(&f.store, &pi, "a-newest", t0() + minutes(22)).await);

    let now = t0() + minutes(23);
    let handed = f
        .store
        .take_pending(&pi, now, t0() - minutes(1))
        .await
        .unwrap();
    assert_eq!(ids(&handed), ["z-oldest", "m-middle", "a-newest"]);
    assert_eq!(
        handed.iter().map(|c| c.issued_time).collect::<Vec<_>>(),
        [t0(), t0() + minutes(11), t0() + minutes(22)]
    );
    assert!(
        f.store
            .take_pending(&pi, now, t0() - minutes(1))
            .await
            .unwrap()
            .is_empty()
    );
}

#[tokio::test]
async fn commands_issued_at_or_before_the_lapse_are_not_handed_out() {
    let (f, pi) = one_enrolled_device().await;

    assert!(queue(&f.store, &pi, "lapsed", t0()).await);
    assert!(queue(&f.store, &pi, "fresh", t0() + minutes(11)).await);
    // The lapse falls exactly on the first command's issue time.
    let handed = f
        .store
        .take_pending(&pi, t0() + minutes(12), t0())
        .await
        .unwrap();
    assert_eq!(ids(&handed), ["fresh"]);

    assert!(queue(&f.store, &pi, "stale", t0() + minutes(30)).await);
    let handed = f
        .store
        .take_pending(&pi, t0() + minutes(50), t0() + minutes(40))
        .await
        .unwrap();
    assert!(handed.is_empty(), "lapsed commands handed out: {handed:?}");
}

#[tokio::test]
async fn commands_of_other_devices_are_not_handed_out() {
    let f = open();
    let ann = account(&f.store, "ann").await;
    let bob = account(&f.store, "bob").await;
    let pi = serial(1);
    let other = serial(2);
    let bobs = serial(3);
    enrol(&f.store, ann.id, &pi, "pi-tok").await;
    enrol(&f.store, ann.id, &other, "other-tok").await;
    enrol(&f.store, bob.id, &bobs, "bob-tok").await;

    assert!(queue(&f.store, &pi, "for-pi", t0()).await);
    assert!(queue(&f.store, &bobs, "for-bob", t0()).await);
    assert!(take(&f.store, &other, t0()).await.is_empty());
    // A pending reboot of one device does not block another's.
    assert!(queue(&f.store, &other, "for-other", t0()).await);
    assert_eq!(ids(&take(&f.store, &pi, t0()).await), ["for-pi"]);
    assert_eq!(ids(&take(&f.store, &other, t0()).await), ["for-other"]);
    assert_eq!(ids(&take(&f.store, &bobs, t0()).await), ["for-bob"]);
}

#[tokio::test]
async fn an_acknowledgement_is_recorded_once_for_the_devices_own_command() {
    let f = open();
    let ann = account(&f.store, "ann").await;
    let pi = serial(1);
    let other = serial(2);
    enrol(&f.store, ann.id, &pi, "pi-tok").await;
    enrol(&f.store, ann.id, &other, "other-tok").await;
    assert!(queue(&f.store, &pi, "c1", t0()).await);
    assert!(queue(&f.store, &other, "c-other", t0()).await);
    assert_eq!(ids(&take(&f.store, &pi, t0()).await), ["c1"]);
    assert_eq!(stored_outcome(&f.path, "c1"), (None, None));

    let at = t0() + minutes(1);
    assert!(ack(&f.store, &pi, "c1", done("rebooted"), at).await);
    assert_eq!(
        stored_outcome(&f.path, "c1"),
        (Some("done".into()), Some("rebooted".into()))
    );

    // A second acknowledgement is accepted but does not overwrite the first.
    assert!(ack(&f.store, &pi, "c1", failed("again"), at + minutes(1)).await);
    assert_eq!(
        stored_outcome(&f.path, "c1"),
        (Some("done".into()), Some("rebooted".into()))
    );

    // Another device's command, or no command at all.
    assert!(!ack(&f.store, &pi, "c-other", failed("not mine"), at).await);
    assert_eq!(stored_outcome(&f.path, "c-other"), (None, None));
    assert!(!ack(&f.store, &other, "c1", failed("not mine"), at).await);
    assert_eq!(
        stored_outcome(&f.path, "c1"),
        (Some("done".into()), Some("rebooted".into()))
    );
    assert!(!ack(&f.store, &pi, "no-such-command", done(""), at).await);
    // The other device's command is still pending.
    assert_eq!(ids(&take(&f.store, &other, at).await), ["c-other"]);
}

#[tokio::test]
async fn an_acknowledged_command_is_not_handed_out_later() {
    let (f, pi) = one_enrolled_device().await;
    assert!(queue(&f.store, &pi, "c1", t0()).await);

    assert!(ack(&f.store, &pi, "c1", failed("no permission"), t0()).await);
    assert!(take(&f.store, &pi, t0() + minutes(1)).await.is_empty());
    assert_eq!(
        stored_outcome(&f.path, "c1"),
        (Some("failed".into()), Some("no permission".into()))
    );
    // It no longer blocks a new reboot either.
    assert!(queue(&f.store, &pi, "c2", t0() + minutes(1)).await);
}

// --- Concurrency --------------------------------------------------------------

const RACERS: usize = 16;

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn racing_polls_hand_out_each_command_exactly_once() {
    let (f, pi) = one_enrolled_device().await;

    for round in 0..5 {
        let at = t0() + minutes(round);
        let id = format!("round-{round}");
        assert!(queue(&f.store, &pi, &id, at).await);
        let start = std::sync::Arc::new(tokio::sync::Barrier::new(RACERS));
        let polls: Vec<_> = (0..RACERS)
            .map(|_| {
                let (store, serial, start) = (f.store.clone(), pi.clone(), start.clone());
                tokio::spawn(async move {
                    start.wait().await;
                    store.take_pending(&serial, at, at - lapse()).await
                })
            })
            .collect();
        let mut handed = Vec::new();
        for poll in polls {
            handed.extend(poll.await.unwrap().unwrap());
        }
        assert_eq!(ids(&handed), [id.as_str()], "round {round}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn racing_reboots_queue_exactly_one_command() {
    let (f, pi) = one_enrolled_device().await;

    let start = std::sync::Arc::new(tokio::sync::Barrier::new(RACERS));
    let attempts: Vec<_> = (0..RACERS)
        .map(|i| {
            let (store, serial, start) = (f.store.clone(), pi.clone(), start.clone());
            tokio::spawn(async move {
                start.wait().await;
                let queued = store
                    .queue_reboot(&serial, &format!("c{i}"), t0(), t0() - lapse())
                    .await;
                (i, queued)
            })
        })
        .collect();
    let mut winners = Vec::new();
    for attempt in attempts {
        let (i, queued) = attempt.await.unwrap();
        if queued.unwrap() {
            winners.push(format!("c{i}"));
        }
    }
    assert_eq!(winners.len(), 1, "{winners:?}");
    assert_eq!(ids(&take(&f.store, &pi, t0()).await), [winners[0].as_str()]);
}

// --- Listening ----------------------------------------------------------------

/// Long enough that a woken wait always finishes well within it.
const WAKE_DEADLINE: Duration = Duration::from_secs(5);
/// A wait that is not woken must still be waiting after this.
const QUIET_PERIOD: Duration = Duration::from_millis(200);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_queued_reboot_wakes_a_listener_made_before_it() {
    let (f, pi) = one_enrolled_device().await;

    let mut listener = f.store.listen(&pi);
    assert!(queue(&f.store, &pi, "c1", t0()).await);
    let woken = tokio::time::timeout(WAKE_DEADLINE, listener.wait(Duration::from_secs(30))).await;
    assert!(woken.is_ok(), "the listener was not woken by the reboot");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_queued_reboot_wakes_a_wait_in_progress() {
    let (f, pi) = one_enrolled_device().await;

    let mut listener = f.store.listen(&pi);
    let waiting = tokio::spawn(async move {
        tokio::time::timeout(WAKE_DEADLINE, listener.wait(Duration::from_secs(30))).await
    });
    tokio::time::sleep(Duration::from_millis(50)).await;
    assert!(queue(&f.store, &pi, "c1", t0()).await);
    assert!(
        waiting.await.unwrap().is_ok(),
        "the waiting listener was not woken by the reboot"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reboot_of_another_device_does_not_wake_a_listener() {
    let f = open();
    let ann = account(&f.store, "ann").await;
    let pi = serial(1);
    let other = serial(2);
    enrol(&f.store, ann.id, &pi, "pi-tok").await;
    enrol(&f.store, ann.id, &other, "other-tok").await;

    let mut listener = f.store.listen(&pi);
    assert!(queue(&f.store, &other, "for-other", t0()).await);
    let woken = tokio::time::timeout(QUIET_PERIOD, listener.wait(Duration::from_secs(30))).await;
    assert!(
        woken.is_err(),
        "woken by a reboot queued for another device"
    );
    assert!(take(&f.store, &pi, t0()).await.is_empty());

    // The listener still works for its own device.
    assert!(queue(&f.store, &pi, "for-pi", t0()).await);
    let woken = tokio::time::timeout(WAKE_DEADLINE, listener.wait(Duration::from_secs(30))).await;
    assert!(woken.is_ok(), "not woken by a reboot of its own device");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_listener_times_out_when_nothing_is_queued() {
    let (f, pi) = one_enrolled_device().await;

    let mut listener = f.store.listen(&pi);
    let returned = tokio::time::timeout(WAKE_DEADLINE, listener.wait(QUIET_PERIOD)).await;
    assert!(returned.is_ok(), "the wait outlived its own timeout");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn deleting_a_device_wakes_its_listeners() {
    let f = open();
    let ann = account(&f.store, "ann").await;
    let pi = serial(1);
    enrol(&f.store, ann.id, &pi, "tok").await;

    let mut listener = f.store.listen(&pi);
    assert!(f.store.delete(ann.id, &pi).await.unwrap());
    let woken = tokio::time::timeout(WAKE_DEADLINE, listener.wait(Duration::from_secs(30))).await;
    assert!(woken.is_ok(), "the listener was not woken by the deletion");
}
