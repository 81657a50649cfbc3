//! Webhooks and deliveries (being written).

use crate::store::PgStore;
use application::StoreError;
use application::ports::{
    AttemptRecord, DeliveryPage, DueDelivery, EventRecord, NewWebhook, WebhookPage, WebhookRecord,
    WebhookRepository, Window,
};
use async_trait::async_trait;
use domain::{AccountId, DeliveryId, Timestamp, WebhookId};

fn pending() -> StoreError {
    StoreError::message("webhooks are not stored yet")
}

#[async_trait]
impl WebhookRepository for PgStore {
    async fn create_webhook(&self, _webhook: &NewWebhook) -> Result<(), StoreError> {
        Err(pending())
    }
    async fn list_webhooks(
        &self,
        _owner: AccountId,
        _window: Window,
    ) -> Result<WebhookPage, StoreError> {
        Err(pending())
    }
    async fn find_webhook(
        &self,
        _owner: AccountId,
        _id: &WebhookId,
    ) -> Result<Option<WebhookRecord>, StoreError> {
        Err(pending())
    }
    async fn delete_webhook(&self, _owner: AccountId, _id: &WebhookId) -> Result<bool, StoreError> {
        Err(pending())
    }
    async fn queue_ping(
        &self,
        _owner: AccountId,
        _id: &WebhookId,
        _delivery: &DeliveryId,
        _event: &EventRecord,
    ) -> Result<bool, StoreError> {
        Err(pending())
    }
    async fn list_deliveries(
        &self,
        _owner: AccountId,
        _id: &WebhookId,
        _window: Window,
    ) -> Result<Option<DeliveryPage>, StoreError> {
        Err(pending())
    }
    async fn claim_deliveries(
        &self,
        _now: Timestamp,
        _lease_until: Timestamp,
        _limit: u32,
    ) -> Result<Vec<DueDelivery>, StoreError> {
        Ok(Vec::new())
    }
    async fn record_attempt(
        &self,
        _id: &DeliveryId,
        _attempt: &AttemptRecord,
    ) -> Result<(), StoreError> {
        Err(pending())
    }
}
