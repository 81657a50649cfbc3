//! Monitors and alerts as the console's pages word them: a monitor's kind
//! ("any device offline for 10 min", "more than 20 % offline for 5 min"),
//! its selector and snooze in words, and an alert's row.

use super::jobs_views::selector_in_words;
use super::time::Moment;
use application::ports::{AlertRecord, MonitorRecord};
use domain::alerting::percent;
use domain::{MonitorKind, Timestamp};

/// A wait in words: "90 s", "10 min", "2 h", "1 h 30 min".
pub(crate) fn wait_in_words(seconds: u32) -> String {
    let (hours, minutes, rest) = (seconds / 3600, seconds % 3600 / 60, seconds % 60);
    if rest != 0 || seconds < 60 {
        return format!("{seconds} s");
    }
    match (hours, minutes) {
        (0, minutes) => format!("{minutes} min"),
        (hours, 0) => format!("{hours} h"),
        (hours, minutes) => format!("{hours} h {minutes} min"),
    }
}

/// What a monitor watches for, in words.
pub(crate) fn kind_in_words(kind: MonitorKind, after_seconds: u32) -> String {
    let wait = wait_in_words(after_seconds);
    match kind {
        MonitorKind::DeviceOffline => format!("any device offline for {wait}"),
        MonitorKind::FleetOfflineRatio(ratio) => {
            format!("more than {} % offline for {wait}", percent(ratio))
        }
    }
}

/// A moment to come, as a page shows it: "in 8 h", the exact time beside.
pub(crate) fn ahead(at: Timestamp, now: Timestamp) -> Moment {
    let seconds = (at - now).num_seconds().max(0);
    let words = match seconds {
        0..=59 => "in less than a minute".to_owned(),
        60..=3599 => format!("in {} min", seconds / 60),
        3600..=86_399 => format!("in {} h", seconds / 3600),
        _ => format!("in {} days", seconds / 86_400),
    };
    Moment {
        ago: words,
        ..Moment::of(at, now)
    }
}

/// A monitor as the console lists and shows it.
pub(crate) struct MonitorRow {
    pub(crate) id: String,
    pub(crate) name: String,
    /// "any device offline for 10 min".
    pub(crate) kind: String,
    /// "tagged lab, online"; "every device".
    pub(crate) selector: String,
    /// Until when it is snoozed (`None`: it is not).
    pub(crate) snoozed_until: Option<Moment>,
    pub(crate) created: Moment,
}

impl MonitorRow {
    /// The row of `monitor`, seen at `now` (a snooze that has ended is none).
    pub(crate) fn of(monitor: &MonitorRecord, now: Timestamp) -> Self {
        Self {
            id: monitor.id.as_str().to_owned(),
            name: monitor.name.as_str().to_owned(),
            kind: kind_in_words(monitor.kind, monitor.after.seconds()),
            selector: selector_in_words(&monitor.selector_json),
            snoozed_until: monitor
                .snoozed_until
                .filter(|until| *until > now)
                .map(|until| ahead(until, now)),
            created: Moment::of(monitor.created_time, now),
        }
    }
}

/// An alert's row on the Alerts page.
pub(crate) struct AlertRow {
    pub(crate) id: String,
    pub(crate) monitor_id: String,
    /// The monitor's name (its id when it is gone meanwhile).
    pub(crate) monitor: String,
    /// The device's serial; `None` for a fleet alert.
    pub(crate) serial: Option<String>,
    /// `open` or `resolved`.
    pub(crate) state: &'static str,
    pub(crate) reason: String,
    pub(crate) started: Moment,
    pub(crate) resolved: Option<Moment>,
}

impl AlertRow {
    /// The row of `alert`, whose monitor is named `monitor`, seen at `now`.
    pub(crate) fn of(alert: &AlertRecord, monitor: Option<&str>, now: Timestamp) -> Self {
        Self {
            id: alert.id.as_str().to_owned(),
            monitor_id: alert.monitor.as_str().to_owned(),
            monitor: monitor.map_or_else(|| alert.monitor.as_str().to_owned(), str::to_owned),
            serial: alert
                .serial
                .as_ref()
                .map(|serial| serial.as_str().to_owned()),
            state: alert.state.code(),
            reason: alert.reason.clone(),
            started: Moment::of(alert.started_time, now),
            resolved: alert.resolved_time.map(|at| Moment::of(at, now)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use domain::OfflineRatio;

    #[test]
    fn waits_and_kinds_read_as_words() {
        assert_eq!(wait_in_words(45), "45 s");
        assert_eq!(wait_in_words(90), "90 s");
        assert_eq!(wait_in_words(600), "10 min");
        assert_eq!(wait_in_words(7200), "2 h");
        assert_eq!(wait_in_words(5400), "1 h 30 min");
        assert_eq!(
            kind_in_words(MonitorKind::DeviceOffline, 600),
            "any device offline for 10 min"
        );
        let ratio = OfflineRatio::new(0.2).unwrap();
        assert_eq!(
            kind_in_words(MonitorKind::FleetOfflineRatio(ratio), 300),
            "more than 20 % offline for 5 min"
        );
    }
}
