//! `/console/reboot-devices/`: "Reboot devices" on the fleet page's current
//! selection, a fleet job (`docs/console.md`, Jobs). The page first says how
//! many devices the filters select (and names the first few), with the
//! job's settings: "Wave size", "Wave interval (seconds)", "Halt failure
//! ratio" and "Start time (UTC)"; its form then creates the job through the
//! same use case and rules as `POST /jobs/`, and opens the job's page. A
//! refusal shows the API's messages beside their fields. Plain forms: it
//! works without script.

use super::browser::Viewer;
use super::chrome::Chrome;
use super::failure::Failure;
use super::fleet_filters::FleetFilters;
use super::notices;
use super::posted::Posted;
use super::reboot_devices_form::{JobForm, request_of};
use super::respond::{render, see_other};
use super::selection::Selection;
use super::shown::Shown;
use crate::state::HttpState;
use actix_web::http::StatusCode;
use actix_web::web::{self, Data};
use actix_web::{HttpRequest, HttpResponse};
use askama::Template;
use domain::JobStatus;

/// Mounts the page and its form.
pub(super) fn mount(config: &mut web::ServiceConfig) {
    config.service(
        web::resource("/reboot-devices/")
            .route(web::get().to(preview))
            .route(web::post().to(apply)),
    );
}

/// The page.
#[derive(Template)]
#[template(path = "console/reboot_devices.html")]
struct RebootDevicesPage {
    chrome: Chrome,
    selection: Selection,
    /// What was typed (or the defaults).
    form: JobForm,
    errors: Shown,
}

/// The page for the selection of `filters`, with what was typed and its errors.
async fn page(
    state: &HttpState,
    viewer: &Viewer,
    filters: FleetFilters,
    form: JobForm,
    errors: Shown,
) -> Result<RebootDevicesPage, Failure> {
    Ok(RebootDevicesPage {
        chrome: viewer.browser.chrome("Reboot devices", "devices"),
        selection: Selection::of(state, viewer, filters).await?,
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
    let page = page(&state, &viewer, filters, JobForm::default(), Shown::none()).await?;
    Ok(render(StatusCode::OK, &page, None))
}

async fn apply(
    state: Data<HttpState>,
    viewer: Viewer,
    posted: Posted,
) -> Result<HttpResponse, Failure> {
    let filters = Selection::posted_filters(&posted);
    let form = JobForm::typed(&posted);
    let errors = match request_of(&form, &filters) {
        Ok(request) => {
            let job = state.app.jobs.create(viewer.requester(), request).await?;
            let notice = if job.status == JobStatus::Scheduled {
                "job-scheduled"
            } else {
                "job-started"
            };
            let path = format!("/console/jobs/{}/", job.id);
            return Ok(see_other(&notices::after(&path, notice)));
        }
        Err(errors) => errors,
    };
    let page = page(&state, &viewer, filters, form, errors).await?;
    Ok(render(StatusCode::BAD_REQUEST, &page, None))
}
