//! Unit tests of the webhook dispatcher: what each outcome of an attempt
//! records, and what is posted.

use super::*;
use crate::ports::EventRecord;
use crate::use_cases::test_support::{Harness, now};
use domain::{DeliveryId, WebhookEvent};

fn due(attempts: u32, event_age: Duration) -> DueDelivery {
    DueDelivery {
        id: DeliveryId::from_random_bytes([4; 16]),
        target_url: "https://hooks.example.com/devmgr".into(),
        secret: "0123456789abcdef".into(),
        event: EventRecord {
            event: WebhookEvent::AlertOpened,
            time: now() - event_age,
            data: "{\"id\":\"a\"}".into(),
        },
        attempts,
    }
}

/// Attempts `delivery` with the transport answering `outcome`; the record kept.
async fn attempt(delivery: DueDelivery, outcome: PostOutcome) -> AttemptRecord {
    let mut h = Harness::new();
    let posted = delivery.clone();
    h.transport
        .expect_post()
        .withf(move |post| {
            post.body == delivery_body(&posted)
                && post.signature == signature_header("0123456789abcdef", post.body.as_bytes())
                && post.delivery == posted.id
                && post.event == WebhookEvent::AlertOpened
                && post.target.as_str() == "https://hooks.example.com/devmgr"
        })
        .times(1)
        .return_once(move |_| outcome);
    let kept = std::sync::Arc::new(std::sync::Mutex::new(None));
    let keep = kept.clone();
    h.webhooks
        .expect_record_attempt()
        .times(1)
        .returning(move |_, record| {
            *keep.lock().unwrap() = Some(record.clone());
            Ok(())
        });
    h.app().webhook_dispatcher.attempt(delivery).await.unwrap();
    let record = kept.lock().unwrap().clone();
    record.expect("an attempt is recorded")
}

#[test]
fn the_body_holds_event_delivery_time_and_data_in_that_order() {
    let delivery = due(0, Duration::zero());
    assert_eq!(
        delivery_body(&delivery),
        format!(
            "{{\"event\":\"alert.opened\",\"delivery\":\"{}\",\"time\":\"2026-03-01T12:00:00\",\"data\":{{\"id\":\"a\"}}}}",
            delivery.id
        )
    );
}

#[tokio::test]
async fn a_2xx_answer_succeeds() {
    let record = attempt(due(0, Duration::zero()), PostOutcome::Answered(204)).await;
    assert_eq!(record.status, DeliveryStatus::Succeeded);
    assert_eq!(record.attempts, 1);
    assert_eq!(record.response_code, Some(204));
    assert_eq!(record.error, "");
    assert_eq!(record.next_attempt_time, None);
    assert_eq!(record.attempt_time, now());
}

#[tokio::test]
async fn a_failure_is_tried_again_after_a_doubling_wait() {
    let record = attempt(due(0, Duration::zero()), PostOutcome::Answered(302)).await;
    assert_eq!(record.status, DeliveryStatus::Pending);
    assert_eq!(record.response_code, Some(302));
    assert_eq!(record.error, "The target answered with HTTP status 302.");
    assert_eq!(record.next_attempt_time, Some(now() + Duration::seconds(1)));
    let record = attempt(
        due(3, Duration::minutes(1)),
        PostOutcome::NoAnswer("connection refused\nby peer".into()),
    )
    .await;
    assert_eq!(record.attempts, 4);
    assert_eq!(record.response_code, None);
    assert_eq!(record.error, "connection refused by peer");
    assert_eq!(record.next_attempt_time, Some(now() + Duration::seconds(8)));
}

#[tokio::test]
async fn a_failure_a_day_after_the_event_gives_up() {
    let record = attempt(
        due(30, Duration::hours(24) - Duration::seconds(10)),
        PostOutcome::Answered(500),
    )
    .await;
    assert_eq!(record.status, DeliveryStatus::Failed);
    assert_eq!(record.next_attempt_time, None);
}

#[tokio::test]
async fn a_refused_address_fails_at_once_with_the_rule() {
    let record = attempt(
        due(0, Duration::zero()),
        PostOutcome::Refused(AddressRefusal::Forbidden),
    )
    .await;
    assert_eq!(record.status, DeliveryStatus::Failed);
    assert_eq!(record.next_attempt_time, None);
    assert_eq!(record.error, FORBIDDEN_ADDRESS_MESSAGE);
}
