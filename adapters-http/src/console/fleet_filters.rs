//! The fleet page's filters as its URL carries them (a GET form, so a
//! filtered view can be bookmarked and reloaded): `search`, `status`
//! (`online` or `offline`; anything else is every device), `tag`,
//! `machine_type` and `page` (50 devices a page). A value that means
//! nothing (an unknown machine type, a malformed tag or page) is no filter.

use application::ports::Window;
use application::use_cases::DeviceView;
use domain::{Criteria, MachineType, Search, Selector, Tag};

/// How many devices a page of the fleet shows.
pub(crate) const PAGE_SIZE: u32 = 50;

/// The filters and page of one fleet view.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct FleetFilters {
    /// The search, trimmed (empty: no filter).
    pub(crate) search: String,
    /// Online (`Some(true)`), offline, or either.
    pub(crate) online: Option<bool>,
    /// Carrying this tag.
    pub(crate) tag: Option<Tag>,
    /// Of this machine type.
    pub(crate) machine_type: Option<MachineType>,
    /// The page, from 1.
    pub(crate) page: u64,
}

impl FleetFilters {
    /// The filters in words ("search “pi”", "offline", "tagged lab", a
    /// machine type's name); empty without any.
    pub(super) fn in_words(&self) -> Vec<String> {
        let filters = self;
        let mut words = Vec::new();
        if !filters.search.is_empty() {
            words.push(format!("search “{}”", filters.search));
        }
        if let Some(online) = filters.online {
            words.push(if online { "online" } else { "offline" }.to_owned());
        }
        if let Some(tag) = &filters.tag {
            words.push(format!("tagged {tag}"));
        }
        if let Some(kind) = filters.machine_type {
            words.push(kind.display_name().to_owned());
        }
        words
    }

    /// The filters of a query string (or of a form's fields): the last
    /// value of a name counts.
    pub(crate) fn from_query(query: &str) -> Self {
        let pairs: Vec<(String, String)> = serde_urlencoded::from_str(query).unwrap_or_default();
        Self::from_pairs(pairs.iter().map(|(k, v)| (k.as_str(), v.as_str())))
    }

    /// The filters of these name–value pairs.
    pub(crate) fn from_pairs<'a>(pairs: impl Iterator<Item = (&'a str, &'a str)>) -> Self {
        let mut filters = Self {
            page: 1,
            ..Self::default()
        };
        for (name, value) in pairs {
            let value = value.trim();
            match name {
                "search" => filters.search = value.to_owned(),
                "status" => {
                    filters.online = match value {
                        "online" => Some(true),
                        "offline" => Some(false),
                        _ => None,
                    }
                }
                "tag" => filters.tag = Tag::parse(value).ok(),
                "machine_type" => filters.machine_type = MachineType::from_code(value),
                "page" => filters.page = value.parse().ok().filter(|&p| p >= 1).unwrap_or(1),
                _ => {}
            }
        }
        filters
    }

    /// The criteria of the filters (the page aside).
    pub(crate) fn criteria(&self) -> Criteria {
        Criteria {
            tags: self.tag.iter().cloned().collect(),
            online: self.online,
            machine_type: self.machine_type,
            search: Search::new(&self.search),
            ..Criteria::default()
        }
    }

    /// The devices the filters select: every one without a filter.
    pub(crate) fn selector(&self) -> Selector {
        Selector::filtering(self.criteria())
    }

    /// Whether any filter is given.
    pub(crate) fn is_filtered(&self) -> bool {
        !self.criteria().is_empty()
    }

    /// The window of the page.
    pub(crate) fn window(&self) -> Window {
        Window {
            limit: PAGE_SIZE,
            offset: (self.page - 1).saturating_mul(u64::from(PAGE_SIZE)),
        }
    }

    /// The status field's value: `online`, `offline` or `""`.
    pub(crate) fn status(&self) -> &'static str {
        match self.online {
            Some(true) => "online",
            Some(false) => "offline",
            None => "",
        }
    }

    /// The filters as a query string (without the page), `""` without any.
    pub(crate) fn query(&self) -> String {
        let mut pairs: Vec<(&str, &str)> = Vec::new();
        if !self.search.is_empty() {
            pairs.push(("search", &self.search));
        }
        if self.online.is_some() {
            pairs.push(("status", self.status()));
        }
        if let Some(tag) = &self.tag {
            pairs.push(("tag", tag.as_str()));
        }
        if let Some(kind) = self.machine_type {
            pairs.push(("machine_type", kind.code()));
        }
        serde_urlencoded::to_string(pairs).unwrap_or_default()
    }

    /// `path` with the filters (and `page` after the first).
    pub(crate) fn url(&self, path: &str, page: u64) -> String {
        let mut query = self.query();
        if page > 1 {
            if !query.is_empty() {
                query.push('&');
            }
            query.push_str(&format!("page={page}"));
        }
        if query.is_empty() {
            path.to_owned()
        } else {
            format!("{path}?{query}")
        }
    }

    /// The same filters on another page.
    pub(crate) fn on_page(&self, page: u64) -> Self {
        Self {
            page,
            ..self.clone()
        }
    }

    /// How many of `views` (the whole fleet, in list order) the filters
    /// select, and those on the page.
    pub(crate) fn page_of<'a>(&self, views: &'a [DeviceView]) -> (u64, Vec<&'a DeviceView>) {
        let selector = self.selector();
        let window = self.window();
        let selected = views
            .iter()
            .filter(|view| selector.matches(&view.device, view.online));
        let mut count = 0;
        let mut page = Vec::new();
        for view in selected {
            if count >= window.offset && page.len() < PAGE_SIZE as usize {
                page.push(view);
            }
            count += 1;
        }
        (count, page)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_query_round_trips_and_nonsense_is_no_filter() {
        let filters = FleetFilters::from_query(
            "search=+Kitchen+&status=online&tag=Lab&machine_type=rpi_4b&page=3",
        );
        assert_eq!(filters.search, "Kitchen");
        assert_eq!(filters.online, Some(true));
        assert_eq!(filters.tag.as_ref().map(Tag::as_str), Some("lab"));
        assert_eq!(filters.machine_type.map(MachineType::code), Some("rpi_4b"));
        assert_eq!(filters.page, 3);
        assert_eq!(
            filters.url("/console/", filters.page),
            "/console/?search=Kitchen&status=online&tag=lab&machine_type=rpi_4b&page=3"
        );
        assert_eq!(filters.window().offset, 100);
        let nonsense =
            FleetFilters::from_query("status=maybe&tag=no+way&machine_type=toaster&page=0");
        assert!(!nonsense.is_filtered());
        assert_eq!(nonsense.selector(), Selector::All);
        assert_eq!(nonsense.url("/console/", nonsense.page), "/console/");
        assert_eq!(
            FleetFilters::from_query("search=%20%20").selector(),
            Selector::All
        );
    }
}
