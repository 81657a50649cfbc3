//! The devices a fleet action acts on ("Tag devices", "Reboot devices",
//! "New monitor"): the fleet page's filters, how many devices they select
//! now, and the names of the first few. The pages show it with the macros
//! of `console/selection_parts.html`, and their forms carry the filters on
//! in hidden fields, read back by [`Selection::posted_filters`].

use super::browser::Viewer;
use super::failure::Failure;
use super::fleet_filters::FleetFilters;
use super::notices::devices;
use super::posted::Posted;
use crate::state::HttpState;

/// How many of the selected devices a page names.
const NAMED: usize = 10;

/// The fleet page's filters and what they select now.
pub(super) struct Selection {
    pub(super) filters: FleetFilters,
    /// How many devices the filters select.
    pub(super) count: u64,
    /// The names of the first selected devices.
    pub(super) names: Vec<String>,
}

impl Selection {
    /// What `filters` select among the viewer's devices now.
    pub(super) async fn of(
        state: &HttpState,
        viewer: &Viewer,
        filters: FleetFilters,
    ) -> Result<Self, Failure> {
        let selected = state
            .app
            .devices
            .select(&viewer.account, filters.selector())
            .await?;
        Ok(Self {
            filters,
            count: selected.count,
            names: selected
                .views
                .iter()
                .take(NAMED)
                .map(|view| view.device.name.as_str().to_owned())
                .collect(),
        })
    }

    /// The filters a selection's form carried on in its hidden fields.
    pub(super) fn posted_filters(posted: &Posted) -> FleetFilters {
        let fields =
            ["search", "status", "tag", "machine_type"].map(|name| (name, posted.text(name)));
        FleetFilters::from_pairs(fields.iter().map(|(name, value)| (*name, value.as_str())))
    }

    /// "23 devices".
    pub(super) fn selected(&self) -> String {
        devices(self.count)
    }

    /// How many selected devices the page does not name.
    pub(super) fn unnamed(&self) -> u64 {
        self.count.saturating_sub(self.names.len() as u64)
    }

    /// The filters in words; empty without any.
    pub(super) fn described(&self) -> Vec<String> {
        self.filters.in_words()
    }

    /// The filtered view the page came from.
    pub(super) fn back(&self) -> String {
        self.filters.url("/console/", 1)
    }
}
