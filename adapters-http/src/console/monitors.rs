//! `/console/monitors/`: the account's monitors, newest first, 50 a page
//! (`?page=2`): each one's name (a link to its page), what it watches for
//! and which devices, in words, and until when it is snoozed; and one
//! monitor's page, `/console/monitors/<id>/`, with its open alerts counted
//! and a link to its alerts. Both offer "Snooze" (1 h, 8 h, 24 h, "End
//! snooze") and "Delete" (`monitors_actions.rs`); monitors are created from
//! the fleet view (`monitors_new.rs`).

use super::alerts_views::MonitorRow;
use super::browser::Viewer;
use super::chrome::Chrome;
use super::failure::Failure;
use super::notice_query::NoticeCode;
use super::paging::{Pager, page_of, page_url, read_within};
use super::respond::render;
use crate::state::HttpState;
use actix_web::http::StatusCode;
use actix_web::web::{self, Data};
use actix_web::{HttpRequest, HttpResponse};
use application::ports::{AlertFilter, MonitorRecord, Window};
use askama::Template;
use domain::{Account, AlertState, MonitorId};

/// How many monitors a page of the list shows.
pub(crate) const MONITORS_PAGE_SIZE: u32 = 50;

/// Mounts the list and a monitor's page (after the new monitor's form,
/// whose path would otherwise read as an id).
pub(super) fn mount(config: &mut web::ServiceConfig) {
    config
        .service(web::resource("/monitors/").route(web::get().to(list)))
        .service(web::resource("/monitors/{id}/").route(web::get().to(show)));
}

/// The monitor id in the path, or 404 (a malformed id too).
pub(crate) fn monitor_id_of(raw: &str) -> Result<MonitorId, Failure> {
    MonitorId::parse(raw).map_err(|_| Failure::NotFound)
}

/// The account's monitor with this id, or 404.
pub(crate) async fn monitor_of(
    state: &HttpState,
    account: &Account,
    raw: &str,
) -> Result<MonitorRecord, Failure> {
    let id = monitor_id_of(raw)?;
    state
        .app
        .monitors
        .get(account, &id)
        .await?
        .ok_or(Failure::NotFound)
}

/// The list.
#[derive(Template)]
#[template(path = "console/monitors.html")]
struct MonitorsPage {
    chrome: Chrome,
    rows: Vec<MonitorRow>,
    count: u64,
    page: u64,
}

impl MonitorsPage {
    /// Where the page stands in the list.
    fn pager(&self) -> Pager {
        Pager::new(self.page, self.count, MONITORS_PAGE_SIZE, |page| {
            page_url("/console/monitors/", page)
        })
    }

    /// "3 monitors."
    fn summary(&self) -> String {
        match self.count {
            1 => "1 monitor.".to_owned(),
            n => format!("{n} monitors."),
        }
    }
}

async fn list(
    req: HttpRequest,
    state: Data<HttpState>,
    viewer: Viewer,
    NoticeCode(notice): NoticeCode,
) -> Result<HttpResponse, Failure> {
    let monitors = &state.app.monitors;
    let (listed, page) = read_within(page_of(req.query_string()), MONITORS_PAGE_SIZE, |window| {
        monitors.list(&viewer.account, window)
    })
    .await?;
    let now = state.app.watching.now();
    let page = MonitorsPage {
        chrome: viewer
            .browser
            .chrome("Monitors", "alerts")
            .with_notice(notice.as_deref()),
        rows: listed
            .monitors
            .iter()
            .map(|monitor| MonitorRow::of(monitor, now))
            .collect(),
        count: listed.count,
        page,
    };
    Ok(render(StatusCode::OK, &page, None))
}

/// One monitor's page.
#[derive(Template)]
#[template(path = "console/monitor.html")]
struct MonitorPage {
    chrome: Chrome,
    monitor: MonitorRow,
    /// How many of its alerts are open.
    open: u64,
}

impl MonitorPage {
    /// "2 open alerts", "no open alert".
    fn open_alerts(&self) -> String {
        match self.open {
            0 => "no open alert".to_owned(),
            1 => "1 open alert".to_owned(),
            n => format!("{n} open alerts"),
        }
    }
}

async fn show(
    state: Data<HttpState>,
    viewer: Viewer,
    path: web::Path<String>,
    NoticeCode(notice): NoticeCode,
) -> Result<HttpResponse, Failure> {
    let monitor = monitor_of(&state, &viewer.account, &path).await?;
    let filter = AlertFilter {
        monitor: Some(monitor.id.clone()),
        state: Some(AlertState::Open),
    };
    let none = Window {
        limit: 1,
        offset: 0,
    };
    let open = state
        .app
        .monitors
        .alerts(&viewer.account, &filter, none)
        .await?
        .count;
    let now = state.app.watching.now();
    let row = MonitorRow::of(&monitor, now);
    let page = MonitorPage {
        chrome: viewer
            .browser
            .chrome(row.name.clone(), "alerts")
            .with_notice(notice.as_deref()),
        monitor: row,
        open,
    };
    Ok(render(StatusCode::OK, &page, None))
}
