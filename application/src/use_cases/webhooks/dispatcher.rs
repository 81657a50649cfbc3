//! The webhook dispatcher: claims due deliveries and makes one attempt at
//! each, recording its outcome and when the next attempt goes. The server
//! runs attempts side by side, a bounded number at a time, so a slow
//! receiver delays only its own deliveries.

use crate::ports::{
    AddressRefusal, AttemptRecord, Clock, DueDelivery, OutgoingPost, PostOutcome, StoreError,
    WebhookRepository, WebhookTransport,
};
use chrono::Duration;
use domain::time::format_api;
use domain::webhook::{
    FORBIDDEN_ADDRESS_MESSAGE, UNRESOLVED_HOST_MESSAGE, next_attempt_time, signature_header,
};
use domain::{DeliveryStatus, TargetUrl};
use std::sync::Arc;

/// How long a claimed delivery is hidden from other workers: longer than
/// an attempt may take (10 s), so only a dead worker's claims come back.
pub const DELIVERY_LEASE: Duration = Duration::seconds(60);

/// Attempts webhook deliveries.
#[derive(Clone)]
pub struct WebhookDispatcher {
    pub(in crate::use_cases) webhooks: Arc<dyn WebhookRepository>,
    pub(in crate::use_cases) transport: Arc<dyn WebhookTransport>,
    pub(in crate::use_cases) clock: Arc<dyn Clock>,
}

impl WebhookDispatcher {
    /// Takes up to `limit` due deliveries for this worker.
    pub async fn claim(&self, limit: u32) -> Result<Vec<DueDelivery>, StoreError> {
        let now = self.clock.now();
        self.webhooks
            .claim_deliveries(now, now + DELIVERY_LEASE, limit)
            .await
    }

    /// Makes one attempt at a claimed delivery and records it; the
    /// delivery's status after it.
    pub async fn attempt(&self, delivery: DueDelivery) -> Result<DeliveryStatus, StoreError> {
        let attempts = delivery.attempts + 1;
        let outcome = match TargetUrl::parse(&delivery.target_url) {
            Ok(target) => {
                let body = delivery_body(&delivery);
                self.transport
                    .post(&OutgoingPost {
                        target,
                        event: delivery.event.event,
                        delivery: delivery.id.clone(),
                        signature: signature_header(&delivery.secret, body.as_bytes()),
                        body,
                    })
                    .await
            }
            Err(_) => PostOutcome::NoAnswer("The target URL is not valid.".into()),
        };
        let now = self.clock.now();
        let retry = || next_attempt_time(attempts, now, delivery.event.time);
        let (status, response_code, error, next) = match outcome {
            PostOutcome::Answered(code) if (200..300).contains(&code) => {
                (DeliveryStatus::Succeeded, Some(code), String::new(), None)
            }
            PostOutcome::Answered(code) => {
                let error = format!("The target answered with HTTP status {code}.");
                retry_or_fail(retry(), Some(code), error)
            }
            PostOutcome::NoAnswer(reason) => retry_or_fail(retry(), None, one_line(&reason)),
            PostOutcome::Refused(refusal) => {
                let message = match refusal {
                    AddressRefusal::Forbidden => FORBIDDEN_ADDRESS_MESSAGE,
                    AddressRefusal::Unresolved => UNRESOLVED_HOST_MESSAGE,
                };
                (DeliveryStatus::Failed, None, message.to_owned(), None)
            }
        };
        let record = AttemptRecord {
            status,
            attempts,
            response_code,
            error,
            attempt_time: now,
            next_attempt_time: next,
        };
        self.webhooks.record_attempt(&delivery.id, &record).await?;
        tracing::info!(
            delivery = %delivery.id,
            event = delivery.event.event.code(),
            attempts,
            status = status.code(),
            response_code,
            "webhook attempt"
        );
        Ok(status)
    }
}

fn retry_or_fail(
    next: Option<domain::Timestamp>,
    code: Option<u16>,
    error: String,
) -> (
    DeliveryStatus,
    Option<u16>,
    String,
    Option<domain::Timestamp>,
) {
    match next {
        Some(next) => (DeliveryStatus::Pending, code, error, Some(next)),
        None => (DeliveryStatus::Failed, code, error, None),
    }
}

/// `text` on one line, at most 500 characters.
fn one_line(text: &str) -> String {
    text.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .chars()
        .take(500)
        .collect()
}

/// A delivery's body: `{"event", "delivery", "time", "data"}`, the same
/// bytes at every attempt.
pub fn delivery_body(delivery: &DueDelivery) -> String {
    format!(
        "{{\"event\":\"{}\",\"delivery\":\"{}\",\"time\":\"{}\",\"data\":{}}}",
        delivery.event.event.code(),
        delivery.id,
        format_api(delivery.event.time),
        delivery.event.data
    )
}

#[cfg(test)]
#[path = "dispatcher_tests.rs"]
mod tests;
