//! Webhooks: an owner's webhooks (create, read, delete, ping) and their
//! deliveries, and the dispatcher that attempts the deliveries
//! ([`WebhookDispatcher`]).

mod dispatcher;

pub use dispatcher::{DELIVERY_LEASE, WebhookDispatcher, delivery_body};

use super::Requester;
use super::secrets::Secrets;
use crate::ports::{
    AddressRefusal, Clock, DeliveryPage, EventData, EventRecord, NewWebhook, StoreError,
    WebhookPage, WebhookRecord, WebhookRepository, WebhookTransport, Window,
};
use domain::{
    Account, AuditAction, AuditTarget, DeliveryId, EventSet, TargetUrl, WebhookEvent, WebhookId,
};
use std::sync::Arc;
use thiserror::Error;

/// A webhook as its owner asks for it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WebhookRequest {
    /// Where its deliveries go.
    pub target: TargetUrl,
    /// The events it is sent.
    pub events: EventSet,
    /// The key of its signatures (16–200 characters); `None`: 40 random
    /// lowercase hex digits.
    pub secret: Option<String>,
}

/// A new webhook, with the secret shown this once.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CreatedWebhook {
    /// The webhook.
    pub webhook: WebhookRecord,
    /// Its secret.
    pub secret: String,
}

/// Why a webhook was not created.
#[derive(Debug, Error)]
pub enum CreateWebhookError {
    /// Its target's address is refused.
    #[error("target address refused")]
    Address(AddressRefusal),
    /// Infrastructure failure.
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// An account's webhooks.
#[derive(Clone)]
pub struct Webhooks {
    pub(super) webhooks: Arc<dyn WebhookRepository>,
    pub(super) transport: Arc<dyn WebhookTransport>,
    pub(super) event_data: Arc<dyn EventData>,
    pub(super) clock: Arc<dyn Clock>,
    pub(super) secrets: Secrets,
}

impl Webhooks {
    /// Creates a webhook once its target's address is allowed.
    pub async fn create(
        &self,
        by: Requester<'_>,
        request: WebhookRequest,
    ) -> Result<CreatedWebhook, CreateWebhookError> {
        let owner = by.account;
        self.transport
            .check(&request.target)
            .await
            .map_err(CreateWebhookError::Address)?;
        let secret = request
            .secret
            .unwrap_or_else(|| hex_digits(&self.secrets.random_bytes::<20>()));
        let webhook = NewWebhook {
            id: WebhookId::from_random_bytes(self.secrets.random_bytes()),
            owner: owner.id,
            target: request.target,
            events: request.events,
            secret,
            created_time: self.clock.now(),
        };
        let audit = by.note(
            webhook.created_time,
            AuditAction::WebhookCreate,
            AuditTarget::webhook(&webhook.id),
        );
        self.webhooks.create_webhook(&webhook, &audit).await?;
        tracing::info!(webhook = %webhook.id, "webhook created");
        let record = self
            .get(owner, &webhook.id)
            .await?
            .ok_or_else(|| StoreError::message("a webhook vanished as it was written"))?;
        Ok(CreatedWebhook {
            webhook: record,
            secret: webhook.secret,
        })
    }

    /// A page of the account's webhooks, newest first.
    pub async fn list(&self, owner: &Account, window: Window) -> Result<WebhookPage, StoreError> {
        self.webhooks.list_webhooks(owner.id, window).await
    }

    /// One webhook of the account.
    pub async fn get(
        &self,
        owner: &Account,
        id: &WebhookId,
    ) -> Result<Option<WebhookRecord>, StoreError> {
        self.webhooks.find_webhook(owner.id, id).await
    }

    /// Deletes a webhook and its deliveries; whether the account had it.
    pub async fn delete(&self, by: Requester<'_>, id: &WebhookId) -> Result<bool, StoreError> {
        let audit = by.note(
            self.clock.now(),
            AuditAction::WebhookDelete,
            AuditTarget::webhook(id),
        );
        let deleted = self
            .webhooks
            .delete_webhook(by.account.id, id, &audit)
            .await?;
        if deleted {
            tracing::info!(webhook = %id, "webhook deleted");
        }
        Ok(deleted)
    }

    /// Queues a `ping` for this webhook alone; its delivery's id, `None`
    /// when the account has no such webhook.
    pub async fn ping(
        &self,
        owner: &Account,
        id: &WebhookId,
    ) -> Result<Option<DeliveryId>, StoreError> {
        let Some(webhook) = self.get(owner, id).await? else {
            return Ok(None);
        };
        let delivery = DeliveryId::from_random_bytes(self.secrets.random_bytes());
        let event = EventRecord {
            event: WebhookEvent::Ping,
            time: self.clock.now(),
            data: self.event_data.webhook(&webhook),
        };
        let queued = self
            .webhooks
            .queue_ping(owner.id, id, &delivery, &event)
            .await?;
        Ok(queued.then_some(delivery))
    }

    /// A page of a webhook's deliveries, newest first; `None` when the
    /// account has no such webhook.
    pub async fn deliveries(
        &self,
        owner: &Account,
        id: &WebhookId,
        window: Window,
    ) -> Result<Option<DeliveryPage>, StoreError> {
        self.webhooks.list_deliveries(owner.id, id, window).await
    }
}

/// `bytes` as lowercase hex digits.
fn hex_digits(bytes: &[u8]) -> String {
    bytes.iter().map(|byte| format!("{byte:02x}")).collect()
}

#[cfg(test)]
mod tests;
