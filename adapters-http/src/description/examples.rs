//! The values the OpenAPI document's examples share: one account (Ada's),
//! one device of it, one command, one moment. Each answer type and each
//! route builds its example from these as a real value of its own type; the
//! end-to-end tests send the request examples to a live server.

use domain::time::Timestamp;
use domain::{
    AgentVersion, Amount, CommandId, DeviceFacts, EmailAddress, InstallToken, MachineType,
    OperatingSystem, Port, PortName, PortNumber, Protocol, Serial, Uname,
};

/// The e-mail address of the examples' account.
pub const EMAIL: &str = "ada@example.com";
/// An address with no account yet: registrations and resends.
pub const NEW_EMAIL: &str = "grace@example.com";
/// The account's password.
pub const PASSWORD: &str = "Sturdy-Lantern-42";
/// The password the examples change it to.
pub const NEW_PASSWORD: &str = "Quiet-Harbour-1987";
/// The account's display name.
pub const PROFILE_NAME: &str = "Ada Lovelace";
/// A key from an e-mailed link.
pub const KEY: &str = "k3x9q2m7w4v8b1n5c6z0a2s4d6f8g1h3";
/// The account's install token.
pub const INSTALL_TOKEN: &str = "1wq4vdtcz00798gxr71et3bt71pgjjdk";
/// An API token.
pub const API_TOKEN: &str = "9944b09199c62bcf9418ad846dd0e4bbdfc6ee4b";
/// The device's token.
pub const DEVICE_TOKEN: &str = "dq2n8w5k1z7x4c9v3b6m0p2r5t8y1u4i";
/// The device's serial.
pub const SERIAL: &str = "14afe3e2-405c-4661-bb02-c71e7541142b";
/// The device's name.
pub const DEVICE_NAME: &str = "kitchen-pi";
/// The device's description.
pub const DEVICE_DESCRIPTION: &str = "On the shelf above the router.";
/// The device's wormhole slug.
pub const WORMHOLE_SLUG: &str = "bold-heron-ya4id6";
/// A command's id.
pub const COMMAND_ID: &str = "8e2ed355-b0fe-42d4-9779-fedefd809a3c";
/// Where the examples' server is.
pub const BASE_URL: &str = "http://127.0.0.1:8000";
/// The moment a command is issued (and the device was created).
pub const ISSUED: &str = "2026-11-24T09:30:00Z";
/// The moment it is handed out.
pub const DELIVERED: &str = "2026-11-24T09:30:01Z";
/// The moment it is acknowledged.
pub const ACKNOWLEDGED: &str = "2026-11-24T09:30:02Z";
/// The device's machine type.
pub const MACHINE_TYPE: &str = "rpi_4b";
/// Seconds a long poll waits.
pub const POLL_WAIT_SECS: i64 = 10;

/// The failure of an example constant to be a value of its type: a mistake
/// in this file, which every test that builds the document finds.
const INVALID: &str = "the examples' values are valid";

/// The account's address.
pub fn email() -> EmailAddress {
    EmailAddress::parse(EMAIL).expect(INVALID)
}

/// An address with no account yet.
pub fn new_email() -> EmailAddress {
    EmailAddress::parse(NEW_EMAIL).expect(INVALID)
}

/// The command's id.
pub fn command_id() -> CommandId {
    CommandId::parse(COMMAND_ID).expect(INVALID)
}

/// The account's install token.
pub fn install_token() -> InstallToken {
    InstallToken::parse(INSTALL_TOKEN).expect(INVALID)
}

/// The device's serial.
pub fn serial() -> Serial {
    Serial::parse(SERIAL).expect(INVALID)
}

/// A moment of the examples ([`ISSUED`], …).
pub fn at(moment: &str) -> Timestamp {
    moment.parse().expect(INVALID)
}

/// The device's machine type.
pub fn machine_type() -> MachineType {
    MachineType::from_code(MACHINE_TYPE).expect(INVALID)
}

/// A listening port of the device.
pub fn port() -> Port {
    Port::new(
        PortNumber::new(22).expect(INVALID),
        Protocol::Tcp,
        PortName::parse("sshd").expect(INVALID),
    )
}

/// What the device's agent reports of it.
pub fn facts() -> DeviceFacts {
    let amount = |value| Amount::new(value).expect(INVALID);
    DeviceFacts {
        agent_version: AgentVersion::parse("1.4.2").expect(INVALID),
        operating_system: OperatingSystem::parse("Debian GNU/Linux 12 (bookworm)").expect(INVALID),
        uname: Uname::parse(
            "Linux kitchen-pi 6.6.51+rpt-rpi-v8 #1 SMP PREEMPT Debian aarch64 GNU/Linux",
        )
        .expect(INVALID),
        machine_type: machine_type(),
        disk_capacity: Some(amount(31_268_536_320)),
        disk_used: Some(amount(8_589_934_592)),
        processor_speed: amount(1800),
        ram_capacity: amount(4096),
    }
}

/// The tags on the examples' device.
pub const TAGS: [&str; 2] = ["kitchen", "site:berlin"];

/// [`TAGS`] as the device's set.
pub fn tags() -> domain::TagSet {
    let tags = TAGS.map(|tag| domain::Tag::parse(tag).expect(INVALID));
    domain::TagSet::new(tags).expect(INVALID)
}
