//! `/console/webhooks/<id>/`: one webhook: its target and events, "Send
//! ping" (a `ping` delivery for this webhook alone, as
//! `POST /webhooks/<id>/ping/`), "Delete" (confirmed first: a page of its
//! own) and its delivery log, newest first, 50 a page (`?page=2`): each
//! delivery's event, status, attempts, last answer's code, error and times.
//! The secret is never shown here.

use super::browser::Viewer;
use super::chrome::Chrome;
use super::failure::Failure;
use super::notice_query::NoticeCode;
use super::notices;
use super::paging::{Pager, page_of, page_url, read_within};
use super::posted::Posted;
use super::respond::{render, see_other};
use super::time::Moment;
use super::webhooks::WebhookRow;
use crate::state::HttpState;
use actix_web::http::StatusCode;
use actix_web::web::{self, Data};
use actix_web::{HttpRequest, HttpResponse};
use application::ports::{DeliveryPage, DeliveryRecord, WebhookRecord};
use askama::Template;
use domain::{Account, Timestamp, WebhookId};

/// How many deliveries a page of the log shows.
pub(crate) const DELIVERIES_PAGE_SIZE: u32 = 50;

/// Mounts a webhook's page, its ping and its deletion.
pub(super) fn mount(config: &mut web::ServiceConfig) {
    config
        .service(web::resource("/webhooks/{id}/").route(web::get().to(show)))
        .service(web::resource("/webhooks/{id}/ping/").route(web::post().to(ping)))
        .service(
            web::resource("/webhooks/{id}/delete/")
                .route(web::get().to(confirm_delete))
                .route(web::post().to(delete)),
        );
}

/// The webhook id in the path, or 404 (a malformed id too).
fn webhook_id_of(raw: &str) -> Result<WebhookId, Failure> {
    WebhookId::parse(raw).map_err(|_| Failure::NotFound)
}

/// The account's webhook with this id, or 404.
async fn webhook_of(
    state: &HttpState,
    account: &Account,
    raw: &str,
) -> Result<WebhookRecord, Failure> {
    let id = webhook_id_of(raw)?;
    state
        .app
        .webhooks
        .get(account, &id)
        .await?
        .ok_or(Failure::NotFound)
}

/// A delivery's row in the log.
struct DeliveryRow {
    id: String,
    event: &'static str,
    status: &'static str,
    attempts: u32,
    /// The last answer's HTTP status; "—" without one.
    response_code: String,
    error: String,
    created: Moment,
    last_attempt: Option<Moment>,
    next_attempt: Option<Moment>,
}

impl DeliveryRow {
    fn of(delivery: &DeliveryRecord, now: Timestamp) -> Self {
        Self {
            id: delivery.id.as_str().to_owned(),
            event: delivery.event.code(),
            status: delivery.status.code(),
            attempts: delivery.attempts,
            response_code: delivery
                .response_code
                .map_or_else(|| "—".to_owned(), |code| code.to_string()),
            error: delivery.error.clone(),
            created: Moment::of(delivery.created_time, now),
            last_attempt: delivery.last_attempt_time.map(|at| Moment::of(at, now)),
            next_attempt: delivery
                .next_attempt_time
                .map(|at| super::alerts_views::ahead(at, now)),
        }
    }
}

/// The page.
#[derive(Template)]
#[template(path = "console/webhook.html")]
struct WebhookPage {
    chrome: Chrome,
    webhook: WebhookRow,
    deliveries: Vec<DeliveryRow>,
    count: u64,
    page: u64,
}

impl WebhookPage {
    /// Where the page stands in the list.
    fn pager(&self) -> Pager {
        let path = self.path();
        Pager::new(self.page, self.count, DELIVERIES_PAGE_SIZE, |page| {
            page_url(&path, page)
        })
    }

    fn path(&self) -> String {
        format!("/console/webhooks/{}/", self.webhook.id)
    }

    /// "3 deliveries."
    fn summary(&self) -> String {
        match self.count {
            1 => "1 delivery.".to_owned(),
            n => format!("{n} deliveries."),
        }
    }
}

/// A page of the log (the last when `page` is past it), and its number.
async fn log_of(
    state: &HttpState,
    account: &Account,
    id: &WebhookId,
    page: u64,
) -> Result<(DeliveryPage, u64), Failure> {
    let webhooks = &state.app.webhooks;
    read_within(page, DELIVERIES_PAGE_SIZE, |window| async move {
        webhooks
            .deliveries(account, id, window)
            .await?
            .ok_or(Failure::NotFound)
    })
    .await
}

async fn show(
    req: HttpRequest,
    state: Data<HttpState>,
    viewer: Viewer,
    path: web::Path<String>,
    NoticeCode(notice): NoticeCode,
) -> Result<HttpResponse, Failure> {
    let webhook = webhook_of(&state, &viewer.account, &path).await?;
    let page = page_of(req.query_string());
    let (log, page) = log_of(&state, &viewer.account, &webhook.id, page).await?;
    let now = state.app.watching.now();
    let row = WebhookRow::of(&webhook, now);
    let page = WebhookPage {
        chrome: viewer
            .browser
            .chrome(format!("Webhook to {}", row.target_url), "alerts")
            .with_notice(notice.as_deref()),
        webhook: row,
        deliveries: log
            .deliveries
            .iter()
            .map(|delivery| DeliveryRow::of(delivery, now))
            .collect(),
        count: log.count,
        page,
    };
    Ok(render(StatusCode::OK, &page, None))
}

async fn ping(
    state: Data<HttpState>,
    viewer: Viewer,
    path: web::Path<String>,
    _form: Posted,
) -> Result<HttpResponse, Failure> {
    let id = webhook_id_of(&path)?;
    state
        .app
        .webhooks
        .ping(&viewer.account, &id)
        .await?
        .ok_or(Failure::NotFound)?;
    let path = format!("/console/webhooks/{id}/");
    Ok(see_other(&notices::after(&path, "webhook-pinged")))
}

/// The confirmation of "Delete".
#[derive(Template)]
#[template(path = "console/webhook_delete.html")]
struct DeletePage {
    chrome: Chrome,
    webhook: WebhookRow,
}

async fn confirm_delete(
    state: Data<HttpState>,
    viewer: Viewer,
    path: web::Path<String>,
) -> Result<HttpResponse, Failure> {
    let webhook = webhook_of(&state, &viewer.account, &path).await?;
    let now = state.app.watching.now();
    let page = DeletePage {
        chrome: viewer.browser.chrome("Delete webhook", "alerts"),
        webhook: WebhookRow::of(&webhook, now),
    };
    Ok(render(StatusCode::OK, &page, None))
}

async fn delete(
    state: Data<HttpState>,
    viewer: Viewer,
    path: web::Path<String>,
    _form: Posted,
) -> Result<HttpResponse, Failure> {
    let id = webhook_id_of(&path)?;
    if !state.app.webhooks.delete(viewer.requester(), &id).await? {
        return Err(Failure::NotFound);
    }
    Ok(see_other(&notices::after(
        "/console/webhooks/",
        "webhook-deleted",
    )))
}
