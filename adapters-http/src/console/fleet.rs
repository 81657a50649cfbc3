//! `/console/`: the fleet, with its counts, a search, and live status.
//! A new account is asked to verify its address (and to set a password)
//! here; an empty fleet shows how to add the first device.

use super::browser::Viewer;
use super::chrome::Chrome;
use super::failure::Failure;
use super::notice_query::{NoticeCode, url_query_value};
use super::notices;
use super::posted::Posted;
use super::respond::{render, see_other};
use super::views::DeviceRow;
use crate::resources::profile::install_command;
use crate::state::HttpState;
use actix_web::http::StatusCode;
use actix_web::web::{self, Data};
use actix_web::{HttpRequest, HttpResponse};
use askama::Template;

/// Mounts the fleet and the verification reminder's form.
pub(super) fn mount(config: &mut web::ServiceConfig) {
    config
        .service(web::resource("/").route(web::get().to(show)))
        .service(web::resource("/verify-email/resend/").route(web::post().to(resend)));
}

/// The fleet page.
#[derive(Template)]
#[template(path = "console/fleet.html")]
struct FleetPage {
    chrome: Chrome,
    rows: Vec<DeviceRow>,
    online: usize,
    offline: usize,
    /// The search as sent (the page filters as you type; this serves
    /// browsers without script).
    search: String,
    /// How many rows the search shows.
    shown: usize,
    email: String,
    verified: bool,
    has_password: bool,
    install_command: String,
}

impl FleetPage {
    /// Whether a row matches the search (name, serial or description).
    fn matches(&self, row: &DeviceRow) -> bool {
        matches_search(row, &self.search)
    }
}

/// Whether `row` matches `search`, ignoring case.
pub(crate) fn matches_search(row: &DeviceRow, search: &str) -> bool {
    let search = search.trim().to_lowercase();
    search.is_empty()
        || [&row.name, &row.serial, &row.description]
            .iter()
            .any(|text| text.to_lowercase().contains(&search))
}

async fn show(
    req: HttpRequest,
    state: Data<HttpState>,
    viewer: Viewer,
    NoticeCode(notice): NoticeCode,
) -> Result<HttpResponse, Failure> {
    let views = state.app.devices.list(&viewer.account).await?;
    let now = state.app.watching.now();
    let rows: Vec<DeviceRow> = views.iter().map(|view| DeviceRow::of(view, now)).collect();
    let online = rows.iter().filter(|row| row.online).count();
    let search = url_query_value(req.query_string(), "search").unwrap_or_default();
    let account = &viewer.account;
    let mut page = FleetPage {
        chrome: viewer
            .browser
            .chrome("Devices", "devices")
            .with_notice(notice.as_deref()),
        offline: rows.len() - online,
        online,
        search,
        shown: 0,
        email: account.email.as_str().to_owned(),
        verified: account.email_verified,
        has_password: account.password_hash.is_some(),
        install_command: install_command(&state.base_url(&req), &account.install_token),
        rows,
    };
    page.shown = page.rows.iter().filter(|row| page.matches(row)).count();
    Ok(render(StatusCode::OK, &page, None))
}

async fn resend(
    req: HttpRequest,
    state: Data<HttpState>,
    posted: Posted,
) -> Result<HttpResponse, Failure> {
    let Some(account) = &posted.browser.account else {
        return Err(Failure::SignedOut);
    };
    super::throttle::check(&req, &state).await?;
    state.app.verification.resend(&account.email).await?;
    Ok(see_other(&notices::after("/console/", "verification-sent")))
}
