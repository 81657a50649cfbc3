//! Devices and commands as pages show them, and as live updates send them
//! (the same values, so a page and its updates agree).

use super::time::Moment;
use application::use_cases::{CommandView, DeviceView};
use domain::{Amount, Timestamp};
use serde::Serialize;

/// A device's row in the fleet.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct DeviceRow {
    pub(crate) serial: String,
    pub(crate) name: String,
    pub(crate) description: String,
    pub(crate) online: bool,
    pub(crate) machine_type: &'static str,
    /// When it was last seen, `None` before its first heartbeat.
    pub(crate) last_seen: Option<Moment>,
    /// Its tags, ascending.
    pub(crate) tags: Vec<String>,
}

impl DeviceRow {
    /// The row of `view`, seen at `now`.
    pub(crate) fn of(view: &DeviceView, now: Timestamp) -> Self {
        let device = &view.device;
        Self {
            serial: device.serial.as_str().to_owned(),
            name: device.name.as_str().to_owned(),
            description: device.description.as_str().to_owned(),
            online: view.online,
            machine_type: device.facts.machine_type.display_name(),
            last_seen: device.last_seen.map(|at| Moment::of(at, now)),
            tags: tag_texts(&device.tags),
        }
    }

    /// "Online" or "Offline".
    pub(crate) fn status(&self) -> &'static str {
        if self.online { "Online" } else { "Offline" }
    }
}

/// The texts of a device's tags, ascending.
pub(crate) fn tag_texts(tags: &domain::TagSet) -> Vec<String> {
    tags.as_slice()
        .iter()
        .map(|tag| tag.as_str().to_owned())
        .collect()
}

/// A command's row in a device's history.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct CommandRow {
    pub(crate) id: String,
    pub(crate) action: &'static str,
    /// The word of the API (`pending`, `delivered`, …).
    pub(crate) status: &'static str,
    pub(crate) issued: Moment,
    pub(crate) delivered: Option<Moment>,
    pub(crate) acked: Option<Moment>,
    pub(crate) detail: String,
}

impl CommandRow {
    /// The row of `view`, seen at `now`.
    pub(crate) fn of(view: &CommandView, now: Timestamp) -> Self {
        let record = &view.record;
        Self {
            id: record.command.id.as_str().to_owned(),
            action: record.command.action.code(),
            status: view.state.code(),
            issued: Moment::of(record.command.issued_time, now),
            delivered: record.delivered_time.map(|at| Moment::of(at, now)),
            acked: record.acked_time.map(|at| Moment::of(at, now)),
            detail: record.detail.as_str().to_owned(),
        }
    }
}

/// Mebibytes as people read them: "512 MiB", "3.7 GiB"; `None` while unknown (0).
pub(crate) fn mebibytes(amount: Amount) -> Option<String> {
    let mib = amount.get();
    match mib {
        ..=0 => None,
        1..1024 => Some(format!("{mib} MiB")),
        _ => Some(format!("{:.1} GiB", mib as f64 / 1024.0)),
    }
}

/// Bytes as people read them: "750 MB", "31.9 GB".
pub(crate) fn bytes(amount: Amount) -> String {
    let bytes = amount.get() as f64;
    const UNITS: [&str; 5] = ["B", "kB", "MB", "GB", "TB"];
    let mut value = bytes;
    let mut unit = 0;
    while value >= 1000.0 && unit < UNITS.len() - 1 {
        value /= 1000.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{value:.0} B")
    } else {
        format!("{value:.1} {}", UNITS[unit])
    }
}

/// Megahertz as people read them; `None` while unknown (0).
pub(crate) fn megahertz(amount: Amount) -> Option<String> {
    let mhz = amount.get();
    match mhz {
        ..=0 => None,
        1..1000 => Some(format!("{mhz} MHz")),
        _ => Some(format!("{:.1} GHz", mhz as f64 / 1000.0)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn amounts_read_naturally() {
        let amount = |n| Amount::new(n).unwrap();
        assert_eq!(mebibytes(amount(0)), None);
        assert_eq!(mebibytes(amount(512)).as_deref(), Some("512 MiB"));
        assert_eq!(mebibytes(amount(3840)).as_deref(), Some("3.8 GiB"));
        assert_eq!(bytes(amount(999)), "999 B");
        assert_eq!(bytes(amount(31_900_000_000)), "31.9 GB");
        assert_eq!(megahertz(amount(0)), None);
        assert_eq!(megahertz(amount(600)).as_deref(), Some("600 MHz"));
        assert_eq!(megahertz(amount(1500)).as_deref(), Some("1.5 GHz"));
    }
}
