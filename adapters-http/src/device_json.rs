//! The device object (exactly the seed's 18 fields), its ports, and the
//! commands handed to its agent.

use application::use_cases::{CommandView, DeviceView};
use domain::time::format_api;
use domain::{Command, Port};
use serde::Serialize;

/// A device as the API shows it.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct DeviceJson {
    agent_version: String,
    created_time: String,
    description: String,
    disk_capacity: Option<i64>,
    disk_used: Option<i64>,
    machine_type: &'static str,
    machine_type_display: &'static str,
    name: String,
    online: bool,
    operating_system: String,
    ports_url: String,
    processor_speed: i64,
    ram_capacity: i64,
    reboot_url: String,
    serial: String,
    uname: String,
    url: String,
    wormhole_slug: String,
}

impl DeviceJson {
    /// Renders a device with absolute URLs under `base_url`.
    pub fn new(view: DeviceView, base_url: &str) -> Self {
        let DeviceView { device, online } = view;
        let url = format!("{base_url}/devices/{}/", device.serial);
        Self {
            agent_version: device.facts.agent_version.into_string(),
            created_time: format_api(device.created_time),
            description: device.description.into_string(),
            disk_capacity: device.facts.disk_capacity,
            disk_used: device.facts.disk_used,
            machine_type: device.facts.machine_type.code(),
            machine_type_display: device.facts.machine_type.display_name(),
            name: device.name.into_string(),
            online,
            operating_system: device.facts.operating_system.into_string(),
            ports_url: format!("{url}ports/"),
            processor_speed: device.facts.processor_speed,
            ram_capacity: device.facts.ram_capacity,
            reboot_url: format!("{url}reboot/"),
            serial: device.serial.to_string(),
            uname: device.facts.uname.into_string(),
            url,
            wormhole_slug: device.wormhole_slug,
        }
    }
}

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

/// A command as handed to an agent.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct CommandJson {
    id: String,
    action: &'static str,
    issued_time: String,
}

impl From<&Command> for CommandJson {
    fn from(command: &Command) -> Self {
        Self {
            id: command.id.clone(),
            action: command.action.code(),
            issued_time: format_api(command.issued_time),
        }
    }
}

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
            id: record.command.id.clone(),
            action: record.command.action.code(),
            status: view.state.code(),
            issued_time: format_api(record.command.issued_time),
            delivered_time: record.delivered_time.map(format_api),
            acked_time: record.acked_time.map(format_api),
            detail: record.detail.as_str().to_owned(),
        }
    }
}
