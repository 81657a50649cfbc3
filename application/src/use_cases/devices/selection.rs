//! The fleet view: listing devices by a selector, in an order, a page at a
//! time; previewing a selection; the account's tags; tagging many devices
//! at once.

use super::super::Requester;
use super::{DeviceView, Devices};
use crate::ports::{DeviceQuery, Retagged, StoreError, Window};
use domain::{Account, DeviceOrdering, Selector, TagChange, TagCount, Timestamp};
use thiserror::Error;

/// How many devices a selection's preview shows.
pub const PREVIEW: u32 = 100;

/// What to list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Listing {
    /// Which devices.
    pub selector: Selector,
    /// In what order.
    pub ordering: DeviceOrdering,
    /// Which page (`None`: every selected device).
    pub window: Option<Window>,
}

/// Some of the selected devices, each with its online state, and how many
/// were selected in all.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DevicesPage {
    /// How many devices the selector selects.
    pub count: u64,
    /// Those of the page, in order.
    pub views: Vec<DeviceView>,
}

/// Why many devices' tags could not be changed.
#[derive(Debug, Error)]
pub enum RetagError {
    /// A selected device would carry more than 20 tags; nothing changed.
    #[error("A device would have more than 20 tags.")]
    TooManyTags,
    /// Infrastructure failure.
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl Devices {
    /// The account's devices the listing selects, in its order and page.
    pub async fn query(
        &self,
        owner: &Account,
        listing: Listing,
    ) -> Result<DevicesPage, StoreError> {
        self.query_at(owner, listing, self.clock.now()).await
    }

    /// [`query`](Self::query), online as of `now`.
    pub(super) async fn query_at(
        &self,
        owner: &Account,
        listing: Listing,
        now: Timestamp,
    ) -> Result<DevicesPage, StoreError> {
        let query = DeviceQuery {
            selector: listing.selector,
            ordering: listing.ordering,
            window: listing.window,
            online_after: now - self.online_window,
        };
        let page = self.devices.query(owner.id, &query).await?;
        Ok(DevicesPage {
            count: page.count,
            views: page
                .devices
                .into_iter()
                .map(|device| self.view(device, now))
                .collect(),
        })
    }

    /// How many devices the selector selects now, and the first
    /// [`PREVIEW`] of them in list order.
    pub async fn select(
        &self,
        owner: &Account,
        selector: Selector,
    ) -> Result<DevicesPage, StoreError> {
        let window = Window {
            limit: PREVIEW,
            offset: 0,
        };
        let listing = Listing {
            selector,
            ordering: DeviceOrdering::default(),
            window: Some(window),
        };
        self.query(owner, listing).await
    }

    /// Every tag on at least one of the account's devices, by name.
    pub async fn tags(&self, owner: &Account) -> Result<Vec<TagCount>, StoreError> {
        self.devices.tag_counts(owner.id).await
    }

    /// Takes the change's `remove` tags off every selected device, then puts
    /// its `add` tags on, all or nothing. Returns how many were selected.
    pub async fn retag(
        &self,
        by: Requester<'_>,
        selector: &Selector,
        change: &TagChange,
    ) -> Result<u64, RetagError> {
        let owner = by.account;
        let now = self.clock.now();
        let online_after = now - self.online_window;
        match self
            .devices
            .retag(owner.id, selector, online_after, change, &by.origin(now))
            .await?
        {
            Retagged::TooManyTags => Err(RetagError::TooManyTags),
            Retagged::Matched(count) => {
                if count > 0 {
                    self.signals.announce(owner.id).await;
                }
                Ok(count)
            }
        }
    }
}
