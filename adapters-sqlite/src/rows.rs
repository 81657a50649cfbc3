//! Turning rows into domain values and domain values into columns.

use chrono::{DateTime, Utc};
use domain::{
    Account, AccountId, AckDetail, Action, AgentVersion, Amount, Command, CommandId, CommandRecord,
    CommandStatus, Device, DeviceDescription, DeviceFacts, DeviceName, EmailAddress, InstallToken,
    MachineType, OperatingSystem, Port, PortName, PortNumber, ProfileName, Protocol, Serial, Tag,
    TagSet, Timestamp, Uname,
};
use rusqlite::Row;
use rusqlite::types::Type;

/// Seconds since the epoch, as stored.
pub(crate) fn to_secs(at: Timestamp) -> i64 {
    at.timestamp()
}

/// Reads a stored time.
pub(crate) fn from_secs(secs: i64) -> Timestamp {
    DateTime::<Utc>::from_timestamp(secs, 0).unwrap_or_default()
}

fn invalid(
    column: usize,
    error: impl std::error::Error + Send + Sync + 'static,
) -> rusqlite::Error {
    rusqlite::Error::FromSqlConversionFailure(column, Type::Text, Box::new(error))
}

/// [`ACCOUNT_COLUMNS`] as a literal, for statements made with `concat!`
/// (the hot ones: nothing to format on each request).
macro_rules! account_columns {
    () => {
        "accounts.id, accounts.email, accounts.name, accounts.password_hash, \
         accounts.email_verified, accounts.install_token, accounts.created_time"
    };
}
pub(crate) use account_columns;

/// The account columns, in the order [`account`] reads them.
pub(crate) const ACCOUNT_COLUMNS: &str = account_columns!();

/// Reads an account selected with [`ACCOUNT_COLUMNS`].
pub(crate) fn account(row: &Row<'_>) -> rusqlite::Result<Account> {
    Ok(Account {
        id: AccountId(row.get(0)?),
        email: EmailAddress::from_stored(row.get(1)?),
        name: ProfileName::from_stored(row.get(2)?),
        password_hash: row.get(3)?,
        email_verified: row.get(4)?,
        install_token: InstallToken::from_stored(row.get(5)?),
        created_time: from_secs(row.get(6)?),
    })
}

/// The stored columns of a device, in the order [`device`] reads them.
pub(crate) const DEVICE_STORED_COLUMNS: &str = "serial, account_id, name, description, wormhole_slug, agent_version, operating_system, \
     uname, machine_type, disk_capacity, disk_used, processor_speed, ram_capacity, last_seen, \
     created_time";

/// The stored columns of `devices` (not aliased), in the order [`device`]
/// reads them.
macro_rules! device_stored_columns {
    () => {
        "devices.serial, devices.account_id, devices.name, devices.description, \
         devices.wormhole_slug, devices.agent_version, devices.operating_system, devices.uname, \
         devices.machine_type, devices.disk_capacity, devices.disk_used, devices.processor_speed, \
         devices.ram_capacity, devices.last_seen, devices.created_time"
    };
}

/// [`DEVICE_COLUMNS`] as a literal, for statements made with `concat!`.
macro_rules! device_columns {
    () => {
        concat!(
            $crate::rows::device_stored_columns!(),
            ", (SELECT group_concat(device_tags.tag, ' ') FROM device_tags \
             WHERE device_tags.serial = devices.serial)"
        )
    };
}
pub(crate) use {device_columns, device_stored_columns};

/// What [`device`] reads from a listing over `devices`: the stored columns
/// and no tags. A subquery per device would seek its tags one device at a
/// time (a quarter of a 1,000-device listing's time); a listing reads them
/// afterwards in one statement (`devices::tags::attach`).
pub(crate) const LISTED_DEVICE_COLUMNS: &str = concat!(device_stored_columns!(), ", NULL");

/// What [`device`] reads from a query over `devices` (not aliased): the
/// stored columns, then the device's tags, space-separated (tags have no
/// spaces), gathered in the same query.
pub(crate) const DEVICE_COLUMNS: &str = device_columns!();

/// Reads a device selected with [`DEVICE_COLUMNS`].
pub(crate) fn device(row: &Row<'_>) -> rusqlite::Result<Device> {
    let machine_type = MachineType::from_code(row.get_ref(8)?.as_str()?).unwrap_or_default();
    Ok(Device {
        serial: Serial::from_stored(row.get(0)?),
        owner: AccountId(row.get(1)?),
        name: DeviceName::from_stored(row.get(2)?),
        description: DeviceDescription::from_stored(row.get(3)?),
        wormhole_slug: row.get(4)?,
        facts: DeviceFacts {
            agent_version: AgentVersion::from_stored(row.get(5)?),
            operating_system: OperatingSystem::from_stored(row.get(6)?),
            uname: Uname::from_stored(row.get(7)?),
            machine_type,
            disk_capacity: row.get::<_, Option<i64>>(9)?.map(Amount::from_stored),
            disk_used: row.get::<_, Option<i64>>(10)?.map(Amount::from_stored),
            processor_speed: Amount::from_stored(row.get(11)?),
            ram_capacity: Amount::from_stored(row.get(12)?),
        },
        tags: tags(row.get_ref(15)?.as_str_or_null()?),
        last_seen: row.get::<_, Option<i64>>(13)?.map(from_secs),
        created_time: from_secs(row.get(14)?),
    })
}

/// The tags of a device, as [`DEVICE_COLUMNS`] gathers them.
fn tags(joined: Option<&str>) -> TagSet {
    TagSet::from_stored(
        joined
            .unwrap_or_default()
            .split_whitespace()
            .map(|tag| Tag::from_stored(tag.to_owned())),
    )
}

/// The command columns, in the order [`command`] reads them.
pub(crate) const COMMAND_COLUMNS: &str = "id, action, issued_time";

/// Reads a command selected with [`COMMAND_COLUMNS`].
pub(crate) fn command(row: &Row<'_>) -> rusqlite::Result<Command> {
    let action: String = row.get(1)?;
    Ok(Command {
        id: CommandId::from_stored(row.get(0)?),
        action: Action::from_code(&action).ok_or_else(|| invalid(1, UnknownCode(action)))?,
        issued_time: from_secs(row.get(2)?),
    })
}

/// [`COMMAND_RECORD_COLUMNS`] as a literal, for statements made with `concat!`.
macro_rules! command_record_columns {
    () => {
        "id, action, issued_time, delivered_time, acked_time, status, detail"
    };
}
pub(crate) use command_record_columns;

/// The columns [`command_record`] reads.
pub(crate) const COMMAND_RECORD_COLUMNS: &str = command_record_columns!();

/// Reads a command's history entry selected with [`COMMAND_RECORD_COLUMNS`].
pub(crate) fn command_record(row: &Row<'_>) -> rusqlite::Result<CommandRecord> {
    let status: Option<String> = row.get(5)?;
    let status = match status {
        None => None,
        Some(code) => {
            Some(CommandStatus::from_code(&code).ok_or_else(|| invalid(5, UnknownCode(code)))?)
        }
    };
    Ok(CommandRecord {
        command: command(row)?,
        delivered_time: row.get::<_, Option<i64>>(3)?.map(from_secs),
        acked_time: row.get::<_, Option<i64>>(4)?.map(from_secs),
        status,
        detail: AckDetail::from_stored(row.get::<_, Option<String>>(6)?.unwrap_or_default()),
    })
}

/// Reads a port selected as `port, protocol, name`.
pub(crate) fn port(row: &Row<'_>) -> rusqlite::Result<Port> {
    let protocol: String = row.get(1)?;
    Ok(Port {
        number: PortNumber::try_from(row.get::<_, i64>(0)?).map_err(|e| invalid(0, e))?,
        protocol: Protocol::from_code(&protocol)
            .ok_or_else(|| invalid(1, UnknownCode(protocol)))?,
        name: PortName::from_stored(row.get(2)?),
    })
}

/// A read error of `column`: it holds a code the domain does not know.
pub(crate) fn unknown_code(column: usize, code: String) -> rusqlite::Error {
    invalid(column, UnknownCode(code))
}

/// A stored code that the domain does not know.
#[derive(Debug, thiserror::Error)]
#[error("unknown code {0:?}")]
struct UnknownCode(String);
