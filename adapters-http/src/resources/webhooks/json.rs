//! A webhook, a new one with its secret, a delivery and a queued ping as
//! the API shows them (`docs/api.md`, "Webhooks"), with their descriptions
//! and examples.

use super::body::{EVENTS, TARGET_URL};
use crate::answer::Locates;
use crate::description::examples::{self as ex, BASE_URL};
use crate::description::{Described, Location, ObjectSchema};
use crate::fields::{Field, FieldType};
use crate::resources::lists::{Page, page_fields};
use crate::resources::monitors::echoed;
use application::ports::{DeliveryRecord, WebhookRecord};
use domain::time::format_api;
use domain::{DeliveryStatus, WebhookEvent};
use serde::Serialize;

/// The example webhook's id.
pub(crate) const EXAMPLE_WEBHOOK_ID: &str = "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d";
/// The example delivery's id.
const EXAMPLE_DELIVERY_ID: &str = "0f1e2d3c-4b5a-4968-8776-a5b4c3d2e1f0";
/// The example webhook's target.
pub(crate) const EXAMPLE_TARGET: &str = "https://203.0.113.10/devmgr-events";

/// The events a delivery may carry, as the API writes them.
const DELIVERED_EVENTS: [&str; 5] = [
    WebhookEvent::AlertOpened.code(),
    WebhookEvent::AlertResolved.code(),
    WebhookEvent::JobCompleted.code(),
    WebhookEvent::JobHalted.code(),
    WebhookEvent::Ping.code(),
];

/// Where a delivery may stand, as the API writes it.
const DELIVERY_STATUSES: [&str; 3] = [
    DeliveryStatus::Pending.code(),
    DeliveryStatus::Succeeded.code(),
    DeliveryStatus::Failed.code(),
];

const ID: Field = Field::read_only("id", "Id", FieldType::String).format("uuid");
const CREATED_TIME: Field = Field::read_only("created_time", "Created time", FieldType::Datetime);

/// A webhook's fields as answers show them.
pub const WEBHOOK_FIELDS: &[Field] = &[
    ID,
    Field::read_only("url", "Url", FieldType::Url),
    echoed(TARGET_URL),
    echoed(EVENTS),
    CREATED_TIME,
];

/// A webhook.
pub const WEBHOOK_SCHEMA: ObjectSchema = ObjectSchema {
    name: "Webhook",
    description: "A webhook: where the account's events are posted (`target_url`, as sent) and which (`events`, in a fixed order, once each). Its secret is shown only when it is created.",
    fields: WEBHOOK_FIELDS,
};

/// A new webhook's fields: a webhook's and its secret.
pub const CREATED_WEBHOOK_FIELDS: &[Field] = &[
    ID,
    Field::read_only("url", "Url", FieldType::Url),
    echoed(TARGET_URL),
    echoed(EVENTS),
    CREATED_TIME,
    Field::read_only("secret", "Secret", FieldType::String),
];

/// A new webhook, with its secret.
pub const CREATED_WEBHOOK_SCHEMA: ObjectSchema = ObjectSchema {
    name: "NewWebhook",
    description: "A new webhook, with the secret that signs its deliveries (`X-Devmgr-Signature`): shown this once, never again.",
    fields: CREATED_WEBHOOK_FIELDS,
};

/// A page of webhooks.
pub const WEBHOOK_PAGE_SCHEMA: ObjectSchema = ObjectSchema {
    name: "WebhookPage",
    description: "A page of the account's webhooks, newest first: how many there are in all, the URLs of the next and the previous page (null at either end), and the page's webhooks.",
    fields: page_fields!(WEBHOOK_FIELDS),
};

/// A webhook as the API shows it.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct WebhookJson {
    id: String,
    url: String,
    target_url: String,
    events: Vec<&'static str>,
    created_time: String,
}

impl WebhookJson {
    /// Renders a webhook with its absolute URL under `base_url`.
    pub fn new(webhook: &WebhookRecord, base_url: &str) -> Self {
        Self {
            id: webhook.id.to_string(),
            url: webhook_url(base_url, webhook.id.as_str()),
            target_url: webhook.target_url.clone(),
            events: webhook.events.events().iter().map(|e| e.code()).collect(),
            created_time: format_api(webhook.created_time),
        }
    }
}

/// `<base>/webhooks/<id>/`.
pub fn webhook_url(base_url: &str, id: &str) -> String {
    format!("{base_url}/webhooks/{id}/")
}

impl Described for WebhookJson {
    const SCHEMA: &'static ObjectSchema = &WEBHOOK_SCHEMA;

    fn example() -> Self {
        Self {
            id: EXAMPLE_WEBHOOK_ID.to_owned(),
            url: webhook_url(BASE_URL, EXAMPLE_WEBHOOK_ID),
            target_url: EXAMPLE_TARGET.to_owned(),
            events: vec![
                WebhookEvent::AlertOpened.code(),
                WebhookEvent::AlertResolved.code(),
            ],
            created_time: format_api(ex::at(ex::ISSUED)),
        }
    }
}

impl Described for Page<WebhookJson> {
    const SCHEMA: &'static ObjectSchema = &WEBHOOK_PAGE_SCHEMA;

    fn example() -> Self {
        Page::sample("/webhooks/", WebhookJson::example())
    }
}

/// A new webhook as the API shows it, with its secret.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct CreatedWebhookJson {
    #[serde(flatten)]
    webhook: WebhookJson,
    secret: String,
}

impl CreatedWebhookJson {
    /// Renders a new webhook and its secret.
    pub fn new(webhook: &WebhookRecord, secret: String, base_url: &str) -> Self {
        Self {
            webhook: WebhookJson::new(webhook, base_url),
            secret,
        }
    }

    /// Its absolute URL.
    pub fn url(&self) -> &str {
        &self.webhook.url
    }
}

impl Described for CreatedWebhookJson {
    const SCHEMA: &'static ObjectSchema = &CREATED_WEBHOOK_SCHEMA;

    fn example() -> Self {
        Self {
            webhook: WebhookJson::example(),
            secret: "6f1d3c9a0b7e4f2a8c5d1e9b3a7f0c2d4e6b8a1c".to_owned(),
        }
    }
}

impl Locates for CreatedWebhookJson {
    const LOCATION: Location = Location {
        description: "The new webhook's URL (its `url`).",
        example: || webhook_url(BASE_URL, EXAMPLE_WEBHOOK_ID),
    };
}

/// A delivery's fields as answers show them.
pub const DELIVERY_FIELDS: &[Field] = &[
    ID,
    Field::read_only("event", "Event", FieldType::String).choices(&DELIVERED_EVENTS),
    Field::read_only("status", "Status", FieldType::String).choices(&DELIVERY_STATUSES),
    Field::read_only("attempts", "Attempts", FieldType::Integer).range(0, i64::MAX),
    Field::read_only("response_code", "Response code", FieldType::Integer)
        .range(100, 599)
        .nullable(),
    Field::read_only("error", "Error", FieldType::String),
    CREATED_TIME,
    Field::read_only(
        "last_attempt_time",
        "Last attempt time",
        FieldType::Datetime,
    )
    .nullable(),
    Field::read_only(
        "next_attempt_time",
        "Next attempt time",
        FieldType::Datetime,
    )
    .nullable(),
];

/// A delivery.
pub const DELIVERY_SCHEMA: ObjectSchema = ObjectSchema {
    name: "Delivery",
    description: "One event posted to the webhook: `pending` until an attempt is answered with a 2xx (`succeeded`) or it is given up (`failed`: 24 h of failures, or an address refused); `response_code` of the last attempt (null without an HTTP answer), `error` why it failed (\"\" when it did not), `created_time` when the event happened, and when the last attempt was made and the next goes (null when none).",
    fields: DELIVERY_FIELDS,
};

/// A page of deliveries.
pub const DELIVERY_PAGE_SCHEMA: ObjectSchema = ObjectSchema {
    name: "DeliveryPage",
    description: "A page of a webhook's deliveries, newest first: how many it has in all, the URLs of the next and the previous page (null at either end), and the page's deliveries.",
    fields: page_fields!(DELIVERY_FIELDS),
};

/// A delivery as the API shows it.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct DeliveryJson {
    id: String,
    event: &'static str,
    status: &'static str,
    attempts: u32,
    response_code: Option<u16>,
    error: String,
    created_time: String,
    last_attempt_time: Option<String>,
    next_attempt_time: Option<String>,
}

impl From<&DeliveryRecord> for DeliveryJson {
    fn from(delivery: &DeliveryRecord) -> Self {
        Self {
            id: delivery.id.to_string(),
            event: delivery.event.code(),
            status: delivery.status.code(),
            attempts: delivery.attempts,
            response_code: delivery.response_code,
            error: delivery.error.clone(),
            created_time: format_api(delivery.created_time),
            last_attempt_time: delivery.last_attempt_time.map(format_api),
            next_attempt_time: delivery.next_attempt_time.map(format_api),
        }
    }
}

impl Described for DeliveryJson {
    const SCHEMA: &'static ObjectSchema = &DELIVERY_SCHEMA;

    fn example() -> Self {
        Self {
            id: EXAMPLE_DELIVERY_ID.to_owned(),
            event: WebhookEvent::AlertOpened.code(),
            status: DeliveryStatus::Pending.code(),
            attempts: 2,
            response_code: Some(503),
            error: "The target answered with HTTP status 503.".to_owned(),
            created_time: format_api(ex::at(ex::ISSUED)),
            last_attempt_time: Some(format_api(ex::at("2026-11-24T09:30:01Z"))),
            next_attempt_time: Some(format_api(ex::at("2026-11-24T09:30:03Z"))),
        }
    }
}

impl Described for Page<DeliveryJson> {
    const SCHEMA: &'static ObjectSchema = &DELIVERY_PAGE_SCHEMA;

    fn example() -> Self {
        let path = webhook_url("", EXAMPLE_WEBHOOK_ID) + "deliveries/";
        Page::sample(&path, DeliveryJson::example())
    }
}

/// The answer to a ping: the id of its delivery.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct PingJson {
    delivery: String,
}

impl PingJson {
    /// The queued delivery `id`.
    pub fn new(id: &domain::DeliveryId) -> Self {
        Self {
            delivery: id.to_string(),
        }
    }
}

/// A queued ping.
pub const PING_SCHEMA: ObjectSchema = ObjectSchema {
    name: "PingQueued",
    description: "The id of the `ping` delivery queued for the webhook (see its deliveries).",
    fields: &[Field::read_only("delivery", "Delivery", FieldType::String).format("uuid")],
};

impl Described for PingJson {
    const SCHEMA: &'static ObjectSchema = &PING_SCHEMA;

    fn example() -> Self {
        Self {
            delivery: EXAMPLE_DELIVERY_ID.to_owned(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::description::assert_described;

    #[test]
    fn the_answers_write_their_described_fields() {
        assert_described(&WebhookJson::example());
        assert_described(&Page::<WebhookJson>::example());
        assert_described(&CreatedWebhookJson::example());
        assert_described(&DeliveryJson::example());
        assert_described(&Page::<DeliveryJson>::example());
        assert_described(&PingJson::example());
    }
}
