//! The outbox worker: delivers queued mail, retrying with backoff.
//!
//! Mail is queued in the transaction of the change that causes it, so a
//! crash can delay a mail but never lose it; delivery happens here, away from
//! the request, so a slow or dead mail server never slows a client down.

use super::MailRetry;
use crate::ports::{Clock, MailError, Mailer, Outbox, QueuedEmail, StoreError};
use chrono::Duration;
use std::sync::Arc;

/// What one pass over the outbox did.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Delivery {
    /// Mails the mail server accepted.
    pub delivered: usize,
    /// Mails that failed for now and will be tried again.
    pub retrying: usize,
    /// Mails that can never be delivered, dropped (and logged).
    pub dropped: usize,
}

/// The outbox worker.
#[derive(Clone)]
pub struct MailDelivery {
    pub(super) outbox: Arc<dyn Outbox>,
    pub(super) mailer: Arc<dyn Mailer>,
    pub(super) clock: Arc<dyn Clock>,
    pub(super) retry: MailRetry,
}

impl MailDelivery {
    /// Delivers every mail that is due now, one at a time.
    pub async fn deliver_due(&self) -> Result<Delivery, StoreError> {
        let mut report = Delivery::default();
        loop {
            let now = self.clock.now();
            let lease_until = now + self.retry.lease;
            let Some(queued) = self.outbox.claim_due(now, lease_until).await? else {
                return Ok(report);
            };
            match self.mailer.send(&queued.email).await {
                Ok(()) => {
                    tracing::info!(id = %queued.email.id, to = %queued.email.to, subject = %queued.email.subject, "e-mail delivered");
                    self.outbox.remove(&queued.email.id).await?;
                    report.delivered += 1;
                }
                Err(MailError::Permanent(reason)) => {
                    self.drop_mail(&queued, &reason).await?;
                    report.dropped += 1;
                }
                Err(MailError::Transient(reason)) => {
                    let now = self.clock.now();
                    if now - queued.queued_time >= self.retry.give_up_after {
                        self.drop_mail(&queued, &reason).await?;
                        report.dropped += 1;
                        continue;
                    }
                    let attempts = queued.attempts.saturating_add(1);
                    let next = now + self.retry_delay(attempts);
                    self.outbox
                        .retry_at(&queued.email.id, attempts, next, &reason)
                        .await?;
                    tracing::warn!(id = %queued.email.id, to = %queued.email.to, attempts, %next, %reason, "e-mail not delivered yet; will retry");
                    report.retrying += 1;
                }
            }
        }
    }

    /// The outbox worker of `serve`: delivers due mail, then sleeps until the
    /// next mail falls due, this process queues one, or `idle_check` passes
    /// (which finds mail queued by other processes). Never returns.
    pub async fn deliver_forever(&self) {
        let idle = self.retry.idle_check;
        loop {
            let wait = match self.deliver_due().await {
                Err(error) => {
                    tracing::error!(error = ?error, "cannot read the mail outbox");
                    idle
                }
                Ok(_) => match self.outbox.next_due().await {
                    Ok(Some(due)) => (due - self.clock.now()).clamp(Duration::zero(), idle),
                    Ok(None) => idle,
                    Err(error) => {
                        tracing::error!(error = ?error, "cannot read the mail outbox");
                        idle
                    }
                },
            };
            if let Ok(wait) = wait.to_std()
                && !wait.is_zero()
            {
                self.outbox.wait_for_mail(wait).await;
            }
        }
    }

    /// The wait after the `attempts`-th failure: doubling from the first
    /// delay, capped.
    fn retry_delay(&self, attempts: u32) -> Duration {
        let retry = self.retry;
        let doublings = attempts.saturating_sub(1).min(30);
        retry
            .first_delay
            .checked_mul(1 << doublings)
            .map_or(retry.max_delay, |delay| delay.min(retry.max_delay))
    }

    async fn drop_mail(&self, queued: &QueuedEmail, reason: &str) -> Result<(), StoreError> {
        tracing::error!(
            id = %queued.email.id,
            to = %queued.email.to,
            subject = %queued.email.subject,
            attempts = queued.attempts + 1,
            %reason,
            "e-mail cannot be delivered; dropped"
        );
        self.outbox.remove(&queued.email.id).await
    }
}

#[cfg(test)]
mod tests;
