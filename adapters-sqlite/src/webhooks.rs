//! The webhook port on SQLite (docs/architecture.md, "Alerts and
//! webhooks"): a `webhooks` row per webhook and a `webhook_deliveries` row
//! per event to post, queued in the transaction of the change that causes
//! it ([`queue_event`]) and claimed by workers under a lease.

mod deliveries;
mod owned;
mod rows;

pub(crate) use deliveries::queue_event;
pub(crate) use owned::limits;

use crate::store::SqliteStore;
use application::StoreError;
use application::ports::{
    AttemptRecord, DeliveryPage, DueDelivery, EventRecord, NewWebhook, WebhookPage, WebhookRecord,
    WebhookRepository, Window,
};
use async_trait::async_trait;
use domain::{AccountId, AuditNote, DeliveryId, Timestamp, WebhookId};

#[async_trait]
impl WebhookRepository for SqliteStore {
    async fn create_webhook(
        &self,
        webhook: &NewWebhook,
        audit: &AuditNote,
    ) -> Result<(), StoreError> {
        let (webhook, audit) = (webhook.clone(), audit.clone());
        self.write("create a webhook", move |conn| {
            owned::create(conn, &webhook, &audit)
        })
        .await
    }

    async fn list_webhooks(
        &self,
        owner: AccountId,
        window: Window,
    ) -> Result<WebhookPage, StoreError> {
        self.run("list webhooks", move |conn| {
            owned::list(&*conn.transaction()?, owner, window)
        })
        .await
    }

    async fn find_webhook(
        &self,
        owner: AccountId,
        id: &WebhookId,
    ) -> Result<Option<WebhookRecord>, StoreError> {
        let id = id.clone();
        self.run("read a webhook", move |conn| {
            owned::find(conn, owner, id.as_str())
        })
        .await
    }

    async fn delete_webhook(
        &self,
        owner: AccountId,
        id: &WebhookId,
        audit: &AuditNote,
    ) -> Result<bool, StoreError> {
        let (id, audit) = (id.clone(), audit.clone());
        self.write("delete a webhook", move |conn| {
            owned::delete(conn, owner, id.as_str(), &audit)
        })
        .await
    }

    async fn queue_ping(
        &self,
        owner: AccountId,
        id: &WebhookId,
        delivery: &DeliveryId,
        event: &EventRecord,
    ) -> Result<bool, StoreError> {
        let (id, delivery, event) = (id.clone(), delivery.clone(), event.clone());
        self.write("queue a ping", move |conn| {
            owned::ping(conn, owner, id.as_str(), delivery.as_str(), &event)
        })
        .await
    }

    async fn list_deliveries(
        &self,
        owner: AccountId,
        id: &WebhookId,
        window: Window,
    ) -> Result<Option<DeliveryPage>, StoreError> {
        let id = id.clone();
        self.run("list a webhook's deliveries", move |conn| {
            owned::deliveries(&*conn.transaction()?, owner, id.as_str(), window)
        })
        .await
    }

    async fn claim_deliveries(
        &self,
        now: Timestamp,
        lease_until: Timestamp,
        limit: u32,
    ) -> Result<Vec<DueDelivery>, StoreError> {
        self.write("claim webhook deliveries", move |conn| {
            deliveries::claim(conn, now, lease_until, limit)
        })
        .await
    }

    async fn record_attempt(
        &self,
        id: &DeliveryId,
        attempt: &AttemptRecord,
    ) -> Result<(), StoreError> {
        let (id, attempt) = (id.clone(), attempt.clone());
        self.write("record a delivery attempt", move |conn| {
            deliveries::record(conn, id.as_str(), &attempt)
        })
        .await
    }
}
