//! Monitors: what the account watches its fleet for, evaluated at least
//! once a second, opening and resolving alerts (`docs/api.md`, "Monitors and
//! alerts"). Create, list, read, delete and snooze.

mod body;
mod json;
#[cfg(test)]
mod tests;

pub use body::{MonitorBody, SnoozeBody, ValidMonitor};
pub(crate) use json::{EXAMPLE_MONITOR_ID, echoed};
pub use json::{MONITOR_PAGE_SCHEMA, MONITOR_SCHEMA, MonitorJson};

use crate::answer::{Json, Located, NoContent};
use crate::description::Tag;
use crate::description::examples as ex;
use crate::error::ApiError;
use crate::extract::{BaseUrl, Query, Submitted, User};
use crate::resources::lists::{IdPath, PAGING, Page, PageQuery, id_parameter};
use crate::route::Route;
use crate::state::HttpState;
use actix_web::HttpRequest;
use actix_web::web::Data;
use application::use_cases::MonitorRequest;
use domain::{AfterSeconds, Criteria, MonitorId, MonitorKind, MonitorName, OfflineRatio, Selector};

/// The `{id}` of a monitor's paths.
const MONITOR_ID: crate::description::Parameter = id_parameter(
    "The monitor's id (a lowercase UUID), as in its `url`.",
    || EXAMPLE_MONITOR_ID.into(),
);

/// The routes of this resource.
pub fn routes() -> Vec<Route> {
    let mut list = Route::new(
        Tag::Alerts,
        "/monitors/",
        "Monitor List",
        "The account's monitors, newest first, a page at a time (`limit`, default 100,\nand `offset`). POST creates one: `device_offline` opens an alert for each\nselected device silent for more than `after_seconds`; `fleet_offline_ratio`\none alert once the share of selected devices offline has stayed above\n`ratio` for `after_seconds`. `after_seconds` is at least the server's online\nwindow.",
    );
    for parameter in PAGING {
        list = list.parameter(parameter);
    }
    let monitor_route = |pattern, name, description| {
        Route::new(Tag::Alerts, pattern, name, description).parameter(MONITOR_ID)
    };
    vec![
        list.get("listMonitors", "List the account's monitors", list_monitors)
            .post("createMonitor", "Create a monitor", create)
            .request_example(example_body()),
        monitor_route(
            "/monitors/{id}/",
            "Monitor Detail",
            "One monitor of the account. DELETE deletes it and its alerts.",
        )
        .get("getMonitor", "Show a monitor", detail)
        .fails(&[404])
        .delete("deleteMonitor", "Delete a monitor and its alerts", delete)
        .fails(&[404]),
        monitor_route(
            "/monitors/{id}/snooze/",
            "Monitor Snooze",
            "Snooze a monitor until `until`: its alerts open and resolve as usual but are\nnot notified (no mail, no webhook). `until` null, or a time not in the\nfuture, ends the snooze.",
        )
        .post("snoozeMonitor", "Snooze a monitor", snooze)
        .request_example(SnoozeBody(Some(ex::at("2026-11-24T17:30:00Z"))))
        .fails(&[404]),
    ]
}

/// The example monitor: the Berlin site's devices, a quarter of them
/// offline for five minutes.
pub(crate) fn example_body() -> MonitorBody {
    let tag = domain::Tag::parse(ex::TAGS[1]).expect("a valid tag");
    let selector = Selector::Matching(Criteria {
        tags: vec![tag],
        ..Criteria::default()
    });
    let ratio = OfflineRatio::new(0.25).expect("a valid ratio");
    MonitorBody(MonitorRequest {
        name: MonitorName::parse("Berlin mostly offline".to_owned()).expect("a valid name"),
        kind: MonitorKind::FleetOfflineRatio(ratio),
        selector_json: crate::fields::selector::selector_json(&selector).to_string(),
        selector,
        after: AfterSeconds::new(300, 1).expect("a valid wait"),
    })
}

/// `POST /monitors/`: 201 with the monitor.
async fn create(
    state: Data<HttpState>,
    user: User,
    BaseUrl(base): BaseUrl,
    ValidMonitor(request): ValidMonitor,
) -> Result<Located<MonitorJson, 201>, ApiError> {
    let monitor = state.app.monitors.create(user.requester(), request).await?;
    let body = MonitorJson::new(&monitor, &base);
    Ok(Located {
        location: body.url().to_owned(),
        body,
    })
}

/// `GET /monitors/`: a page of the account's monitors, newest first.
async fn list_monitors(
    state: Data<HttpState>,
    user: User,
    req: HttpRequest,
    BaseUrl(base): BaseUrl,
    Query(PageQuery(window)): Query<PageQuery>,
) -> Result<Json<Page<MonitorJson>>, ApiError> {
    let page = state.app.monitors.list(&user.account, window).await?;
    let monitors = page
        .monitors
        .iter()
        .map(|monitor| MonitorJson::new(monitor, &base))
        .collect();
    Ok(Json(Page::new(&req, &base, window, page.count, monitors)))
}

/// `GET /monitors/{id}/`: 404 for a missing, malformed or foreign id alike.
async fn detail(
    state: Data<HttpState>,
    user: User,
    IdPath(id): IdPath<MonitorId>,
    BaseUrl(base): BaseUrl,
) -> Result<Json<MonitorJson>, ApiError> {
    let monitor = state
        .app
        .monitors
        .get(&user.account, &id)
        .await?
        .ok_or(ApiError::NotFound)?;
    Ok(Json(MonitorJson::new(&monitor, &base)))
}

/// `DELETE /monitors/{id}/`: 204; its alerts go with it.
async fn delete(
    state: Data<HttpState>,
    user: User,
    IdPath(id): IdPath<MonitorId>,
) -> Result<NoContent, ApiError> {
    if state.app.monitors.delete(user.requester(), &id).await? {
        Ok(NoContent)
    } else {
        Err(ApiError::NotFound)
    }
}

/// `POST /monitors/{id}/snooze/`: 200 with the monitor as it is now; a
/// monitor not the account's is 404 before its body is judged, as DRF finds
/// the object first.
async fn snooze(
    state: Data<HttpState>,
    user: User,
    IdPath(id): IdPath<MonitorId>,
    BaseUrl(base): BaseUrl,
    body: Submitted<SnoozeBody>,
) -> Result<Json<MonitorJson>, ApiError> {
    let monitors = &state.app.monitors;
    monitors
        .get(&user.account, &id)
        .await?
        .ok_or(ApiError::NotFound)?;
    let SnoozeBody(until) = body.check().map_err(ApiError::from)?;
    let monitor = state
        .app
        .monitors
        .snooze(user.requester(), &id, until)
        .await?
        .ok_or(ApiError::NotFound)?;
    Ok(Json(MonitorJson::new(&monitor, &base)))
}
