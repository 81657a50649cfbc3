//! Audit entries as the console words them (docs/console.md, Activity): when
//! (relative, the exact UTC time beside), who ("alice@example.com",
//! "device 1b2c3d4e…", "cli"), what (the action's name), on what (a link to
//! a device the account still has, else the target's text) and from where.

use super::time::Moment;
use chrono::NaiveDateTime;
use domain::{AuditEntry, Timestamp};
use std::collections::HashMap;

/// How many characters of a device's serial name it as an actor.
const SHORT_SERIAL: usize = 8;

/// The serial of a device target (`device:<serial>`).
pub(crate) fn device_of_target(target: &str) -> Option<&str> {
    target.strip_prefix("device:")
}

/// The first characters of a serial, then "…".
pub(crate) fn short_serial(serial: &str) -> String {
    if serial.chars().count() <= SHORT_SERIAL {
        return serial.to_owned();
    }
    let head: String = serial.chars().take(SHORT_SERIAL).collect();
    format!("{head}…")
}

/// An entry's time as stored (`YYYY-MM-DDTHH:MM:SS`, UTC), if it reads as one.
fn time_of(text: &str) -> Option<Timestamp> {
    NaiveDateTime::parse_from_str(text, "%Y-%m-%dT%H:%M:%S")
        .ok()
        .map(|at| at.and_utc())
}

/// One entry as the Activity page and a device's page list it.
pub(crate) struct ActivityRow {
    /// The entry's id.
    pub(crate) id: u64,
    /// When; `None` when the stored time reads as no time (then `time_text`).
    pub(crate) time: Option<Moment>,
    /// The stored time.
    pub(crate) time_text: String,
    /// Who: the user's address, "device 1b2c3d4e…", "cli", "system", "anonymous".
    pub(crate) actor: String,
    /// The actor's whole label where `actor` shortens it (a device's serial).
    pub(crate) actor_title: Option<String>,
    /// The action's name (`device.reboot`).
    pub(crate) action: String,
    /// What the link or text of the target says.
    pub(crate) target: String,
    /// The page of the target: a device the account still has.
    pub(crate) target_url: Option<String>,
    /// The client's address, or "—".
    pub(crate) address: String,
}

impl ActivityRow {
    /// The row of `entry`, seen at `now`; `devices` names the account's
    /// devices by serial (a target among them links to its page).
    pub(crate) fn of(
        entry: &AuditEntry,
        devices: &HashMap<String, String>,
        now: Timestamp,
    ) -> Self {
        let (actor, actor_title) = match entry.actor_kind.as_str() {
            "user" => (entry.actor_label.clone(), None),
            "device" => (
                format!("device {}", short_serial(&entry.actor_label)),
                Some(entry.actor_label.clone()),
            ),
            kind if kind == entry.actor_label => (kind.to_owned(), None),
            kind => (format!("{kind} {}", entry.actor_label), None),
        };
        let device = device_of_target(&entry.target)
            .and_then(|serial| devices.get(serial).map(|name| (serial, name)));
        let (target, target_url) = match device {
            Some((serial, name)) => (name.clone(), Some(format!("/console/devices/{serial}/"))),
            None => (entry.target.clone(), None),
        };
        Self {
            id: entry.id,
            time: time_of(&entry.time).map(|at| Moment::of(at, now)),
            time_text: entry.time.clone(),
            actor,
            actor_title,
            action: entry.action.clone(),
            target,
            target_url,
            address: entry.ip.clone().unwrap_or_else(|| "—".to_owned()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    fn entry(kind: &str, label: &str, target: &str, ip: Option<&str>) -> AuditEntry {
        AuditEntry {
            id: 7,
            time: "2026-11-26T11:57:00".into(),
            actor_kind: kind.into(),
            actor_label: label.into(),
            action: "device.reboot".into(),
            target: target.into(),
            ip: ip.map(str::to_owned),
            detail: "{}".into(),
            previous_hash: "0".repeat(64),
            hash: "1".repeat(64),
        }
    }

    #[test]
    fn actors_targets_and_addresses_read_as_the_page_shows_them() {
        let now = chrono::Utc
            .with_ymd_and_hms(2026, 11, 26, 12, 0, 0)
            .unwrap();
        let serial = "1b2c3d4e-0a1b-4c2d-8e9f-0123456789ab";
        let devices = HashMap::from([(serial.to_owned(), "Lab Pi".to_owned())]);
        let target = format!("device:{serial}");
        let user = ActivityRow::of(
            &entry("user", "ops@example.com", &target, Some("203.0.113.9")),
            &devices,
            now,
        );
        assert_eq!(user.actor, "ops@example.com");
        assert_eq!(user.target, "Lab Pi");
        assert_eq!(
            user.target_url.as_deref(),
            Some(format!("/console/devices/{serial}/").as_str())
        );
        assert_eq!(user.address, "203.0.113.9");
        assert_eq!(
            user.time.as_ref().map(|t| t.ago.as_str()),
            Some("3 min ago")
        );
        let device = ActivityRow::of(&entry("device", serial, &target, None), &devices, now);
        assert_eq!(device.actor, "device 1b2c3d4e…");
        assert_eq!(device.actor_title.as_deref(), Some(serial));
        assert_eq!(device.address, "—");
        let gone = "device:9f9f9f9f-0a1b-4c2d-8e9f-0123456789ab";
        let system = ActivityRow::of(&entry("system", "system", gone, None), &devices, now);
        assert_eq!(system.actor, "system");
        assert_eq!(system.target, gone);
        assert_eq!(system.target_url, None);
        let mut edited = entry("cli", "cli", "job:1", None);
        edited.time = "yesterday".into();
        let edited = ActivityRow::of(&edited, &devices, now);
        assert_eq!(edited.actor, "cli");
        assert!(edited.time.is_none());
        assert_eq!(edited.time_text, "yesterday");
    }
}
