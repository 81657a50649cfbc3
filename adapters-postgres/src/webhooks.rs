//! Webhooks and their deliveries on PostgreSQL (docs/architecture.md,
//! "Alerts and webhooks"): the `webhooks` and `webhook_deliveries` tables.
//! An owner's reads and changes (`owned`) are single statements; events are
//! queued inside the transaction of the change that causes them (`queue`);
//! workers of any instance take due deliveries under a lease (`claims`).

use crate::store::PgStore;
use application::StoreError;
use application::ports::{
    AttemptRecord, DeliveryPage, DueDelivery, EventRecord, NewWebhook, WebhookPage, WebhookRecord,
    WebhookRepository, Window,
};
use async_trait::async_trait;
use domain::{AccountId, AuditNote, DeliveryId, Timestamp, WebhookId};

mod claims;
mod owned;
mod queue;
mod records;

pub(crate) use queue::{queue_event, queue_events};

#[async_trait]
impl WebhookRepository for PgStore {
    async fn create_webhook(
        &self,
        webhook: &NewWebhook,
        audit: &AuditNote,
    ) -> Result<(), StoreError> {
        self.transaction("create a webhook", |tx| {
            let (webhook, audit) = (webhook.clone(), audit.clone());
            Box::pin(async move {
                owned::create(tx, &webhook).await?;
                crate::audit::append_one(tx, webhook.owner, &audit).await?;
                Ok(())
            })
        })
        .await
    }

    async fn list_webhooks(
        &self,
        owner: AccountId,
        window: Window,
    ) -> Result<WebhookPage, StoreError> {
        self.run("list webhooks", |c| {
            Box::pin(async move { owned::list(c, owner, window).await })
        })
        .await
    }

    async fn find_webhook(
        &self,
        owner: AccountId,
        id: &WebhookId,
    ) -> Result<Option<WebhookRecord>, StoreError> {
        self.run("read a webhook", |c| {
            let id = id.clone();
            Box::pin(async move { owned::find(c, owner, &id).await })
        })
        .await
    }

    async fn delete_webhook(
        &self,
        owner: AccountId,
        id: &WebhookId,
        audit: &AuditNote,
    ) -> Result<bool, StoreError> {
        self.transaction("delete a webhook", |tx| {
            let (id, audit) = (id.clone(), audit.clone());
            Box::pin(async move {
                let deleted = owned::delete(tx, owner, &id).await?;
                if deleted {
                    crate::audit::append_one(tx, owner, &audit).await?;
                }
                Ok(deleted)
            })
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
        self.run("queue a ping", |c| {
            let (id, delivery, event) = (id.clone(), delivery.clone(), event.clone());
            Box::pin(async move { queue::queue_ping(c, owner, &id, &delivery, &event).await })
        })
        .await
    }

    async fn list_deliveries(
        &self,
        owner: AccountId,
        id: &WebhookId,
        window: Window,
    ) -> Result<Option<DeliveryPage>, StoreError> {
        self.run("list a webhook's deliveries", |c| {
            let id = id.clone();
            Box::pin(async move { owned::deliveries(c, owner, &id, window).await })
        })
        .await
    }

    async fn claim_deliveries(
        &self,
        now: Timestamp,
        lease_until: Timestamp,
        limit: u32,
    ) -> Result<Vec<DueDelivery>, StoreError> {
        self.run("claim webhook deliveries", |c| {
            Box::pin(async move { claims::claim(c, now, lease_until, limit).await })
        })
        .await
    }

    async fn record_attempt(
        &self,
        id: &DeliveryId,
        attempt: &AttemptRecord,
    ) -> Result<(), StoreError> {
        self.run("record a delivery attempt", |c| {
            let (id, attempt) = (id.clone(), attempt.clone());
            Box::pin(async move { claims::record(c, &id, &attempt).await })
        })
        .await
    }
}
