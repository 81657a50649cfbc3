//! A listing asked again: read afresh, or found to answer as it did when a
//! stamp was taken, so that its answer can be sent again without reading
//! the devices (docs/architecture.md, "Listing answers").
//!
//! A listing's answer depends on the account's devices and their tags,
//! which the store's fleet version vouches for, and on the time, which
//! turns online devices offline. So a stamp holds the version the devices
//! were read at and the first moment one of the listed devices goes
//! offline by time alone; a listing filtered on being online, whose count
//! and members time moves, gets no stamp.

use super::Devices;
use super::selection::{DevicesPage, Listing};
use crate::ports::{FleetVersion, StoreError};
use domain::{Account, Timestamp};

/// What a listing's answer was read at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ListingStamp {
    pub(super) version: FleetVersion,
    /// When the devices' online states were worked out.
    pub(super) read_at: Timestamp,
    /// The first moment a device listed online goes offline (`None`: no
    /// device was listed online).
    pub(super) changes_at: Option<Timestamp>,
}

impl ListingStamp {
    /// A stamp at `version`, read at `read_at`, with no device online: for
    /// the tests of adapters that keep stamps.
    #[cfg(any(test, feature = "mocks"))]
    pub fn for_tests(version: FleetVersion, read_at: Timestamp) -> Self {
        Self {
            version,
            read_at,
            changes_at: None,
        }
    }

    /// Whether the listing, read at `version` at the time `now`, answers as
    /// it did: same version, and the time neither before the stamp (a clock
    /// set back) nor at a device's going offline.
    fn holds(&self, version: FleetVersion, now: Timestamp) -> bool {
        self.version == version
            && self.read_at <= now
            && self.changes_at.is_none_or(|changes_at| now < changes_at)
    }
}

/// A listing asked again, with what was kept of its earlier answer (`T`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Relisted<T> {
    /// It answers as it did when the stamp given was taken: what was kept
    /// with the stamp, given back.
    Unchanged(T),
    /// Read afresh, with a stamp to ask with next time (`None` when the
    /// store keeps no version or the listing depends on the time).
    Read {
        /// The listing's page.
        page: DevicesPage,
        /// What it was read at.
        stamp: Option<ListingStamp>,
    },
}

impl Devices {
    /// The listing, unless it answers as it did when `kept`'s stamp was
    /// taken (what was kept of that answer is then given back).
    pub async fn query_since<T>(
        &self,
        owner: &Account,
        listing: Listing,
        kept: Option<(ListingStamp, T)>,
    ) -> Result<Relisted<T>, StoreError> {
        let timeless = listing
            .selector
            .criteria()
            .is_none_or(|criteria| criteria.online.is_none());
        // The version first: devices read after it are at least as new.
        let version = match timeless {
            true => self.devices.fleet_version(owner.id).await?,
            false => None,
        };
        let now = self.clock.now();
        if let (Some(version), Some((since, kept))) = (version, kept)
            && since.holds(version, now)
        {
            return Ok(Relisted::Unchanged(kept));
        }
        let page = self.query_at(owner, listing, now).await?;
        let stamp = version.map(|version| ListingStamp {
            version,
            read_at: now,
            changes_at: page
                .views
                .iter()
                .filter(|view| view.online)
                .filter_map(|view| view.device.last_seen)
                .map(|seen| seen + self.online_window)
                .min(),
        });
        Ok(Relisted::Read { page, stamp })
    }
}
