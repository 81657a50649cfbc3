//! `/console/alerts/`: the account's alerts, open ones first, then the
//! resolved, newest first within each, 50 a page (`?page=2`); filtered by
//! state and monitor in the URL (`?state=open&monitor=<id>`, a GET form).
//! Each row names its monitor (a link to it), its device (a link to its
//! page) or "Fleet", the reason in words and its times. The page stays live
//! (`alerts_live.rs`): the monitor engine announces each alert that opens or
//! resolves to the account's fleet, which wakes the page's event stream.

use super::alerts_views::AlertRow;
use super::browser::Viewer;
use super::chrome::Chrome;
use super::failure::Failure;
use super::notice_query::{NoticeCode, url_query_value};
use super::paging::{Pager, page_of, pages, window};
use super::respond::render;
use crate::state::HttpState;
use actix_web::http::StatusCode;
use actix_web::web::{self, Data};
use actix_web::{HttpRequest, HttpResponse};
use application::StoreError;
use application::ports::{AlertFilter, AlertRecord, Window};
use askama::Template;
use domain::{Account, AlertState, MonitorId};
use std::collections::HashMap;
use std::hash::{DefaultHasher, Hash, Hasher};

/// How many alerts a page of the list shows.
pub(crate) const ALERTS_PAGE_SIZE: u32 = 50;
/// How many monitors the filter offers (the newest).
const MONITOR_CHOICES: u32 = 100;

/// Mounts the list.
pub(super) fn mount(config: &mut web::ServiceConfig) {
    config.service(web::resource("/alerts/").route(web::get().to(show)));
}

/// The list's filters as its URL carries them; a value that means nothing
/// is no filter.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct AlertFilters {
    pub(crate) state: Option<AlertState>,
    pub(crate) monitor: Option<MonitorId>,
    /// The page, from 1.
    pub(crate) page: u64,
}

impl AlertFilters {
    /// The filters of a query string.
    pub(crate) fn from_query(query: &str) -> Self {
        let value = |name| url_query_value(query, name).unwrap_or_default();
        Self {
            state: AlertState::parse(value("state").trim()),
            monitor: MonitorId::parse(value("monitor").trim()).ok(),
            page: page_of(query),
        }
    }

    /// `path` with the filters, on page `page`.
    pub(crate) fn url(&self, path: &str, page: u64) -> String {
        let mut pairs: Vec<(&str, String)> = Vec::new();
        if let Some(state) = self.state {
            pairs.push(("state", state.code().to_owned()));
        }
        if let Some(monitor) = &self.monitor {
            pairs.push(("monitor", monitor.as_str().to_owned()));
        }
        if page > 1 {
            pairs.push(("page", page.to_string()));
        }
        let query = serde_urlencoded::to_string(pairs).unwrap_or_default();
        if query.is_empty() {
            path.to_owned()
        } else {
            format!("{path}?{query}")
        }
    }

    /// The state field's value.
    pub(crate) fn state_code(&self) -> &'static str {
        self.state.map_or("", AlertState::code)
    }

    /// The monitor field's value.
    pub(crate) fn monitor_code(&self) -> &str {
        self.monitor.as_ref().map_or("", MonitorId::as_str)
    }

    fn filter(&self, state: AlertState) -> AlertFilter {
        AlertFilter {
            monitor: self.monitor.clone(),
            state: Some(state),
        }
    }
}

/// One page of the list: how many alerts match, and those of the page.
pub(crate) struct AlertsRead {
    pub(crate) count: u64,
    pub(crate) alerts: Vec<AlertRecord>,
    /// The page read (the last when the asked one is past it).
    pub(crate) page: u64,
}

impl AlertsRead {
    /// A version of what this page shows: it changes when an alert of the
    /// page opens, resolves, comes or goes, or the count does (the live
    /// updates compare it).
    pub(crate) fn version(&self) -> String {
        let mut hasher = DefaultHasher::new();
        (self.count, self.page).hash(&mut hasher);
        for alert in &self.alerts {
            (alert.id.as_str(), alert.state.code()).hash(&mut hasher);
        }
        format!("{:016x}", hasher.finish())
    }
}

/// The alerts `filters` select, open ones first: the page of the open ones,
/// then of the resolved, as one list.
pub(crate) async fn read_alerts(
    state: &HttpState,
    account: &Account,
    filters: &AlertFilters,
) -> Result<AlertsRead, StoreError> {
    let monitors = &state.app.monitors;
    let size = u64::from(ALERTS_PAGE_SIZE);
    let count_of = |alert_state| async move {
        if filters.state.is_some_and(|wanted| wanted != alert_state) {
            return Ok::<u64, StoreError>(0);
        }
        let none = Window {
            limit: 1,
            offset: 0,
        };
        Ok(monitors
            .alerts(account, &filters.filter(alert_state), none)
            .await?
            .count)
    };
    let open = count_of(AlertState::Open).await?;
    let resolved = count_of(AlertState::Resolved).await?;
    let count = open + resolved;
    let page = filters.page.min(pages(count, ALERTS_PAGE_SIZE));
    let first = window(page, ALERTS_PAGE_SIZE).offset;
    let mut alerts = Vec::new();
    if first < open {
        let limit = (open - first).min(size);
        let read = Window {
            limit: limit as u32,
            offset: first,
        };
        let filter = filters.filter(AlertState::Open);
        alerts.extend(monitors.alerts(account, &filter, read).await?.alerts);
    }
    let left = size - alerts.len() as u64;
    if left > 0 && resolved > 0 {
        let read = Window {
            limit: left as u32,
            offset: first.saturating_sub(open),
        };
        let filter = filters.filter(AlertState::Resolved);
        alerts.extend(monitors.alerts(account, &filter, read).await?.alerts);
    }
    Ok(AlertsRead {
        count,
        alerts,
        page,
    })
}

/// The names of the account's monitors, by id, and the newest of them for
/// the filter (the page's own alerts' monitors are always named).
pub(crate) async fn monitor_names(
    state: &HttpState,
    account: &Account,
    alerts: &[AlertRecord],
) -> Result<(HashMap<String, String>, Vec<(String, String)>), Failure> {
    let monitors = &state.app.monitors;
    let listed = monitors
        .list(
            account,
            Window {
                limit: MONITOR_CHOICES,
                offset: 0,
            },
        )
        .await?;
    let choices: Vec<(String, String)> = listed
        .monitors
        .iter()
        .map(|monitor| {
            (
                monitor.id.as_str().to_owned(),
                monitor.name.as_str().to_owned(),
            )
        })
        .collect();
    let mut names: HashMap<String, String> = choices.iter().cloned().collect();
    for alert in alerts {
        if !names.contains_key(alert.monitor.as_str())
            && let Some(monitor) = monitors.get(account, &alert.monitor).await?
        {
            names.insert(
                monitor.id.as_str().to_owned(),
                monitor.name.as_str().to_owned(),
            );
        }
    }
    Ok((names, choices))
}

/// The Alerts page.
#[derive(Template)]
#[template(path = "console/alerts.html")]
pub(crate) struct AlertsPage {
    pub(crate) chrome: Chrome,
    pub(crate) filters: AlertFilters,
    pub(crate) rows: Vec<AlertRow>,
    /// The monitors the filter offers: id and name.
    pub(crate) monitors: Vec<(String, String)>,
    /// How many alerts match.
    pub(crate) count: u64,
    /// The page, from 1.
    pub(crate) page: u64,
    /// What the page shows, as its live updates tell it (`alerts_live.rs`).
    pub(crate) version: String,
}

impl AlertsPage {
    /// Where the page stands in the list.
    fn pager(&self) -> Pager {
        Pager::new(self.page, self.count, ALERTS_PAGE_SIZE, |page| {
            self.filters.url("/console/alerts/", page)
        })
    }

    /// "3 alerts, 1 open. Showing 51–53."
    fn summary(&self) -> String {
        let mut text = match self.count {
            1 => "1 alert.".to_owned(),
            n => format!("{n} alerts."),
        };
        if let Some(positions) = self.pager().positions(self.rows.len()) {
            text.push_str(&format!(" Showing {positions}."));
        }
        text
    }

    fn is_filtered(&self) -> bool {
        self.filters.state.is_some() || self.filters.monitor.is_some()
    }

    /// The page's event stream: its filters and page.
    fn events_url(&self) -> String {
        let own = self.filters.url("/console/events/", self.page);
        let joiner = if own.contains('?') { '&' } else { '?' };
        format!("{own}{joiner}alerts=1")
    }
}

/// The page of `filters`, read now.
pub(crate) async fn alerts_page(
    state: &HttpState,
    viewer: &Viewer,
    mut filters: AlertFilters,
    notice: Option<&str>,
) -> Result<AlertsPage, Failure> {
    let account = &viewer.account;
    let read = read_alerts(state, account, &filters).await?;
    filters.page = read.page;
    let version = read.version();
    let (names, monitors) = monitor_names(state, account, &read.alerts).await?;
    let now = state.app.watching.now();
    let rows = read
        .alerts
        .iter()
        .map(|alert| {
            let name = names.get(alert.monitor.as_str()).map(String::as_str);
            AlertRow::of(alert, name, now)
        })
        .collect();
    Ok(AlertsPage {
        chrome: viewer
            .browser
            .chrome("Alerts", "alerts")
            .with_notice(notice),
        filters,
        rows,
        monitors,
        count: read.count,
        page: read.page,
        version,
    })
}

async fn show(
    req: HttpRequest,
    state: Data<HttpState>,
    viewer: Viewer,
    NoticeCode(notice): NoticeCode,
) -> Result<HttpResponse, Failure> {
    let filters = AlertFilters::from_query(req.query_string());
    let page = alerts_page(&state, &viewer, filters, notice.as_deref()).await?;
    Ok(render(StatusCode::OK, &page, None))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn filters_round_trip_and_nonsense_is_no_filter() {
        let id = "5b1e7c3a-2d4f-4a8b-9e6c-1f0a3b5d7e92";
        let filters = AlertFilters::from_query(&format!("state=open&monitor={id}&page=2"));
        assert_eq!(filters.state, Some(AlertState::Open));
        assert_eq!(filters.monitor_code(), id);
        assert_eq!(
            filters.url("/console/alerts/", 3),
            format!("/console/alerts/?state=open&monitor={id}&page=3")
        );
        let nonsense = AlertFilters::from_query("state=maybe&monitor=NOPE&page=0");
        assert_eq!(nonsense.state, None);
        assert_eq!(nonsense.monitor, None);
        assert_eq!(nonsense.page, 1);
        assert_eq!(nonsense.url("/console/alerts/", 1), "/console/alerts/");
    }
}
