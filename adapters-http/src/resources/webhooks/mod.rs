//! Webhooks: where the account's alert and job events are posted, signed
//! (`docs/api.md`, "Webhooks"; receivers: `docs/webhooks.md`). Create, list,
//! read, delete, ping, and the log of a webhook's deliveries.

mod body;
mod json;

pub use body::WebhookBody;
pub use json::{
    CREATED_WEBHOOK_SCHEMA, CreatedWebhookJson, DELIVERY_PAGE_SCHEMA, DELIVERY_SCHEMA,
    DeliveryJson, PING_SCHEMA, PingJson, WEBHOOK_PAGE_SCHEMA, WEBHOOK_SCHEMA, WebhookJson,
};

use crate::answer::{Json, Located, NoContent, SecretLocated};
use crate::description::Tag;
use crate::error::ApiError;
use crate::extract::{BaseUrl, Query, User, Valid};
use crate::resources::jobs::NoBody;
use crate::resources::lists::{IdPath, PAGING, Page, PageQuery, id_parameter};
use crate::route::Route;
use crate::state::HttpState;
use actix_web::HttpRequest;
use actix_web::web::Data;
use application::ports::AddressRefusal;
use application::use_cases::{CreateWebhookError, WebhookRequest};
use domain::webhook::{FORBIDDEN_ADDRESS_MESSAGE, UNRESOLVED_HOST_MESSAGE};
use domain::{EventSet, TargetUrl, WebhookEvent, WebhookId};

/// The routes of this resource.
pub fn routes() -> Vec<Route> {
    let paged = |route: Route| PAGING.into_iter().fold(route, Route::parameter);
    let webhook_route = |pattern, name, description| {
        Route::new(Tag::Webhooks, pattern, name, description).parameter(id_parameter(
            "The webhook's id (a lowercase UUID), as in its `url`.",
            || json::EXAMPLE_WEBHOOK_ID.into(),
        ))
    };
    let list = paged(Route::new(
        Tag::Webhooks,
        "/webhooks/",
        "Webhook List",
        "The account's webhooks, newest first, a page at a time (`limit`, default 100,\nand `offset`). POST creates one: its `secret` (given, or 40 random hex\ndigits) is shown in that answer only. A target that is, or resolves to, a\nloopback, private or link-local address is refused unless the server allows\nprivate webhooks.",
    ));
    vec![
        list.get("listWebhooks", "List the account's webhooks", list_webhooks)
            .post("createWebhook", "Create a webhook", create)
            .request_example(example_body())
            .bad_request_example(&ApiError::field(
                body::TARGET_URL.name,
                FORBIDDEN_ADDRESS_MESSAGE,
            )),
        webhook_route(
            "/webhooks/{id}/",
            "Webhook Detail",
            "One webhook of the account (without its secret). DELETE deletes it and its\ndeliveries: none is attempted after.",
        )
        .get("getWebhook", "Show a webhook", detail)
        .fails(&[404])
        .delete("deleteWebhook", "Delete a webhook and its deliveries", delete)
        .fails(&[404]),
        webhook_route(
            "/webhooks/{id}/ping/",
            "Webhook Ping",
            "Queue a `ping` event for this webhook alone, whatever its events: its\ndata is the webhook. No body needed.",
        )
        .post("pingWebhook", "Send a webhook a ping", ping)
        .request_example(NoBody)
        .fails(&[404]),
        paged(webhook_route(
            "/webhooks/{id}/deliveries/",
            "Webhook Deliveries",
            "The webhook's deliveries, newest first, a page at a time (`limit`, default\n100, and `offset`): each event posted, where it stands, its attempts and the\nlast answer.",
        ))
        .get("listWebhookDeliveries", "List a webhook's deliveries", deliveries)
        .fails(&[404]),
    ]
}

/// The example webhook: alerts only, posted to a public address.
fn example_body() -> WebhookBody {
    WebhookBody(WebhookRequest {
        target: TargetUrl::parse(json::EXAMPLE_TARGET).expect("a valid target"),
        events: EventSet::new([WebhookEvent::AlertOpened, WebhookEvent::AlertResolved])
            .expect("events to subscribe to"),
        secret: Some("correct-horse-battery-staple".to_owned()),
    })
}

/// `POST /webhooks/`: 201 with the webhook and its secret, never cached.
async fn create(
    state: Data<HttpState>,
    user: User,
    BaseUrl(base): BaseUrl,
    Valid(WebhookBody(request)): Valid<WebhookBody>,
) -> Result<SecretLocated<CreatedWebhookJson, 201>, ApiError> {
    let created = state
        .app
        .webhooks
        .create(user.requester(), request)
        .await
        .map_err(|error| match error {
            CreateWebhookError::Address(refusal) => refused(refusal),
            CreateWebhookError::Store(error) => error.into(),
        })?;
    let body = CreatedWebhookJson::new(&created.webhook, created.secret, &base);
    Ok(SecretLocated(Located {
        location: body.url().to_owned(),
        body,
    }))
}

/// A refused target as the API answers it.
fn refused(refusal: AddressRefusal) -> ApiError {
    let message = match refusal {
        AddressRefusal::Forbidden => FORBIDDEN_ADDRESS_MESSAGE,
        AddressRefusal::Unresolved => UNRESOLVED_HOST_MESSAGE,
    };
    ApiError::field(body::TARGET_URL.name, message)
}

/// `GET /webhooks/`: a page of the account's webhooks, newest first.
async fn list_webhooks(
    state: Data<HttpState>,
    user: User,
    req: HttpRequest,
    BaseUrl(base): BaseUrl,
    Query(PageQuery(window)): Query<PageQuery>,
) -> Result<Json<Page<WebhookJson>>, ApiError> {
    let page = state.app.webhooks.list(&user.account, window).await?;
    let webhooks = page
        .webhooks
        .iter()
        .map(|webhook| WebhookJson::new(webhook, &base))
        .collect();
    Ok(Json(Page::new(&req, &base, window, page.count, webhooks)))
}

/// `GET /webhooks/{id}/`: 404 for a missing, malformed or foreign id alike.
async fn detail(
    state: Data<HttpState>,
    user: User,
    IdPath(id): IdPath<WebhookId>,
    BaseUrl(base): BaseUrl,
) -> Result<Json<WebhookJson>, ApiError> {
    let webhook = state
        .app
        .webhooks
        .get(&user.account, &id)
        .await?
        .ok_or(ApiError::NotFound)?;
    Ok(Json(WebhookJson::new(&webhook, &base)))
}

/// `DELETE /webhooks/{id}/`: 204; its deliveries go with it.
async fn delete(
    state: Data<HttpState>,
    user: User,
    IdPath(id): IdPath<WebhookId>,
) -> Result<NoContent, ApiError> {
    if state.app.webhooks.delete(user.requester(), &id).await? {
        Ok(NoContent)
    } else {
        Err(ApiError::NotFound)
    }
}

/// `POST /webhooks/{id}/ping/`: 202 with the queued delivery's id.
async fn ping(
    state: Data<HttpState>,
    user: User,
    IdPath(id): IdPath<WebhookId>,
    Valid(NoBody): Valid<NoBody>,
) -> Result<Json<PingJson, 202>, ApiError> {
    let delivery = state
        .app
        .webhooks
        .ping(&user.account, &id)
        .await?
        .ok_or(ApiError::NotFound)?;
    Ok(Json(PingJson::new(&delivery)))
}

/// `GET /webhooks/{id}/deliveries/`: a page of its deliveries, newest first.
async fn deliveries(
    state: Data<HttpState>,
    user: User,
    req: HttpRequest,
    (IdPath(id), BaseUrl(base)): (IdPath<WebhookId>, BaseUrl),
    Query(PageQuery(window)): Query<PageQuery>,
) -> Result<Json<Page<DeliveryJson>>, ApiError> {
    let page = state
        .app
        .webhooks
        .deliveries(&user.account, &id, window)
        .await?
        .ok_or(ApiError::NotFound)?;
    let deliveries = page.deliveries.iter().map(DeliveryJson::from).collect();
    Ok(Json(Page::new(&req, &base, window, page.count, deliveries)))
}
