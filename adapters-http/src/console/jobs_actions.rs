//! What the job page's buttons do: "Cancel job" (confirmed first: a dialog
//! with script, a page of its own without) and "Resume". Each leads back to
//! the job's page, which shows the new status; a job whose status forbids
//! the action (it finished, or is not halted any more) is left as it is and
//! the page says why, with the API's message.

use super::browser::Viewer;
use super::chrome::Chrome;
use super::failure::Failure;
use super::jobs_page::{job_id_of, job_of};
use super::jobs_views::title;
use super::notices;
use super::posted::Posted;
use super::respond::{render, see_other};
use crate::state::HttpState;
use actix_web::HttpResponse;
use actix_web::http::StatusCode;
use actix_web::web::{self, Data};
use application::use_cases::JobActionError;
use askama::Template;

/// Mounts the cancel and resume routes of a job.
pub(super) fn mount(config: &mut web::ServiceConfig) {
    config
        .service(
            web::resource("/jobs/{id}/cancel/")
                .route(web::get().to(confirm_cancel))
                .route(web::post().to(cancel)),
        )
        .service(web::resource("/jobs/{id}/resume/").route(web::post().to(resume)));
}

/// The confirmation of "Cancel job" (without script; with it, a dialog asks).
#[derive(Template)]
#[template(path = "console/job_cancel.html")]
struct CancelPage {
    chrome: Chrome,
    id: String,
    title: String,
}

async fn confirm_cancel(
    state: Data<HttpState>,
    viewer: Viewer,
    path: web::Path<String>,
) -> Result<HttpResponse, Failure> {
    let job = job_of(&state, &viewer.account, &path).await?;
    let title = title(&job);
    let page = CancelPage {
        chrome: viewer.browser.chrome(format!("Cancel {title}"), "jobs"),
        id: job.id.as_str().to_owned(),
        title,
    };
    Ok(render(StatusCode::OK, &page, None))
}

/// Back on the job's page, with the notice of what the action came to.
fn back(
    id: &str,
    done: Result<(), JobActionError>,
    success: &'static str,
) -> Result<HttpResponse, Failure> {
    let code = match done {
        Ok(()) => success,
        Err(JobActionError::NotFound) => return Err(Failure::NotFound),
        Err(JobActionError::AlreadyFinished) => "job-already-finished",
        Err(JobActionError::NotHalted) => "job-not-halted",
        Err(JobActionError::Store(error)) => return Err(error.into()),
    };
    Ok(see_other(&notices::after(
        &format!("/console/jobs/{id}/"),
        code,
    )))
}

async fn cancel(
    state: Data<HttpState>,
    viewer: Viewer,
    path: web::Path<String>,
    _form: Posted,
) -> Result<HttpResponse, Failure> {
    let id = job_id_of(&path)?;
    let done = state.app.jobs.cancel(viewer.requester(), &id).await;
    back(id.as_str(), done.map(drop), "job-cancelled")
}

async fn resume(
    state: Data<HttpState>,
    viewer: Viewer,
    path: web::Path<String>,
    _form: Posted,
) -> Result<HttpResponse, Failure> {
    let id = job_id_of(&path)?;
    let done = state.app.jobs.resume(viewer.requester(), &id).await;
    back(id.as_str(), done.map(drop), "job-resumed")
}
