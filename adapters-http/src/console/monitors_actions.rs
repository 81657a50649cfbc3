//! What a monitor's buttons do: "Snooze" for 1, 8 or 24 hours and "End
//! snooze" (through the same use case as `POST /monitors/<id>/snooze/`),
//! and "Delete" (confirmed first: a page of its own), which deletes the
//! monitor and its alerts. Each leads back with a notice.

use super::browser::Viewer;
use super::chrome::Chrome;
use super::failure::Failure;
use super::monitors::{monitor_id_of, monitor_of};
use super::notices;
use super::posted::Posted;
use super::respond::{render, see_other};
use crate::state::HttpState;
use actix_web::HttpResponse;
use actix_web::http::StatusCode;
use actix_web::web::{self, Data};
use askama::Template;
use chrono::Duration;

/// The snoozes offered, in hours.
pub(crate) const SNOOZE_HOURS: [i64; 3] = [1, 8, 24];

/// Mounts the snooze and delete routes of a monitor.
pub(super) fn mount(config: &mut web::ServiceConfig) {
    config
        .service(web::resource("/monitors/{id}/snooze/").route(web::post().to(snooze)))
        .service(
            web::resource("/monitors/{id}/delete/")
                .route(web::get().to(confirm_delete))
                .route(web::post().to(delete)),
        );
}

/// Where a form leads back to: the list when it was sent from there.
fn back_to(posted: &Posted, id: &str) -> String {
    if posted.text("back") == "list" {
        "/console/monitors/".to_owned()
    } else {
        format!("/console/monitors/{id}/")
    }
}

async fn snooze(
    state: Data<HttpState>,
    viewer: Viewer,
    path: web::Path<String>,
    posted: Posted,
) -> Result<HttpResponse, Failure> {
    let id = monitor_id_of(&path)?;
    // Hours offered, or anything else: end the snooze.
    let hours = posted
        .text("hours")
        .trim()
        .parse::<i64>()
        .ok()
        .filter(|hours| SNOOZE_HOURS.contains(hours));
    let now = state.app.watching.now();
    let until = hours.map(|hours| now + Duration::hours(hours));
    let snoozed = state
        .app
        .monitors
        .snooze(viewer.requester(), &id, until)
        .await?
        .ok_or(Failure::NotFound)?;
    let code = if snoozed.snoozed_until.is_some() {
        "monitor-snoozed"
    } else {
        "monitor-snooze-ended"
    };
    Ok(see_other(&notices::after(
        &back_to(&posted, id.as_str()),
        code,
    )))
}

/// The confirmation of "Delete".
#[derive(Template)]
#[template(path = "console/monitor_delete.html")]
struct DeletePage {
    chrome: Chrome,
    id: String,
    name: String,
}

async fn confirm_delete(
    state: Data<HttpState>,
    viewer: Viewer,
    path: web::Path<String>,
) -> Result<HttpResponse, Failure> {
    let monitor = monitor_of(&state, &viewer.account, &path).await?;
    let name = monitor.name.as_str().to_owned();
    let page = DeletePage {
        chrome: viewer.browser.chrome(format!("Delete {name}"), "alerts"),
        id: monitor.id.as_str().to_owned(),
        name,
    };
    Ok(render(StatusCode::OK, &page, None))
}

async fn delete(
    state: Data<HttpState>,
    viewer: Viewer,
    path: web::Path<String>,
    _form: Posted,
) -> Result<HttpResponse, Failure> {
    let id = monitor_id_of(&path)?;
    if !state.app.monitors.delete(viewer.requester(), &id).await? {
        return Err(Failure::NotFound);
    }
    Ok(see_other(&notices::after(
        "/console/monitors/",
        "monitor-deleted",
    )))
}
