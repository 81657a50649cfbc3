//! Watching a fleet: what an open console needs to stay current without
//! polling. Changes that someone makes are announced through the
//! [`FleetSignals`] port; changes that happen by time alone (a device going
//! offline, a command lapsing) are foreseen by [`Watching::next_change`].

use super::devices::{CommandView, DeviceView};
use crate::ports::{Clock, FleetListener, FleetSignals};
use chrono::Duration;
use domain::{Account, CommandState, Timestamp};
use std::sync::Arc;

/// Watching an account's fleet change.
#[derive(Clone)]
pub struct Watching {
    pub(super) signals: Arc<dyn FleetSignals>,
    pub(super) clock: Arc<dyn Clock>,
    pub(super) online_window: Duration,
    pub(super) command_lifetime: Duration,
}

impl Watching {
    /// Starts watching the account's fleet: the listener returns when
    /// someone changed it. Watch before reading the fleet.
    pub fn watch(&self, owner: &Account) -> Box<dyn FleetListener> {
        self.signals.watch(owner.id)
    }

    /// Now, by the application's clock (pages say how long ago things were).
    pub fn now(&self) -> Timestamp {
        self.clock.now()
    }

    /// The first instant, after the moment these views were made, at which
    /// one of them changes by time alone: an online device goes offline, or
    /// a command that has not ended lapses. `None` when nothing will.
    pub fn next_change(
        &self,
        devices: &[DeviceView],
        commands: &[CommandView],
    ) -> Option<Timestamp> {
        let offline = devices
            .iter()
            .filter(|view| view.online)
            .filter_map(|view| view.device.last_seen)
            .map(|seen| seen + self.online_window);
        let lapse = commands
            .iter()
            .filter(|view| matches!(view.state, CommandState::Pending | CommandState::Delivered))
            .map(|view| view.record.command.issued_time + self.command_lifetime);
        offline.chain(lapse).min()
    }
}

#[cfg(test)]
mod tests;
