//! Selectors: which of an account's devices a listing, a preview, a bulk
//! tagging (and later a job or a monitor) is about. Each store turns a
//! selector into one query; [`Criteria::matches`] states the same rules for
//! one device, so tests can check a store against it.

use crate::device::Device;
use crate::machine_type::MachineType;
use crate::tag::Tag;
use std::cmp::Ordering;
use thiserror::Error;

/// The most serials one selector names.
pub const MAX_SERIALS: usize = 1000;

/// A case-insensitive substring of a device's name, description or serial.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Search(String);

impl Search {
    /// The search for `text`, lowercased; `None` for the empty text (no filter).
    pub fn new(text: &str) -> Option<Self> {
        (!text.is_empty()).then(|| Self(text.to_lowercase()))
    }

    /// The lowercased text to look for.
    pub fn needle(&self) -> &str {
        &self.0
    }

    /// Whether `text` holds the needle, ignoring case.
    pub fn found_in(&self, text: &str) -> bool {
        text.to_lowercase().contains(&self.0)
    }
}

/// What a selected device must be; each criterion given must hold.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Criteria {
    /// One of these serials (compared exactly; one the account does not
    /// have matches nothing).
    pub serials: Option<Vec<String>>,
    /// Every one of these tags (empty: no criterion).
    pub tags: Vec<Tag>,
    /// At least one of these tags (empty: no criterion).
    pub any_tags: Vec<Tag>,
    /// Online (`true`) or not (`false`).
    pub online: Option<bool>,
    /// Of this machine type.
    pub machine_type: Option<MachineType>,
    /// Holding this text.
    pub search: Option<Search>,
}

impl Criteria {
    /// Whether no criterion is given.
    pub fn is_empty(&self) -> bool {
        self == &Self::default()
    }

    /// Whether `device` (online or not, as given) meets every criterion.
    pub fn matches(&self, device: &Device, online: bool) -> bool {
        let serial_ok = self
            .serials
            .as_ref()
            .is_none_or(|serials| serials.iter().any(|s| s == device.serial.as_str()));
        let tags = &device.tags;
        serial_ok
            && self.tags.iter().all(|tag| tags.contains(tag))
            && (self.any_tags.is_empty() || self.any_tags.iter().any(|tag| tags.contains(tag)))
            && self.online.is_none_or(|wanted| wanted == online)
            && self
                .machine_type
                .is_none_or(|kind| kind == device.facts.machine_type)
            && self.search.as_ref().is_none_or(|search| {
                search.found_in(device.name.as_str())
                    || search.found_in(device.description.as_str())
                    || search.found_in(device.serial.as_str())
            })
    }
}

/// Which devices: every one, or those meeting the criteria.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Selector {
    /// Every device of the account.
    All,
    /// The devices meeting these criteria (at least one is given).
    Matching(Criteria),
}

/// Why a selector is refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
pub enum SelectorError {
    /// No criterion, and no `"all": true`.
    #[error("A selector without criteria needs \"all\": true.")]
    NoCriteria,
    /// `"all": true` beside a criterion.
    #[error("\"all\": true cannot be combined with other criteria.")]
    AllWithCriteria,
}

impl Selector {
    /// The selector a client sent: `all` must be true exactly when no
    /// criterion is given.
    pub fn new(criteria: Criteria, all: bool) -> Result<Self, SelectorError> {
        match (criteria.is_empty(), all) {
            (true, true) => Ok(Self::All),
            (true, false) => Err(SelectorError::NoCriteria),
            (false, true) => Err(SelectorError::AllWithCriteria),
            (false, false) => Ok(Self::Matching(criteria)),
        }
    }

    /// The filters of a listing: every device when none is given.
    pub fn filtering(criteria: Criteria) -> Self {
        if criteria.is_empty() {
            Self::All
        } else {
            Self::Matching(criteria)
        }
    }

    /// The criteria (none for [`Selector::All`]).
    pub fn criteria(&self) -> Option<&Criteria> {
        match self {
            Self::All => None,
            Self::Matching(criteria) => Some(criteria),
        }
    }

    /// Whether `device` (online or not, as given) is selected.
    pub fn matches(&self, device: &Device, online: bool) -> bool {
        self.criteria()
            .is_none_or(|criteria| criteria.matches(device, online))
    }
}

/// What a listing can be ordered by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum OrderKey {
    /// Creation time (with the serial: the order of every list).
    #[default]
    CreatedTime,
    /// The name, by code point.
    Name,
    /// The last heartbeat; a device never seen counts as seen before any other.
    LastSeenTime,
}

/// The order of a listing: a key, ascending or descending, ties broken by
/// creation time then serial, both ascending whatever the direction.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct DeviceOrdering {
    /// The key.
    pub key: OrderKey,
    /// Whether the key descends.
    pub descending: bool,
}

impl DeviceOrdering {
    /// Parses the `ordering` parameter: `name`, `created_time` or
    /// `last_seen_time`, with `-` before it for descending.
    pub fn parse(raw: &str) -> Option<Self> {
        let (descending, name) = match raw.strip_prefix('-') {
            Some(name) => (true, name),
            None => (false, raw),
        };
        let key = match name {
            "name" => OrderKey::Name,
            "created_time" => OrderKey::CreatedTime,
            "last_seen_time" => OrderKey::LastSeenTime,
            _ => return None,
        };
        Some(Self { key, descending })
    }

    /// How `a` and `b` compare in this order.
    pub fn compare(&self, a: &Device, b: &Device) -> Ordering {
        let by_key = match self.key {
            OrderKey::CreatedTime => a.created_time.cmp(&b.created_time),
            OrderKey::Name => a.name.as_str().cmp(b.name.as_str()),
            // `None` sorts before `Some`: never seen is earliest.
            OrderKey::LastSeenTime => a.last_seen.cmp(&b.last_seen),
        };
        let by_key = if self.descending {
            by_key.reverse()
        } else {
            by_key
        };
        by_key
            .then(a.created_time.cmp(&b.created_time))
            .then(a.serial.cmp(&b.serial))
    }
}

mod stored;

#[cfg(test)]
mod tests;
