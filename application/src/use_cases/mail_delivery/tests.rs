//! Unit tests of [`super`], over mocked ports.

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
    let report = h.app().mail.deliver_due().await.unwrap();
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
    let report = h.app().mail.deliver_due().await.unwrap();
    assert_eq!(report.retrying, 1);
}

#[tokio::test]
async fn the_retry_delay_stops_growing_at_the_maximum() {
    let app = Harness::new().app();
    assert_eq!(app.mail.retry_delay(1), Duration::seconds(1));
    assert_eq!(app.mail.retry_delay(10), Duration::seconds(512));
    assert_eq!(app.mail.retry_delay(11), Duration::minutes(10));
    assert_eq!(app.mail.retry_delay(u32::MAX), Duration::minutes(10));
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
    let report = h.app().mail.deliver_due().await.unwrap();
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
    let report = h.app().mail.deliver_due().await.unwrap();
    assert_eq!(report.dropped, 1);
}

#[tokio::test]
async fn an_unreadable_outbox_is_an_error() {
    let mut h = Harness::new();
    h.outbox
        .expect_claim_due()
        .returning(|_, _| Err(StoreError::message("locked")));
    h.mailer.expect_send().never();
    assert!(h.app().mail.deliver_due().await.is_err());
}
