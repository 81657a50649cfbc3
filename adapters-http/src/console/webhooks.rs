//! `/console/webhooks/`: the account's webhooks, newest first, 50 a page
//! (`?page=2`), each with its target and events; "New webhook"
//! (`/console/webhooks/new/`: the target URL, the events, every one checked
//! at first, and an optional secret) creates one through the same use case
//! and rules as `POST /webhooks/` and answers with a page that shows its
//! secret, this once: no page shows it again. One webhook's page, its
//! delivery log and buttons are `webhooks_page.rs`.

use super::browser::Viewer;
use super::chrome::Chrome;
use super::failure::Failure;
use super::notice_query::NoticeCode;
use super::paging::{Pager, page_of, page_url, read_within};
use super::posted::Posted;
use super::respond::render;
use super::shown::Shown;
use super::time::Moment;
use super::webhooks_form::{WebhookForm, event_in_words, request_of};
use crate::state::HttpState;
use actix_web::http::StatusCode;
use actix_web::web::{self, Data};
use actix_web::{HttpRequest, HttpResponse};
use application::ports::{AddressRefusal, WebhookRecord};
use application::use_cases::CreateWebhookError;
use askama::Template;
use domain::Timestamp;
use domain::webhook::{FORBIDDEN_ADDRESS_MESSAGE, UNRESOLVED_HOST_MESSAGE};

/// How many webhooks a page of the list shows.
pub(crate) const WEBHOOKS_PAGE_SIZE: u32 = 50;

/// Mounts the list and the new webhook's form (before a webhook's page,
/// whose path would otherwise read `new` as an id).
pub(super) fn mount(config: &mut web::ServiceConfig) {
    config
        .service(web::resource("/webhooks/").route(web::get().to(list)))
        .service(
            web::resource("/webhooks/new/")
                .route(web::get().to(new))
                .route(web::post().to(create)),
        );
}

/// A webhook as the console lists and shows it.
pub(crate) struct WebhookRow {
    pub(crate) id: String,
    pub(crate) target_url: String,
    /// "An alert opens, A job halts".
    pub(crate) events: String,
    pub(crate) created: Moment,
}

impl WebhookRow {
    /// The row of `webhook`, seen at `now`.
    pub(crate) fn of(webhook: &WebhookRecord, now: Timestamp) -> Self {
        let events: Vec<&str> = webhook
            .events
            .events()
            .into_iter()
            .map(event_in_words)
            .collect();
        Self {
            id: webhook.id.as_str().to_owned(),
            target_url: webhook.target_url.clone(),
            events: events.join(", "),
            created: Moment::of(webhook.created_time, now),
        }
    }
}

/// The list.
#[derive(Template)]
#[template(path = "console/webhooks.html")]
struct WebhooksPage {
    chrome: Chrome,
    rows: Vec<WebhookRow>,
    count: u64,
    page: u64,
}

impl WebhooksPage {
    /// Where the page stands in the list.
    fn pager(&self) -> Pager {
        Pager::new(self.page, self.count, WEBHOOKS_PAGE_SIZE, |page| {
            page_url("/console/webhooks/", page)
        })
    }
}

async fn list(
    req: HttpRequest,
    state: Data<HttpState>,
    viewer: Viewer,
    NoticeCode(notice): NoticeCode,
) -> Result<HttpResponse, Failure> {
    let webhooks = &state.app.webhooks;
    let (listed, page) = read_within(page_of(req.query_string()), WEBHOOKS_PAGE_SIZE, |window| {
        webhooks.list(&viewer.account, window)
    })
    .await?;
    let now = state.app.watching.now();
    let page = WebhooksPage {
        chrome: viewer
            .browser
            .chrome("Webhooks", "alerts")
            .with_notice(notice.as_deref()),
        rows: listed
            .webhooks
            .iter()
            .map(|webhook| WebhookRow::of(webhook, now))
            .collect(),
        count: listed.count,
        page,
    };
    Ok(render(StatusCode::OK, &page, None))
}

/// The new webhook's form.
#[derive(Template)]
#[template(path = "console/webhook_new.html")]
struct NewWebhookPage {
    chrome: Chrome,
    form: WebhookForm,
    errors: Shown,
}

/// The page that shows a new webhook's secret, this once.
#[derive(Template)]
#[template(path = "console/webhook_created.html")]
struct CreatedPage {
    chrome: Chrome,
    webhook: WebhookRow,
    secret: String,
}

async fn new(viewer: Viewer) -> Result<HttpResponse, Failure> {
    let page = NewWebhookPage {
        chrome: viewer.browser.chrome("New webhook", "alerts"),
        form: WebhookForm::default(),
        errors: Shown::none(),
    };
    Ok(render(StatusCode::OK, &page, None))
}

async fn create(
    state: Data<HttpState>,
    viewer: Viewer,
    posted: Posted,
) -> Result<HttpResponse, Failure> {
    let form = WebhookForm::typed(&posted);
    let errors = match request_of(&form) {
        Ok(request) => match state.app.webhooks.create(viewer.requester(), request).await {
            Ok(created) => {
                let now = state.app.watching.now();
                let page = CreatedPage {
                    chrome: viewer.browser.chrome("Webhook created", "alerts"),
                    webhook: WebhookRow::of(&created.webhook, now),
                    secret: created.secret,
                };
                return Ok(render(StatusCode::CREATED, &page, None));
            }
            Err(CreateWebhookError::Address(refusal)) => {
                let mut errors = Shown::none();
                errors.add("target_url", refused(refusal));
                errors
            }
            Err(CreateWebhookError::Store(error)) => return Err(error.into()),
        },
        Err(errors) => errors,
    };
    let page = NewWebhookPage {
        chrome: viewer.browser.chrome("New webhook", "alerts"),
        form,
        errors,
    };
    Ok(render(StatusCode::BAD_REQUEST, &page, None))
}

/// The API's message for a refused target address.
fn refused(refusal: AddressRefusal) -> &'static str {
    match refusal {
        AddressRefusal::Forbidden => FORBIDDEN_ADDRESS_MESSAGE,
        AddressRefusal::Unresolved => UNRESOLVED_HOST_MESSAGE,
    }
}
