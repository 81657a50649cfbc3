//! Fixtures of devices: serials, enrolments, facts and port reports.

use crate::{Store, account, amount, new_account, t0, text};
use application::ports::{AccountRepository, DeviceRepository, Enrolment};
use domain::listening_port::normalize_ports;
use domain::secret::SecretHash;
use domain::{
    AccountId, Device, DeviceFacts, FactsReport, MachineType, Port, PortNumber, Protocol, Serial,
    Tag, TagSet, Timestamp,
};

/// The serial made of sixteen times `byte`.
pub fn serial(byte: u8) -> Serial {
    Serial::from_random_bytes([byte; 16])
}

/// A tag: `name` must be one.
pub fn tag(name: &str) -> Tag {
    Tag::parse(name).expect("a tag")
}

/// A set of tags: `names` must be at most 20 tags.
pub fn tags(names: &[&str]) -> TagSet {
    TagSet::new(names.iter().map(|name| tag(name))).expect("at most 20 tags")
}

/// The Raspberry Pi 4 B.
pub fn rpi_4b() -> MachineType {
    MachineType::from_code("rpi_4b").unwrap()
}

/// A device of `owner` for `DeviceRepository::create`, with the serial
/// [`serial`]`(serial_byte)`, the slug `slug-{serial_byte}`, facts (disk use
/// unknown), last seen when created.
pub fn device(owner: AccountId, serial_byte: u8, created: Timestamp) -> Device {
    Device {
        serial: serial(serial_byte),
        owner,
        name: text(&format!("device-{serial_byte}")),
        description: text("desc"),
        wormhole_slug: format!("slug-{serial_byte}"),
        tags: domain::TagSet::default(),
        facts: DeviceFacts {
            agent_version: text("1.0"),
            operating_system: text("Debian"),
            uname: text("Linux"),
            machine_type: rpi_4b(),
            disk_capacity: Some(amount(1 << 35)),
            disk_used: None,
            processor_speed: amount(1500),
            ram_capacity: amount(4096),
        },
        last_seen: Some(created),
        created_time: created,
    }
}

/// A device made by `DeviceRepository::create` at [`t0`]: with every fact
/// (disk use too) and a description, the slug `created-{serial_byte}`, and
/// no token.
pub fn created_device(owner: AccountId, serial_byte: u8) -> Device {
    let mut made = device(owner, serial_byte, t0());
    made.description = text("made by hand");
    made.wormhole_slug = format!("created-{serial_byte}");
    made.facts.disk_used = Some(amount(1 << 30));
    made
}

/// Creates ann@example.com (see [`new_account`]) and her device
/// [`device`]`(serial_byte)`, created at [`t0`].
pub async fn account_with_device(store: &impl Store, serial_byte: u8) -> Device {
    let ann = AccountRepository::create(
        store,
        new_account("ann@example.com", None),
        &crate::noted(domain::AuditAction::AccountCreate),
    )
    .await
    .unwrap();
    let pi = device(ann.id, serial_byte, t0());
    DeviceRepository::create(store, &pi, &crate::noted(domain::AuditAction::DeviceCreate))
        .await
        .unwrap();
    pi
}

/// An enrolment at [`t0`] of `serial` into `owner` with the device token
/// `token`, named `pi-{token}`, slug `slug-{token}`, no machine type; a
/// device heard from in the 90 seconds before is online.
pub fn enrolment(owner: AccountId, serial: &Serial, token: &str) -> Enrolment {
    Enrolment {
        owner,
        serial: serial.clone(),
        name: text(&format!("pi-{token}")),
        machine_type: None,
        token: SecretHash::of(token),
        wormhole_slug: format!("slug-{token}"),
        now: t0(),
        online_after: t0() - chrono::Duration::seconds(90),
    }
}

/// Enrols `serial` into `owner` with the device token `token` (see [`enrolment`]).
pub async fn enrol(store: &impl Store, owner: AccountId, serial: &Serial, token: &str) -> Device {
    store
        .enroll(
            &enrolment(owner, serial, token),
            &crate::noted(domain::AuditAction::DeviceInstall),
        )
        .await
        .unwrap()
}

/// Creates the account "ann" and enrols her device [`serial`]`(1)` with the
/// token `tok`; returns its serial.
pub async fn one_enrolled_device(store: &impl Store) -> Serial {
    let ann = account(store, "ann").await;
    let pi = serial(1);
    enrol(store, ann.id, &pi, "tok").await;
    pi
}

/// A port.
pub fn port(number: u16, protocol: Protocol, name: &str) -> Port {
    Port::new(
        PortNumber::new(number).expect("a port number"),
        protocol,
        text(name),
    )
}

/// A heartbeat report carrying every fact and no ports.
pub fn report() -> FactsReport {
    FactsReport {
        agent_version: Some(text("2.0")),
        operating_system: Some(text("Raspberry Pi OS 12")),
        uname: Some(text("Linux pi 6.1.0")),
        machine_type: Some(rpi_4b()),
        disk_capacity: Some(Some(amount(64_000_000_000))),
        disk_used: Some(Some(amount(8_000_000_000))),
        processor_speed: Some(amount(1800)),
        ram_capacity: Some(amount(8192)),
        ports: None,
    }
}

/// A report of only these ports (normalized, as the use case does).
pub fn ports_report(ports: Vec<Port>) -> FactsReport {
    FactsReport {
        ports: Some(normalize_ports(ports)),
        ..FactsReport::default()
    }
}
