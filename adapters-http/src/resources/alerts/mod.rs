//! Alerts: what the account's monitors opened, open or resolved
//! (`docs/api.md`, "Monitors and alerts"). List (filtered by monitor and
//! state) and read; the monitor engine opens and resolves them.

mod json;
mod query;

pub use json::{ALERT_PAGE_SCHEMA, ALERT_SCHEMA, AlertJson};
pub use query::AlertQuery;

use crate::answer::Json;
use crate::description::Tag;
use crate::error::ApiError;
use crate::extract::{BaseUrl, Query, User};
use crate::resources::lists::{IdPath, PAGING, Page, id_parameter};
use crate::route::Route;
use crate::state::HttpState;
use actix_web::HttpRequest;
use actix_web::web::Data;
use domain::AlertId;

/// The routes of this resource.
pub fn routes() -> Vec<Route> {
    let mut list = Route::new(
        Tag::Alerts,
        "/alerts/",
        "Alert List",
        "The account's alerts, newest first, a page at a time (`limit`, default 100,\nand `offset`), only those of one monitor (`monitor`) or in one state\n(`state`: `open` or `resolved`) when asked.",
    );
    for parameter in PAGING.into_iter().chain(query::FILTERS) {
        list = list.parameter(parameter);
    }
    vec![
        list.get("listAlerts", "List the account's alerts", list_alerts),
        Route::new(
            Tag::Alerts,
            "/alerts/{id}/",
            "Alert Detail",
            "One alert of the account: its monitor, its device, its state and why it\nopened.",
        )
        .parameter(id_parameter(
            "The alert's id (a lowercase UUID), as in its `url`.",
            || json::EXAMPLE_ALERT_ID.into(),
        ))
        .get("getAlert", "Show an alert", detail)
        .fails(&[404]),
    ]
}

/// `GET /alerts/`: a page of the account's alerts that match, newest first.
async fn list_alerts(
    state: Data<HttpState>,
    user: User,
    req: HttpRequest,
    BaseUrl(base): BaseUrl,
    Query(query): Query<AlertQuery>,
) -> Result<Json<Page<AlertJson>>, ApiError> {
    let page = state
        .app
        .monitors
        .alerts(&user.account, &query.filter, query.window)
        .await?;
    let alerts = page
        .alerts
        .iter()
        .map(|alert| AlertJson::new(alert, &base))
        .collect();
    Ok(Json(Page::new(
        &req,
        &base,
        query.window,
        page.count,
        alerts,
    )))
}

/// `GET /alerts/{id}/`: 404 for a missing, malformed or foreign id alike.
async fn detail(
    state: Data<HttpState>,
    user: User,
    IdPath(id): IdPath<AlertId>,
    BaseUrl(base): BaseUrl,
) -> Result<Json<AlertJson>, ApiError> {
    let alert = state
        .app
        .monitors
        .alert(&user.account, &id)
        .await?
        .ok_or(ApiError::NotFound)?;
    Ok(Json(AlertJson::new(&alert, &base)))
}
