//! When a monitor opens an alert and when the alert resolves.
//!
//! An open alert resolves once its condition has been calm (the device
//! online, the fleet's share at or below the ratio) without a break for two
//! online windows, so a device that comes back and drops again sooner keeps
//! its one alert. The engine observes the fleet at least once a second and
//! remembers since when each open alert has been calm (`calm_since`), and
//! since when a fleet monitor's share has been above its ratio.

use crate::time::Timestamp;
use chrono::Duration;

/// Whether a device seen last at `last_seen` (`None`: never) is down at
/// `now` for a monitor that waits `after`: seen, but not for longer than that.
pub fn is_down(last_seen: Option<Timestamp>, now: Timestamp, after: Duration) -> bool {
    last_seen.is_some_and(|seen| now - seen > after)
}

/// What becomes of an open alert at one observation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CalmVerdict {
    /// It resolves now.
    Resolve,
    /// It stays open, calm since this time (`None`: not calm now).
    Stay(Option<Timestamp>),
}

/// Settles a device monitor's open alert at `now`. `device` is the device
/// as observed: `None` when it is gone, else whether the monitor's selector
/// still matches it and its last heartbeat. A device online (last heartbeat
/// within `online_window`) is calm; the alert resolves once it has been calm
/// for two windows, or at once when the device is gone or no longer matches.
pub fn settle_device_alert(
    device: Option<(bool, Option<Timestamp>)>,
    calm_since: Option<Timestamp>,
    now: Timestamp,
    online_window: Duration,
) -> CalmVerdict {
    let Some((true, last_seen)) = device else {
        return CalmVerdict::Resolve;
    };
    match last_seen {
        Some(seen) if now - seen < online_window => {
            calm_verdict(calm_since.unwrap_or(seen).min(now), now, online_window)
        }
        _ => CalmVerdict::Stay(None),
    }
}

/// What a fleet monitor does at one observation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FleetVerdict {
    /// No alert is open: one opens now.
    Open,
    /// No alert is open and none opens; the share has been above the ratio
    /// since this time (`None`: it is not above now).
    Watch(Option<Timestamp>),
    /// The open alert resolves or stays (see [`CalmVerdict`]).
    Alert(CalmVerdict),
}

/// Decides a fleet monitor's step at `now`: `above` is whether the offline
/// share is above its ratio now; `open_calm_since` is `Some` when an alert
/// is open (holding since when the share has been at or below the ratio);
/// `above_since` since when the share has been above it with no alert open.
pub fn fleet_verdict(
    above: bool,
    open_calm_since: Option<Option<Timestamp>>,
    above_since: Option<Timestamp>,
    now: Timestamp,
    after: Duration,
    online_window: Duration,
) -> FleetVerdict {
    match open_calm_since {
        Some(_) if above => FleetVerdict::Alert(CalmVerdict::Stay(None)),
        Some(calm_since) => {
            FleetVerdict::Alert(calm_verdict(calm_since.unwrap_or(now), now, online_window))
        }
        None if !above => FleetVerdict::Watch(None),
        None => {
            let since = above_since.unwrap_or(now);
            if now - since >= after {
                FleetVerdict::Open
            } else {
                FleetVerdict::Watch(Some(since))
            }
        }
    }
}

/// Calm since `since`: resolved after two online windows.
fn calm_verdict(since: Timestamp, now: Timestamp, online_window: Duration) -> CalmVerdict {
    if now - since >= online_window * 2 {
        CalmVerdict::Resolve
    } else {
        CalmVerdict::Stay(Some(since))
    }
}

#[cfg(test)]
#[path = "evaluation_tests.rs"]
mod tests;
