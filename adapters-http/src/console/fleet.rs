//! `/console/`: the fleet view. Filters (search, status, tag, machine
//! type) and the page live in the URL, the devices come from the same
//! query as `GET /devices/`, each row shows its tags as links to the view
//! of that tag, and the counts stay live. A new account is asked to verify
//! its address (and to set a password) here; an empty fleet shows how to
//! add the first device.

use super::browser::Viewer;
use super::failure::Failure;
use super::fleet_filters::FleetFilters;
use super::fleet_page::{FleetCounts, FleetPage};
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
use application::ports::Window;
use application::use_cases::{DevicesPage, Listing};
use domain::{Account, Criteria, DeviceOrdering, Selector};

/// Mounts the fleet and the verification reminder's form.
pub(super) fn mount(config: &mut web::ServiceConfig) {
    config
        .service(web::resource("/").route(web::get().to(show)))
        .service(web::resource("/verify-email/resend/").route(web::post().to(resend)));
}

/// The devices `filters` show, on their page (the last page when theirs
/// is past the end).
pub(super) async fn filtered(
    state: &HttpState,
    account: &Account,
    filters: &mut FleetFilters,
) -> Result<DevicesPage, Failure> {
    let devices = &state.app.devices;
    let listing = |filters: &FleetFilters| Listing {
        selector: filters.selector(),
        ordering: DeviceOrdering::default(),
        window: Some(filters.window()),
    };
    let page = devices.query(account, listing(filters)).await?;
    let last = page
        .count
        .div_ceil(u64::from(super::fleet_filters::PAGE_SIZE));
    if page.views.is_empty() && filters.page > 1 && last >= 1 {
        *filters = filters.on_page(last);
        return Ok(devices.query(account, listing(filters)).await?);
    }
    Ok(page)
}

/// How many of the account's devices are online and offline.
async fn counts(state: &HttpState, account: &Account) -> Result<FleetCounts, Failure> {
    let count = |online: bool| {
        let listing = Listing {
            selector: Selector::Matching(Criteria {
                online: Some(online),
                ..Criteria::default()
            }),
            ordering: DeviceOrdering::default(),
            window: Some(Window {
                limit: 1,
                offset: 0,
            }),
        };
        state.app.devices.query(account, listing)
    };
    Ok(FleetCounts {
        online: count(true).await?.count,
        offline: count(false).await?.count,
    })
}

async fn show(
    req: HttpRequest,
    state: Data<HttpState>,
    viewer: Viewer,
    NoticeCode(notice): NoticeCode,
) -> Result<HttpResponse, Failure> {
    let account = &viewer.account;
    let mut filters = FleetFilters::from_query(req.query_string());
    let page = filtered(&state, account, &mut filters).await?;
    let counts = counts(&state, account).await?;
    let tags = state.app.devices.tags(account).await?;
    let now = state.app.watching.now();
    let mut chrome = viewer
        .browser
        .chrome("Devices", "devices")
        .with_notice(notice.as_deref());
    if notice.as_deref() == Some("tagged") {
        let tagged = url_query_value(req.query_string(), "tagged").and_then(|n| n.parse().ok());
        if let Some(tagged) = tagged {
            chrome = chrome.with_message(notices::tagged(tagged));
        }
    }
    let page = FleetPage {
        chrome,
        rows: page
            .views
            .iter()
            .map(|view| DeviceRow::of(view, now))
            .collect(),
        matching: page.count,
        counts,
        tag_options: FleetPage::tag_options(&tags, filters.tag.as_ref()),
        filters,
        email: account.email.as_str().to_owned(),
        verified: account.email_verified,
        has_password: account.password_hash.is_some(),
        install_command: install_command(&state.base_url(&req), &account.install_token),
    };
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
