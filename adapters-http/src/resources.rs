//! The JSON objects the API answers with, described field by field. The same
//! descriptions drive the OPTIONS metadata of the bodies that take them and
//! the schemas of the OpenAPI document.

use crate::fields::{Field, FieldType};
use domain::{
    Action, CommandState, DeviceDescription, DeviceName, MachineType, PortName, PortNumber,
    ProfileName,
};

/// A JSON object of the API, named in the OpenAPI document's components.
pub struct Resource {
    /// The component name.
    pub name: &'static str,
    /// What it is.
    pub description: &'static str,
    /// Its fields; in a response every one of them is always present.
    pub fields: &'static [Field],
}

const fn shown(name: &'static str, label: &'static str, kind: FieldType) -> Field {
    Field::read_only(name, label, kind)
}

/// `name` of a device.
pub(crate) const DEVICE_NAME: Field = Field::text("name", "Name").max(DeviceName::MAX_CHARS);
/// `description` of a device.
pub(crate) const DEVICE_DESCRIPTION: Field = Field::text("description", "Description")
    .optional()
    .blank_ok()
    .max(DeviceDescription::MAX_CHARS);
/// `name` of the profile, its only writable field.
pub(crate) const PROFILE_NAME: Field = Field::text("name", "Name")
    .optional()
    .blank_ok()
    .max(ProfileName::MAX_CHARS);

/// `port` of a reported port.
pub(crate) const PORT_NUMBER: Field =
    Field::integer("port", "Port").range(PortNumber::MIN as i64, PortNumber::MAX as i64);
/// `protocol` of a reported port.
pub(crate) const PORT_PROTOCOL: Field =
    Field::text("protocol", "Protocol").choices(&domain::Protocol::CODES);
/// `name` of a reported port.
pub(crate) const PORT_NAME: Field = Field::text("name", "Name")
    .optional()
    .blank_ok()
    .max(PortName::MAX_CHARS);
/// A listening port, as reported in heartbeats and listed.
pub(crate) const PORT_FIELDS: &[Field] = &[PORT_NUMBER, PORT_PROTOCOL, PORT_NAME];

/// The device as PUT and PATCH see it: every field, only two writable.
pub(crate) const DEVICE_FIELDS: &[Field] = &[
    shown("agent_version", "Agent version", FieldType::String),
    shown("created_time", "Created time", FieldType::Datetime),
    DEVICE_DESCRIPTION,
    shown("disk_capacity", "Disk capacity", FieldType::Integer)
        .nullable()
        .range(0, i64::MAX),
    shown("disk_used", "Disk used", FieldType::Integer)
        .nullable()
        .range(0, i64::MAX),
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
    shown("processor_speed", "Processor speed", FieldType::Integer).range(0, i64::MAX),
    shown("ram_capacity", "Ram capacity", FieldType::Integer).range(0, i64::MAX),
    shown("reboot_url", "Reboot url", FieldType::Url),
    shown("serial", "Serial", FieldType::String).format("uuid"),
    shown("uname", "Uname", FieldType::String),
    shown("url", "Url", FieldType::Url),
    shown("wormhole_slug", "Wormhole slug", FieldType::String),
];

/// The profile as PUT and PATCH see it.
pub(crate) const PROFILE_FIELDS: &[Field] = &[
    shown("email", "Email", FieldType::Email),
    shown("email_verified", "Email verified", FieldType::Boolean),
    shown(
        "has_usable_password",
        "Has usable password",
        FieldType::Boolean,
    ),
    shown("install_command", "Install command", FieldType::String),
    shown("install_token", "Install token", FieldType::String),
    PROFILE_NAME,
];

const COMMAND_FIELDS: &[Field] = &[
    shown("id", "Id", FieldType::String).format("uuid"),
    shown("action", "Action", FieldType::String).choices(&Action::CODES),
    shown("issued_time", "Issued time", FieldType::Datetime),
];
const COMMANDS: Field = shown("commands", "Commands", FieldType::List).children(COMMAND_FIELDS);

/// A device.
pub const DEVICE: Resource = Resource {
    name: "Device",
    description: "A device of the account. `name` and `description` are the user's; the facts are its agent's last report.",
    fields: DEVICE_FIELDS,
};

/// The account's profile.
pub const PROFILE: Resource = Resource {
    name: "Profile",
    description: "The account's profile. Only `name` can be changed.",
    fields: PROFILE_FIELDS,
};

/// A listening port of a device.
pub const PORT: Resource = Resource {
    name: "Port",
    description: "A port the device's agent reported as listening.",
    fields: PORT_FIELDS,
};

/// A new API token.
pub const AUTH_TOKEN: Resource = Resource {
    name: "AuthToken",
    description: "A new API token: send it as `Authorization: Token <token>`.",
    fields: &[shown("token", "Token", FieldType::String)],
};

/// A message: success notes and every error that is not about fields.
pub const DETAIL: Resource = Resource {
    name: "Detail",
    description: "A message about the whole request.",
    fields: &[shown("detail", "Detail", FieldType::String)],
};

/// An enrolled device's credentials.
pub const ENROLMENT: Resource = Resource {
    name: "Enrolment",
    description: "The enrolled device: its serial, its URL, and the device token its agent sends as `Authorization: Device <device_token>`.",
    fields: &[
        shown("serial", "Serial", FieldType::String).format("uuid"),
        shown("device_token", "Device token", FieldType::String),
        shown("url", "Url", FieldType::Url),
    ],
};

/// The commands handed to an agent by a long poll.
pub const COMMAND_LIST: Resource = Resource {
    name: "CommandList",
    description: "Commands handed out to the device. One not acknowledged within 15 seconds is handed out again, with the same id.",
    fields: &[COMMANDS],
};

/// A command in a device's history, as its owner sees it.
pub const COMMAND_RECORD: Resource = Resource {
    name: "CommandRecord",
    description: "A command of the device: what was asked, when, and where it stands.",
    fields: &[
        shown("id", "Id", FieldType::String).format("uuid"),
        shown("action", "Action", FieldType::String).choices(&Action::CODES),
        shown("status", "Status", FieldType::String).choices(&CommandState::CODES),
        shown("issued_time", "Issued time", FieldType::Datetime),
        shown("delivered_time", "Delivered time", FieldType::Datetime).nullable(),
        shown("acked_time", "Acked time", FieldType::Datetime).nullable(),
        shown("detail", "Detail", FieldType::String),
    ],
};

/// The answer to a heartbeat.
pub const HEARTBEAT_REPLY: Resource = Resource {
    name: "HeartbeatReply",
    description: "Commands handed out to the device, and the seconds until its next heartbeat is due.",
    fields: &[
        COMMANDS,
        shown(
            "heartbeat_interval",
            "Heartbeat interval",
            FieldType::Integer,
        )
        .range(1, i64::MAX),
    ],
};

/// Every resource, for the OpenAPI components.
pub const ALL: &[&Resource] = &[
    &AUTH_TOKEN,
    &COMMAND_LIST,
    &COMMAND_RECORD,
    &DETAIL,
    &DEVICE,
    &ENROLMENT,
    &HEARTBEAT_REPLY,
    &PORT,
    &PROFILE,
];
