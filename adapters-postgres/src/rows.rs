//! Turning rows into domain values and domain values into parameters.

use application::StoreError;
use chrono::Timelike;
use domain::{
    Account, AccountId, AckDetail, Action, AgentVersion, Amount, Command, CommandId, CommandRecord,
    CommandStatus, Device, DeviceDescription, DeviceFacts, DeviceName, EmailAddress, InstallToken,
    MachineType, OperatingSystem, Port, PortName, PortNumber, ProfileName, Protocol, Serial, Tag,
    TagSet, Timestamp, Uname,
};
use tokio_postgres::Row;

/// An instant as stored: whole seconds, as on SQLite.
pub(crate) fn at(instant: Timestamp) -> Timestamp {
    instant.with_nanosecond(0).unwrap_or(instant)
}

pub(crate) fn read(error: tokio_postgres::Error) -> StoreError {
    StoreError::new("read a stored row", error)
}

fn invalid(what: String) -> StoreError {
    StoreError::message(format!("a stored row is invalid: {what}"))
}

/// The account columns, in the order [`account`] reads them.
pub(crate) const ACCOUNT_COLUMNS: &str = "accounts.id, accounts.email, accounts.name, \
     accounts.password_hash, accounts.email_verified, accounts.install_token, accounts.created_time";

/// Reads an account selected with [`ACCOUNT_COLUMNS`].
pub(crate) fn account(row: &Row) -> Result<Account, StoreError> {
    Ok(Account {
        id: AccountId(row.try_get(0).map_err(read)?),
        email: EmailAddress::from_stored(row.try_get(1).map_err(read)?),
        name: ProfileName::from_stored(row.try_get(2).map_err(read)?),
        password_hash: row.try_get(3).map_err(read)?,
        email_verified: row.try_get(4).map_err(read)?,
        install_token: InstallToken::from_stored(row.try_get(5).map_err(read)?),
        created_time: row.try_get(6).map_err(read)?,
    })
}

/// The stored columns of a device, as a literal for [`DEVICE_FIELDS`] and
/// [`DEVICE_COLUMNS`].
macro_rules! device_fields {
    () => {
        "serial, account_id, name, description, wormhole_slug, agent_version, \
         operating_system, uname, machine_type, disk_capacity, disk_used, processor_speed, \
         ram_capacity, last_seen, created_time"
    };
}

/// The stored columns of a device, in the order [`device`] reads them.
pub(crate) const DEVICE_FIELDS: &str = device_fields!();

/// What [`device`] reads: the stored columns, then the device's tags as an
/// array, ascending. For statements on `devices` under its own name (no
/// alias), `RETURNING` included.
pub(crate) const DEVICE_COLUMNS: &str = concat!(
    device_fields!(),
    ", ARRAY(SELECT t.tag FROM device_tags t WHERE t.serial = devices.serial ORDER BY t.tag)"
);

/// Reads a device selected with [`DEVICE_COLUMNS`].
pub(crate) fn device(row: &Row) -> Result<Device, StoreError> {
    let machine_type: String = row.try_get(8).map_err(read)?;
    Ok(Device {
        serial: Serial::from_stored(row.try_get(0).map_err(read)?),
        owner: AccountId(row.try_get(1).map_err(read)?),
        name: DeviceName::from_stored(row.try_get(2).map_err(read)?),
        description: DeviceDescription::from_stored(row.try_get(3).map_err(read)?),
        wormhole_slug: row.try_get(4).map_err(read)?,
        facts: DeviceFacts {
            agent_version: AgentVersion::from_stored(row.try_get(5).map_err(read)?),
            operating_system: OperatingSystem::from_stored(row.try_get(6).map_err(read)?),
            uname: Uname::from_stored(row.try_get(7).map_err(read)?),
            machine_type: MachineType::from_code(&machine_type).unwrap_or_default(),
            disk_capacity: row
                .try_get::<_, Option<i64>>(9)
                .map_err(read)?
                .map(Amount::from_stored),
            disk_used: row
                .try_get::<_, Option<i64>>(10)
                .map_err(read)?
                .map(Amount::from_stored),
            processor_speed: Amount::from_stored(row.try_get(11).map_err(read)?),
            ram_capacity: Amount::from_stored(row.try_get(12).map_err(read)?),
        },
        tags: TagSet::from_stored(
            row.try_get::<_, Vec<String>>(15)
                .map_err(read)?
                .into_iter()
                .map(Tag::from_stored),
        ),
        last_seen: row.try_get(13).map_err(read)?,
        created_time: row.try_get(14).map_err(read)?,
    })
}

/// Reads all rows with `read_row`.
pub(crate) fn all<T>(
    rows: &[Row],
    read_row: fn(&Row) -> Result<T, StoreError>,
) -> Result<Vec<T>, StoreError> {
    rows.iter().map(read_row).collect()
}

/// The command columns, in the order [`command`] reads them.
pub(crate) const COMMAND_COLUMNS: &str = "id, action, issued_time";

/// Reads a command selected with [`COMMAND_COLUMNS`].
pub(crate) fn command(row: &Row) -> Result<Command, StoreError> {
    let action: String = row.try_get(1).map_err(read)?;
    Ok(Command {
        id: CommandId::from_stored(row.try_get(0).map_err(read)?),
        action: Action::from_code(&action)
            .ok_or_else(|| invalid(format!("unknown action {action:?}")))?,
        issued_time: row.try_get(2).map_err(read)?,
    })
}

/// The columns [`command_record`] reads.
pub(crate) const COMMAND_RECORD_COLUMNS: &str =
    "id, action, issued_time, delivered_time, acked_time, status, detail";

/// Reads a command's history entry selected with [`COMMAND_RECORD_COLUMNS`].
pub(crate) fn command_record(row: &Row) -> Result<CommandRecord, StoreError> {
    let status: Option<String> = row.try_get(5).map_err(read)?;
    let status = match status {
        None => None,
        Some(code) => Some(
            CommandStatus::from_code(&code)
                .ok_or_else(|| invalid(format!("unknown command status {code:?}")))?,
        ),
    };
    Ok(CommandRecord {
        command: command(row)?,
        delivered_time: row.try_get(3).map_err(read)?,
        acked_time: row.try_get(4).map_err(read)?,
        status,
        detail: AckDetail::from_stored(
            row.try_get::<_, Option<String>>(6)
                .map_err(read)?
                .unwrap_or_default(),
        ),
    })
}

/// Reads a port selected as `port, protocol, name`.
pub(crate) fn port(row: &Row) -> Result<Port, StoreError> {
    let number: i32 = row.try_get(0).map_err(read)?;
    let protocol: String = row.try_get(1).map_err(read)?;
    Ok(Port {
        number: PortNumber::try_from(i64::from(number)).map_err(|e| invalid(e.to_string()))?,
        protocol: Protocol::from_code(&protocol)
            .ok_or_else(|| invalid(format!("unknown protocol {protocol:?}")))?,
        name: PortName::from_stored(row.try_get(2).map_err(read)?),
    })
}
