//! The device object (the seed's 18 fields, its tags and when it was last
//! seen), its ports and its commands, as typed answers with their descriptions.

use crate::description::examples as ex;
use crate::description::{Described, ObjectSchema};
use crate::fields::{Field, FieldType};
use application::use_cases::CommandView;
use domain::time::format_api;
use domain::{
    Action, Amount, Command, CommandRecord, CommandState, CommandStatus, DeviceDescription,
    DeviceName, MachineType, Port, PortName, PortNumber,
};
use serde::Serialize;

const fn shown(name: &'static str, label: &'static str, kind: FieldType) -> Field {
    Field::read_only(name, label, kind)
}

/// `name` of a device.
pub(crate) const DEVICE_NAME: Field = Field::bounded::<DeviceName>("name", "Name");
/// `description` of a device.
pub(crate) const DEVICE_DESCRIPTION: Field =
    Field::bounded::<DeviceDescription>("description", "Description").optional();
/// `tags` of a device.
pub(crate) const DEVICE_TAGS: Field = Field::tags("tags", "Tags");

/// The device as PUT and PATCH see it: every field, three writable.
pub const DEVICE_FIELDS: &[Field] = &[
    shown("agent_version", "Agent version", FieldType::String),
    shown("created_time", "Created time", FieldType::Datetime),
    DEVICE_DESCRIPTION,
    shown("disk_capacity", "Disk capacity", FieldType::Integer)
        .nullable()
        .range(Amount::MIN, Amount::MAX),
    shown("disk_used", "Disk used", FieldType::Integer)
        .nullable()
        .range(Amount::MIN, Amount::MAX),
    shown("last_seen_time", "Last seen time", FieldType::Datetime).nullable(),
    shown("machine_type", "Machine type", FieldType::String).choices(&MachineType::CODES),
    shown(
        "machine_type_display",
        "Machine type display",
        FieldType::String,
    )
    .choices(&MachineType::DISPLAY_NAMES),
    DEVICE_NAME,
    shown("online", "Online", FieldType::Boolean),
    shown("operating_system", "Operating system", FieldType::String),
    shown("ports_url", "Ports url", FieldType::Url),
    shown("processor_speed", "Processor speed", FieldType::Integer).range(Amount::MIN, Amount::MAX),
    shown("ram_capacity", "Ram capacity", FieldType::Integer).range(Amount::MIN, Amount::MAX),
    shown("reboot_url", "Reboot url", FieldType::Url),
    shown("serial", "Serial", FieldType::String).format("uuid"),
    DEVICE_TAGS,
    shown("uname", "Uname", FieldType::String),
    shown("url", "Url", FieldType::Url),
    shown("wormhole_slug", "Wormhole slug", FieldType::String),
];

/// A device.
pub const DEVICE_SCHEMA: ObjectSchema = ObjectSchema {
    name: "Device",
    description: "A device of the account. `name`, `description` and `tags` are the user's; the facts are its agent's last report, `last_seen_time` the time of its last heartbeat (null before the first).",
    fields: DEVICE_FIELDS,
};

/// `port` of a reported port.
pub(crate) const PORT_NUMBER: Field =
    Field::integer("port", "Port").range(PortNumber::MIN as i64, PortNumber::MAX as i64);
/// `protocol` of a reported port.
pub(crate) const PORT_PROTOCOL: Field =
    Field::text("protocol", "Protocol").choices(&domain::Protocol::CODES);
/// `name` of a reported port.
pub(crate) const PORT_NAME: Field = Field::bounded::<PortName>("name", "Name").optional();
/// A listening port, as reported in heartbeats and listed.
pub const PORT_FIELDS: &[Field] = &[PORT_NUMBER, PORT_PROTOCOL, PORT_NAME];

/// A listening port of a device.
pub const PORT_SCHEMA: ObjectSchema = ObjectSchema {
    name: "Port",
    description: "A port the device's agent reported as listening.",
    fields: PORT_FIELDS,
};

/// A listening port as the API shows it.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct PortJson {
    port: u16,
    protocol: &'static str,
    name: String,
}

impl From<&Port> for PortJson {
    fn from(port: &Port) -> Self {
        Self {
            port: port.number.get(),
            protocol: port.protocol.code(),
            name: port.name.as_str().to_owned(),
        }
    }
}

impl Described for PortJson {
    const SCHEMA: &'static ObjectSchema = &PORT_SCHEMA;

    fn example() -> Self {
        Self::from(&ex::port())
    }
}

/// The fields of a command of a device, as its owner sees it.
pub const COMMAND_RECORD_FIELDS: &[Field] = &[
    shown("id", "Id", FieldType::String).format("uuid"),
    shown("action", "Action", FieldType::String).choices(&Action::CODES),
    shown("status", "Status", FieldType::String).choices(&CommandState::CODES),
    shown("issued_time", "Issued time", FieldType::Datetime),
    shown("delivered_time", "Delivered time", FieldType::Datetime).nullable(),
    shown("acked_time", "Acked time", FieldType::Datetime).nullable(),
    shown("detail", "Detail", FieldType::String),
];

/// A command in a device's history, as its owner sees it.
pub const COMMAND_RECORD_SCHEMA: ObjectSchema = ObjectSchema {
    name: "CommandRecord",
    description: "A command of the device: what was asked, when, and where it stands.",
    fields: COMMAND_RECORD_FIELDS,
};

/// A command of a device's history as its owner sees it.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct CommandRecordJson {
    id: String,
    action: &'static str,
    status: &'static str,
    issued_time: String,
    delivered_time: Option<String>,
    acked_time: Option<String>,
    detail: String,
}

impl From<&CommandView> for CommandRecordJson {
    fn from(view: &CommandView) -> Self {
        let record = &view.record;
        Self {
            id: record.command.id.to_string(),
            action: record.command.action.code(),
            status: view.state.code(),
            issued_time: format_api(record.command.issued_time),
            delivered_time: record.delivered_time.map(format_api),
            acked_time: record.acked_time.map(format_api),
            detail: record.detail.as_str().to_owned(),
        }
    }
}

impl Described for CommandRecordJson {
    const SCHEMA: &'static ObjectSchema = &COMMAND_RECORD_SCHEMA;

    fn example() -> Self {
        Self::from(&CommandView {
            record: CommandRecord {
                command: Command {
                    id: ex::command_id(),
                    action: Action::Reboot,
                    issued_time: ex::at(ex::ISSUED),
                },
                delivered_time: Some(ex::at(ex::DELIVERED)),
                acked_time: Some(ex::at(ex::ACKNOWLEDGED)),
                status: Some(CommandStatus::Done),
                detail: domain::AckDetail::default(),
            },
            state: CommandState::Done,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::description::assert_described;
    use domain::Protocol;

    #[test]
    fn ports_and_commands_write_their_described_fields() {
        let port = Port::new(
            PortNumber::new(22).unwrap(),
            Protocol::Tcp,
            PortName::parse("ssh").unwrap(),
        );
        assert_described(&PortJson::from(&port));
        let command = Command {
            id: domain::CommandId::parse("0f8fad5b-d9cb-469f-a165-70867728950e").unwrap(),
            action: Action::Reboot,
            issued_time: chrono::DateTime::UNIX_EPOCH,
        };
        let view = CommandView {
            record: CommandRecord {
                command,
                delivered_time: None,
                acked_time: None,
                status: None,
                detail: domain::AckDetail::default(),
            },
            state: CommandState::Pending,
        };
        assert_described(&CommandRecordJson::from(&view));
    }
}
