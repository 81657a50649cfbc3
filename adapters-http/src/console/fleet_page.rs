//! What the fleet page shows: its rows, its counts and a summary of the
//! filtered view ("12 of 300 devices match"), the filters' choices, and
//! the links to the other pages.

use super::chrome::Chrome;
use super::fleet_filters::{FleetFilters, PAGE_SIZE};
use super::notices::devices;
use super::paging::Pager;
use super::views::DeviceRow;
use askama::Template;
use domain::{MachineType, Tag, TagCount};

/// How many of the account's devices are online and offline.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct FleetCounts {
    pub(crate) online: u64,
    pub(crate) offline: u64,
}

impl FleetCounts {
    /// Every device of the account.
    pub(crate) fn total(self) -> u64 {
        self.online + self.offline
    }
}

/// One choice of a filter's list.
pub(crate) struct Choice {
    pub(crate) value: String,
    pub(crate) label: String,
    pub(crate) selected: bool,
}

/// The fleet page.
#[derive(Template)]
#[template(path = "console/fleet.html")]
pub(crate) struct FleetPage {
    pub(crate) chrome: Chrome,
    /// The devices of the page.
    pub(crate) rows: Vec<DeviceRow>,
    /// How many devices the filters select.
    pub(crate) matching: u64,
    pub(crate) counts: FleetCounts,
    pub(crate) filters: FleetFilters,
    /// The tag filter's choices (the account's tags).
    pub(crate) tag_options: Vec<Choice>,
    pub(crate) email: String,
    pub(crate) verified: bool,
    pub(crate) has_password: bool,
    pub(crate) install_command: String,
}

/// What the filtered view shows, in a sentence: "3 devices.",
/// "12 of 300 devices match.", with "Showing 51–100." on a later page.
pub(crate) fn summary(
    matching: u64,
    total: u64,
    filtered: bool,
    page: u64,
    shown: usize,
) -> String {
    let mut text = if filtered {
        format!("{} of {} match.", matching, devices(total))
    } else {
        format!("{}.", devices(total))
    };
    if matching > u64::from(PAGE_SIZE) && shown > 0 {
        let first = (page - 1) * u64::from(PAGE_SIZE) + 1;
        let last = first + shown as u64 - 1;
        text.push_str(&format!(" Showing {first}–{last}."));
    }
    text
}

impl FleetPage {
    /// The tag filter's choices: the account's tags with their counts, and
    /// the tag of the view even when no device carries it any more.
    pub(crate) fn tag_options(tags: &[TagCount], current: Option<&Tag>) -> Vec<Choice> {
        let mut choices: Vec<Choice> = tags
            .iter()
            .map(|count| Choice {
                value: count.tag.as_str().to_owned(),
                label: format!("{} ({})", count.tag.as_str(), count.devices),
                selected: current == Some(&count.tag),
            })
            .collect();
        if let Some(tag) = current
            && !tags.iter().any(|count| &count.tag == tag)
        {
            choices.push(Choice {
                value: tag.as_str().to_owned(),
                label: format!("{} (0)", tag.as_str()),
                selected: true,
            });
        }
        choices
    }

    /// The machine type filter's choices.
    fn machine_options(&self) -> Vec<Choice> {
        MachineType::all()
            .map(|kind| Choice {
                value: kind.code().to_owned(),
                label: kind.display_name().to_owned(),
                selected: self.filters.machine_type == Some(kind),
            })
            .collect()
    }

    /// The summary of the view.
    fn summary(&self) -> String {
        summary(
            self.matching,
            self.counts.total(),
            self.filters.is_filtered(),
            self.filters.page,
            self.rows.len(),
        )
    }

    /// Where the page stands in the view.
    fn pager(&self) -> Pager {
        let filters = &self.filters;
        Pager::new(filters.page, self.matching, PAGE_SIZE, |page| {
            filters.url("/console/", page)
        })
    }

    /// The link to the view of one tag.
    fn tag_url(&self, tag: &str) -> String {
        let only = FleetFilters {
            tag: Tag::parse(tag).ok(),
            page: 1,
            ..FleetFilters::default()
        };
        only.url("/console/", 1)
    }

    /// The event stream of this view.
    fn events_url(&self) -> String {
        self.filters.url("/console/events/", self.filters.page)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_summary_says_what_the_view_shows() {
        assert_eq!(summary(3, 3, false, 1, 3), "3 devices.");
        assert_eq!(summary(1, 1, false, 1, 1), "1 device.");
        assert_eq!(summary(12, 300, true, 1, 12), "12 of 300 devices match.");
        assert_eq!(summary(0, 1, true, 1, 0), "0 of 1 device match.");
        assert_eq!(
            summary(120, 120, false, 2, 50),
            "120 devices. Showing 51–100."
        );
        assert_eq!(
            summary(120, 300, true, 3, 20),
            "120 of 300 devices match. Showing 101–120."
        );
    }
}
