//! The outbox worker: delivers queued mail, retrying with backoff.
//!
//! Mail is queued in the transaction of the change that causes it, so a
//! crash can delay a mail but never lose it; delivery happens here, away from
//! the request, so a slow or dead mail server never slows a client down.

use super::DevMgr;
use crate::ports::{MailError, QueuedEmail, StoreError};
use chrono::Duration;

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

impl DevMgr {
    /// Delivers every mail that is due now, one at a time.
    pub async fn deliver_due_mail(&self) -> Result<Delivery, StoreError> {
        let mut report = Delivery::default();
        loop {
            let now = self.ports.clock.now();
            let lease_until = now + self.settings.mail.lease;
            let Some(queued) = self.ports.outbox.claim_due(now, lease_until).await? else {
                return Ok(report);
            };
            match self.ports.mailer.send(&queued.email).await {
                Ok(()) => {
                    tracing::info!(id = %queued.email.id, to = %queued.email.to, subject = %queued.email.subject, "e-mail delivered");
                    self.ports.outbox.remove(&queued.email.id).await?;
                    report.delivered += 1;
                }
                Err(MailError::Permanent(reason)) => {
                    self.drop_mail(&queued, &reason).await?;
                    report.dropped += 1;
                }
                Err(MailError::Transient(reason)) => {
                    let now = self.ports.clock.now();
                    if now - queued.queued_time >= self.settings.mail.give_up_after {
                        self.drop_mail(&queued, &reason).await?;
                        report.dropped += 1;
                        continue;
                    }
                    let attempts = queued.attempts.saturating_add(1);
                    let next = now + self.retry_delay(attempts);
                    self.ports
                        .outbox
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
    pub async fn deliver_mail_forever(&self) {
        let idle = self.settings.mail.idle_check;
        loop {
            let wait = match self.deliver_due_mail().await {
                Err(error) => {
                    tracing::error!(error = ?error, "cannot read the mail outbox");
                    idle
                }
                Ok(_) => match self.ports.outbox.next_due().await {
                    Ok(Some(due)) => (due - self.ports.clock.now()).clamp(Duration::zero(), idle),
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
                self.ports.outbox.wait_for_mail(wait).await;
            }
        }
    }

    /// The wait after the `attempts`-th failure: doubling from the first
    /// delay, capped.
    fn retry_delay(&self, attempts: u32) -> Duration {
        let retry = self.settings.mail;
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
        self.ports.outbox.remove(&queued.email.id).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mail::Email;
    use crate::use_cases::test_support::{Harness, now};
    use mockall::Sequence;
    use mockall::predicate::eq;

    fn queued(attempts: u32, queued_hours_ago: i64) -> QueuedEmail {
        QueuedEmail {
            email: Email {
                id: "m1".into(),
                to: "owner@example.com".into(),
                subject: "Hello".into(),
                text: "text".into(),
                html: "<p>html</p>".into(),
            },
            attempts,
            queued_time: now() - Duration::hours(queued_hours_ago),
        }
    }

    /// The outbox hands out `mail` once, then is empty.
    fn outbox_with(h: &mut Harness, mail: QueuedEmail) {
        let mut seq = Sequence::new();
        h.outbox
            .expect_claim_due()
            .with(eq(now()), eq(now() + Duration::minutes(2)))
            .times(1)
            .in_sequence(&mut seq)
            .returning(move |_, _| Ok(Some(mail.clone())));
        h.outbox
            .expect_claim_due()
            .times(1)
            .in_sequence(&mut seq)
            .returning(|_, _| Ok(None));
    }

    #[tokio::test]
    async fn a_delivered_mail_leaves_the_outbox() {
        let mut h = Harness::new();
        outbox_with(&mut h, queued(0, 0));
        h.mailer
            .expect_send()
            .withf(|mail| mail.id == "m1")
            .times(1)
            .returning(|_| Ok(()));
        h.outbox
            .expect_remove()
            .with(eq("m1"))
            .times(1)
            .returning(|_| Ok(()));
        let report = h.app().deliver_due_mail().await.unwrap();
        assert_eq!(report.delivered, 1);
    }

    #[tokio::test]
    async fn a_temporary_failure_is_retried_later_with_a_doubling_delay() {
        let mut h = Harness::new();
        outbox_with(&mut h, queued(2, 1));
        h.mailer
            .expect_send()
            .returning(|_| Err(MailError::Transient("connection refused".into())));
        h.outbox.expect_remove().never();
        h.outbox
            .expect_retry_at()
            .withf(|id, attempts, next, error| {
                id == "m1"
                    && *attempts == 3
                    && *next == now() + Duration::seconds(4)
                    && error == "connection refused"
            })
            .times(1)
            .returning(|_, _, _, _| Ok(()));
        let report = h.app().deliver_due_mail().await.unwrap();
        assert_eq!(report.retrying, 1);
    }

    #[tokio::test]
    async fn the_retry_delay_stops_growing_at_the_maximum() {
        let app = Harness::new().app();
        assert_eq!(app.retry_delay(1), Duration::seconds(1));
        assert_eq!(app.retry_delay(10), Duration::seconds(512));
        assert_eq!(app.retry_delay(11), Duration::minutes(10));
        assert_eq!(app.retry_delay(u32::MAX), Duration::minutes(10));
    }

    #[tokio::test]
    async fn a_permanent_failure_drops_the_mail() {
        let mut h = Harness::new();
        outbox_with(&mut h, queued(0, 0));
        h.mailer
            .expect_send()
            .returning(|_| Err(MailError::Permanent("550 no such user".into())));
        h.outbox.expect_retry_at().never();
        h.outbox.expect_remove().times(1).returning(|_| Ok(()));
        let report = h.app().deliver_due_mail().await.unwrap();
        assert_eq!(report.dropped, 1);
    }

    #[tokio::test]
    async fn a_mail_failing_past_the_give_up_age_is_dropped() {
        let mut h = Harness::new();
        outbox_with(&mut h, queued(40, 72));
        h.mailer
            .expect_send()
            .returning(|_| Err(MailError::Transient("timeout".into())));
        h.outbox.expect_retry_at().never();
        h.outbox.expect_remove().times(1).returning(|_| Ok(()));
        let report = h.app().deliver_due_mail().await.unwrap();
        assert_eq!(report.dropped, 1);
    }

    #[tokio::test]
    async fn an_unreadable_outbox_is_an_error() {
        let mut h = Harness::new();
        h.outbox
            .expect_claim_due()
            .returning(|_, _| Err(StoreError::message("locked")));
        h.mailer.expect_send().never();
        assert!(h.app().deliver_due_mail().await.is_err());
    }
}
