//! `/console/devices/<serial>/`: one device, its facts, ports and
//! commands (live), its recent activity (its 10 newest audit entries,
//! docs/console.md, A device), and the buttons that reboot, edit and delete it.

use super::activity_views::ActivityRow;
use super::browser::Viewer;
use super::chrome::Chrome;
use super::failure::Failure;
use super::notice_query::NoticeCode;
use super::respond::render;
use super::time::Moment;
use super::views::{CommandRow, DeviceRow, bytes, mebibytes, megahertz};
use crate::state::HttpState;
use actix_web::HttpResponse;
use actix_web::http::StatusCode;
use actix_web::web::{self, Data};
use application::use_cases::DeviceView;
use askama::Template;
use domain::{Account, Serial};
use std::collections::HashMap;

/// Mounts the device page.
pub(super) fn mount(config: &mut web::ServiceConfig) {
    config.service(web::resource("/devices/{serial}/").route(web::get().to(show)));
}

/// One fact of the device: a label and its value.
pub(crate) struct Fact {
    pub(crate) label: &'static str,
    pub(crate) value: String,
}

/// A port as the page lists it.
pub(crate) struct PortRow {
    pub(crate) number: u16,
    pub(crate) protocol: &'static str,
    pub(crate) name: String,
}

/// The device page.
#[derive(Template)]
#[template(path = "console/device.html")]
struct DevicePage {
    chrome: Chrome,
    device: DeviceRow,
    facts: Vec<Fact>,
    ports: Vec<PortRow>,
    commands: Vec<CommandRow>,
    /// Its newest audit entries.
    activity: Vec<ActivityRow>,
}

/// The serial in the path, or 404.
pub(crate) fn serial_of(raw: &str) -> Result<Serial, Failure> {
    Serial::parse(raw).map_err(|_| Failure::NotFound)
}

/// The account's device with this serial, or 404.
pub(crate) async fn device_of(
    state: &HttpState,
    account: &Account,
    raw: &str,
) -> Result<DeviceView, Failure> {
    let serial = serial_of(raw)?;
    state
        .app
        .devices
        .get(account, &serial)
        .await?
        .ok_or(Failure::NotFound)
}

fn facts(view: &DeviceView, now: domain::Timestamp) -> Vec<Fact> {
    let device = &view.device;
    let facts = &device.facts;
    let or_unknown = |value: Option<String>| value.unwrap_or_else(|| "unknown".to_owned());
    let text = |value: &str| {
        if value.is_empty() {
            "not reported yet".to_owned()
        } else {
            value.to_owned()
        }
    };
    let disk = match (facts.disk_used, facts.disk_capacity) {
        (Some(used), Some(capacity)) => format!("{} used of {}", bytes(used), bytes(capacity)),
        (None, Some(capacity)) => bytes(capacity),
        _ => "unknown".to_owned(),
    };
    let created = Moment::of(device.created_time, now);
    vec![
        Fact {
            label: "Operating system",
            value: text(facts.operating_system.as_str()),
        },
        Fact {
            label: "Kernel",
            value: text(facts.uname.as_str()),
        },
        Fact {
            label: "Agent version",
            value: text(facts.agent_version.as_str()),
        },
        Fact {
            label: "Machine type",
            value: facts.machine_type.display_name().to_owned(),
        },
        Fact {
            label: "RAM",
            value: or_unknown(mebibytes(facts.ram_capacity)),
        },
        Fact {
            label: "Disk",
            value: disk,
        },
        Fact {
            label: "CPU speed",
            value: or_unknown(megahertz(facts.processor_speed)),
        },
        Fact {
            label: "Serial",
            value: device.serial.as_str().to_owned(),
        },
        Fact {
            label: "Created",
            value: format!("{} ({})", created.exact, created.ago),
        },
    ]
}

async fn show(
    state: Data<HttpState>,
    viewer: Viewer,
    path: web::Path<String>,
    NoticeCode(notice): NoticeCode,
) -> Result<HttpResponse, Failure> {
    let view = device_of(&state, &viewer.account, &path).await?;
    let serial = &view.device.serial;
    let ports = state
        .app
        .devices
        .ports(&viewer.account, serial)
        .await?
        .unwrap_or_default();
    let commands = state.app.devices.commands_of(&view).await?;
    let entries = state.app.audit.of_device(&viewer.account, serial).await?;
    let now = state.app.watching.now();
    // The entries' target is this device: no other needs a name.
    let names = HashMap::new();
    let page = DevicePage {
        chrome: viewer
            .browser
            .chrome(view.device.name.as_str(), "devices")
            .with_notice(notice.as_deref()),
        device: DeviceRow::of(&view, now),
        facts: facts(&view, now),
        ports: ports
            .iter()
            .map(|port| PortRow {
                number: port.number.get(),
                protocol: port.protocol.code(),
                name: port.name.as_str().to_owned(),
            })
            .collect(),
        commands: commands.iter().map(|c| CommandRow::of(c, now)).collect(),
        activity: entries
            .iter()
            .map(|entry| ActivityRow::of(entry, &names, now))
            .collect(),
    };
    Ok(render(StatusCode::OK, &page, None))
}
