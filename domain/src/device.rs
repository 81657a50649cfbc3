//! Devices: what the server knows about one machine of an account.

use crate::account::AccountId;
use crate::amount::Amount;
use crate::bounded_text::{AgentVersion, DeviceDescription, DeviceName, OperatingSystem, Uname};
use crate::listening_port::Port;
use crate::machine_type::MachineType;
use crate::tag::TagSet;
use crate::time::Timestamp;
use std::fmt;
use thiserror::Error;

/// A device serial: a lowercase hyphenated UUID, the `{id}` of every device path.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Serial(String);

/// The text was not a UUID.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
#[error("not a UUID")]
pub struct InvalidSerial;

impl Serial {
    /// Parses any UUID spelling into the canonical lowercase hyphenated form.
    pub fn parse(raw: &str) -> Result<Self, InvalidSerial> {
        uuid::Uuid::try_parse(raw)
            .map(|uuid| Self(uuid.hyphenated().to_string()))
            .map_err(|_| InvalidSerial)
    }

    /// Makes a serial from 16 random bytes (a version-4 UUID).
    pub fn from_random_bytes(bytes: [u8; 16]) -> Self {
        Self(
            uuid::Builder::from_random_bytes(bytes)
                .into_uuid()
                .hyphenated()
                .to_string(),
        )
    }

    /// Takes a serial read back from storage as it is.
    pub fn from_stored(serial: String) -> Self {
        Self(serial)
    }

    /// The canonical text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for Serial {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// What an agent reports about its machine.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct DeviceFacts {
    /// Version of the agent software.
    pub agent_version: AgentVersion,
    /// Operating system name and version.
    pub operating_system: OperatingSystem,
    /// `uname -a` style kernel description.
    pub uname: Uname,
    /// The hardware.
    pub machine_type: MachineType,
    /// Disk size in bytes, once known.
    pub disk_capacity: Option<Amount>,
    /// Disk use in bytes, once known.
    pub disk_used: Option<Amount>,
    /// Processor speed in MHz, 0 while unknown.
    pub processor_speed: Amount,
    /// Memory in MiB, 0 while unknown.
    pub ram_capacity: Amount,
}

/// What one heartbeat reports. A fact that is present replaces the stored
/// one; an absent one (`None`) keeps it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct FactsReport {
    /// Version of the agent software.
    pub agent_version: Option<AgentVersion>,
    /// Operating system name and version.
    pub operating_system: Option<OperatingSystem>,
    /// `uname -a` style kernel description.
    pub uname: Option<Uname>,
    /// The hardware.
    pub machine_type: Option<MachineType>,
    /// Disk size in bytes; `Some(None)` makes it unknown.
    pub disk_capacity: Option<Option<Amount>>,
    /// Disk use in bytes; `Some(None)` makes it unknown.
    pub disk_used: Option<Option<Amount>>,
    /// Processor speed in MHz.
    pub processor_speed: Option<Amount>,
    /// Memory in MiB.
    pub ram_capacity: Option<Amount>,
    /// The listening ports, replacing the stored list (normalized with
    /// [`normalize_ports`](crate::listening_port::normalize_ports)).
    pub ports: Option<Vec<Port>>,
}

impl DeviceFacts {
    /// Takes over every fact the report carries.
    pub fn apply(&mut self, report: &FactsReport) {
        fn set<T: Clone>(slot: &mut T, value: &Option<T>) {
            if let Some(value) = value {
                *slot = value.clone();
            }
        }
        set(&mut self.agent_version, &report.agent_version);
        set(&mut self.operating_system, &report.operating_system);
        set(&mut self.uname, &report.uname);
        set(&mut self.machine_type, &report.machine_type);
        set(&mut self.disk_capacity, &report.disk_capacity);
        set(&mut self.disk_used, &report.disk_used);
        set(&mut self.processor_speed, &report.processor_speed);
        set(&mut self.ram_capacity, &report.ram_capacity);
    }
}

/// A device as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Device {
    /// The device's identity.
    pub serial: Serial,
    /// The account it belongs to.
    pub owner: AccountId,
    /// Its name.
    pub name: DeviceName,
    /// Free text.
    pub description: DeviceDescription,
    /// Short unique name, `[a-z0-9-]`, at most 40 characters.
    pub wormhole_slug: String,
    /// What the agent last reported.
    pub facts: DeviceFacts,
    /// Its tags.
    pub tags: TagSet,
    /// When the agent last sent a heartbeat, if ever.
    pub last_seen: Option<Timestamp>,
    /// When the device was created.
    pub created_time: Timestamp,
}

impl Device {
    /// Whether the last heartbeat is younger than `window`, as of `now`.
    pub fn is_online(&self, now: Timestamp, window: chrono::Duration) -> bool {
        self.last_seen.is_some_and(|seen| now - seen < window)
    }
}

/// Words for wormhole slugs: short, friendly, unambiguous.
const SLUG_WORDS: &[&str] = &[
    "amber", "bold", "brisk", "calm", "clever", "coral", "crisp", "dawn", "eager", "fern", "frost",
    "gentle", "golden", "hazel", "ivory", "jolly", "keen", "lucky", "maple", "misty", "noble",
    "olive", "pearl", "quiet", "rapid", "rusty", "sage", "silver", "swift", "tidy", "velvet",
    "witty",
];
const SLUG_NOUNS: &[&str] = &[
    "badger", "beacon", "falcon", "ferret", "finch", "gecko", "heron", "koala", "lark", "lemur",
    "lynx", "marten", "newt", "orca", "otter", "owl", "panda", "pike", "puffin", "quail", "raven",
    "robin", "seal", "shrike", "sparrow", "stoat", "swan", "tern", "tiger", "vole", "walrus",
    "wren",
];

/// Builds a wormhole slug such as `brisk-otter-4f9k2x` from random bytes.
pub fn wormhole_slug(random: [u8; 8]) -> String {
    const ALPHABET: &[u8] = b"abcdefghijklmnopqrstuvwxyz0123456789";
    let adjective = SLUG_WORDS[usize::from(random[0]) % SLUG_WORDS.len()];
    let noun = SLUG_NOUNS[usize::from(random[1]) % SLUG_NOUNS.len()];
    let suffix: String = random[2..]
        .iter()
        .map(|b| char::from(ALPHABET[usize::from(*b) % ALPHABET.len()]))
        .collect();
    format!("{adjective}-{noun}-{suffix}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::{Duration, TimeZone, Utc};

    #[test]
    fn serials_are_canonical_lowercase() {
        let serial = Serial::parse("0F8FAD5B-D9CB-469F-A165-70867728950E").unwrap();
        assert_eq!(serial.as_str(), "0f8fad5b-d9cb-469f-a165-70867728950e");
        assert_eq!(Serial::parse("not-a-uuid"), Err(InvalidSerial));
        let random = Serial::from_random_bytes([7; 16]);
        assert_eq!(Serial::parse(random.as_str()).unwrap(), random);
    }

    #[test]
    fn slugs_are_short_and_lowercase() {
        let slug = wormhole_slug([255, 254, 1, 2, 3, 4, 200, 100]);
        assert!(slug.len() <= 40);
        assert!(
            slug.chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
        );
    }

    fn amount(value: i64) -> Amount {
        Amount::new(value).unwrap()
    }

    #[test]
    fn a_report_replaces_only_the_facts_it_carries() {
        let mut facts = DeviceFacts {
            agent_version: AgentVersion::parse("1.0").unwrap(),
            uname: Uname::parse("Linux pi").unwrap(),
            disk_capacity: Some(amount(100)),
            disk_used: Some(amount(50)),
            ram_capacity: amount(1024),
            ..DeviceFacts::default()
        };
        facts.apply(&FactsReport {
            agent_version: Some(AgentVersion::parse("1.1").unwrap()),
            disk_used: Some(None),
            processor_speed: Some(amount(1500)),
            ..FactsReport::default()
        });
        assert_eq!(facts.agent_version.as_str(), "1.1");
        assert_eq!(facts.uname.as_str(), "Linux pi");
        assert_eq!(facts.disk_capacity, Some(amount(100)));
        assert_eq!(facts.disk_used, None);
        assert_eq!(facts.processor_speed, amount(1500));
        assert_eq!(facts.ram_capacity, amount(1024));
    }

    #[test]
    fn online_while_the_heartbeat_is_younger_than_the_window() {
        let now = Utc.with_ymd_and_hms(2026, 1, 1, 12, 0, 0).unwrap();
        let mut device = Device {
            serial: Serial::from_random_bytes([1; 16]),
            owner: AccountId(1),
            name: DeviceName::parse("pi").unwrap(),
            description: DeviceDescription::default(),
            wormhole_slug: "a-b-c".into(),
            facts: DeviceFacts::default(),
            tags: crate::tag::TagSet::default(),
            last_seen: None,
            created_time: now,
        };
        let window = Duration::seconds(90);
        assert!(!device.is_online(now, window));
        device.last_seen = Some(now - Duration::seconds(89));
        assert!(device.is_online(now, window));
        device.last_seen = Some(now - Duration::seconds(90));
        assert!(!device.is_online(now, window));
    }
}
