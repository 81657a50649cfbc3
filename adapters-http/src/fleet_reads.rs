//! One read of an account's fleet shared by every console stream of the
//! account that wakes for the same change: an announcement wakes them all
//! at once, and the first to look reads for the others.

use application::use_cases::DeviceView;
use domain::AccountId;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// A read is forgotten this long after it was made.
const KEPT: Duration = Duration::from_secs(60);

/// A read of a fleet: when it started, and what it read.
type Read = (Instant, Arc<Vec<DeviceView>>);

/// The latest read of each watched account's fleet.
#[derive(Default)]
pub(crate) struct FleetReads {
    latest: Mutex<HashMap<AccountId, Read>>,
}

impl FleetReads {
    fn latest(&self) -> MutexGuard<'_, HashMap<AccountId, Read>> {
        // Every operation on the map is one insert, lookup or retain.
        self.latest
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The account's fleet as read by a read that started at or after
    /// `since` (so it saw every change announced before `since`), if any.
    pub(crate) fn since(&self, account: AccountId, since: Instant) -> Option<Arc<Vec<DeviceView>>> {
        self.latest()
            .get(&account)
            .filter(|(started, _)| *started >= since)
            .map(|(_, views)| Arc::clone(views))
    }

    /// Keeps a read of the account's fleet that started at `started`.
    pub(crate) fn keep(&self, account: AccountId, started: Instant, views: Arc<Vec<DeviceView>>) {
        let mut latest = self.latest();
        latest.retain(|_, (at, _)| at.elapsed() < KEPT);
        let newer = latest.get(&account).is_some_and(|(at, _)| *at > started);
        if !newer {
            latest.insert(account, (started, views));
        }
    }
}
