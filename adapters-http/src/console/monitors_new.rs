//! `/console/monitors/new/`: "Alert me when any of these is offline…" on
//! the fleet page's current selection (`docs/console.md`, Monitors). The
//! page says how many devices the filters select now, and offers a name
//! (from the filters), the kind ("Any device offline", or "More of them
//! offline than a share", with its percentage) and the wait (2 to 60
//! minutes, or the server's online window when that is shorter); its form
//! creates the monitor through the same use case and rules as
//! `POST /monitors/` and opens its page. A refusal shows the API's
//! messages beside their fields. Plain forms: it works without script.

use super::alerts_views::wait_in_words;
use super::browser::Viewer;
use super::chrome::Chrome;
use super::failure::Failure;
use super::fleet_filters::FleetFilters;
use super::monitors_form::{MonitorForm, WAITS, request_of};
use super::notices;
use super::posted::Posted;
use super::respond::{render, see_other};
use super::selection::Selection;
use super::shown::Shown;
use crate::state::HttpState;
use actix_web::http::StatusCode;
use actix_web::web::{self, Data};
use actix_web::{HttpRequest, HttpResponse};
use askama::Template;

/// Mounts the form.
pub(super) fn mount(config: &mut web::ServiceConfig) {
    config.service(
        web::resource("/monitors/new/")
            .route(web::get().to(preview))
            .route(web::post().to(apply)),
    );
}

/// A choice of the wait's select.
pub(crate) struct WaitChoice {
    pub(crate) seconds: String,
    pub(crate) label: String,
}

/// The page.
#[derive(Template)]
#[template(path = "console/monitor_new.html")]
struct NewMonitorPage {
    chrome: Chrome,
    selection: Selection,
    form: MonitorForm,
    errors: Shown,
    waits: Vec<WaitChoice>,
}

/// The waits offered: the server's least (its online window) when it is
/// shorter than the offered ones, then [`WAITS`], and the one typed when it
/// is not among them.
fn waits(typed: &str, least: u32) -> Vec<WaitChoice> {
    let shortest = (least < WAITS[0]).then_some(least);
    let mut choices: Vec<WaitChoice> = shortest
        .iter()
        .chain(WAITS.iter())
        .map(|seconds| WaitChoice {
            seconds: seconds.to_string(),
            label: wait_in_words(*seconds),
        })
        .collect();
    let typed = typed.trim();
    if !typed.is_empty() && !choices.iter().any(|choice| choice.seconds == typed) {
        let label = typed
            .parse::<u32>()
            .map_or_else(|_| typed.to_owned(), wait_in_words);
        choices.push(WaitChoice {
            seconds: typed.to_owned(),
            label,
        });
    }
    choices
}

/// The page for the selection of `filters`, with what was typed and its errors.
async fn page(
    state: &HttpState,
    viewer: &Viewer,
    filters: FleetFilters,
    form: MonitorForm,
    errors: Shown,
) -> Result<NewMonitorPage, Failure> {
    Ok(NewMonitorPage {
        chrome: viewer.browser.chrome("New monitor", "alerts"),
        selection: Selection::of(state, viewer, filters).await?,
        waits: waits(
            &form.after_seconds,
            state.app.monitors.least_after_seconds(),
        ),
        form,
        errors,
    })
}

async fn preview(
    req: HttpRequest,
    state: Data<HttpState>,
    viewer: Viewer,
) -> Result<HttpResponse, Failure> {
    let filters = FleetFilters::from_query(req.query_string());
    let form = MonitorForm::for_filters(&filters);
    let page = page(&state, &viewer, filters, form, Shown::none()).await?;
    Ok(render(StatusCode::OK, &page, None))
}

async fn apply(
    state: Data<HttpState>,
    viewer: Viewer,
    posted: Posted,
) -> Result<HttpResponse, Failure> {
    let filters = Selection::posted_filters(&posted);
    let form = MonitorForm::typed(&posted);
    let monitors = &state.app.monitors;
    let errors = match request_of(&form, &filters, monitors.least_after_seconds()) {
        Ok(request) => {
            let monitor = monitors.create(viewer.requester(), request).await?;
            let path = format!("/console/monitors/{}/", monitor.id);
            return Ok(see_other(&notices::after(&path, "monitor-created")));
        }
        Err(errors) => errors,
    };
    let page = page(&state, &viewer, filters, form, errors).await?;
    Ok(render(StatusCode::BAD_REQUEST, &page, None))
}
