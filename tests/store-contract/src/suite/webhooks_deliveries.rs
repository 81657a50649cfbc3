//! Deliveries for workers: claimed when due, earliest due first, hidden
//! under a lease until it expires, released by the attempt's record; a
//! settled job's event queued in the settling transaction.

use crate::{
    RACERS, Store, account, all, delivered_events, delivery_id, event, fleet_of, lapse, minutes,
    race, running_job, start_wave, t0, webhook,
};
use application::ports::{AttemptRecord, Settlement, SettlementNotices};
use chrono::Duration;
use domain::{DeliveryId, DeliveryStatus, Timestamp, WebhookEvent};
use std::collections::BTreeSet;

async fn claim(store: &impl Store, at: Timestamp, limit: u32) -> Vec<DeliveryId> {
    let lease = at + minutes(1);
    let claimed = store.claim_deliveries(at, lease, limit).await.unwrap();
    claimed.into_iter().map(|d| d.id).collect()
}

/// Deliveries are claimed earliest due first, at most `limit` at a time;
/// one not yet due waits; a claimed one is hidden until its lease expires,
/// then claimable again.
pub async fn deliveries_are_claimed_in_order_under_a_lease(store: impl Store) {
    let ann = account(&store, "ann").await;
    let hook = webhook(&store, ann.id, "h", &[WebhookEvent::JobHalted]).await;
    for (label, at) in [("late", 20), ("early", 0), ("middle", 10), ("future", 600)] {
        let ping = event(WebhookEvent::Ping, label, t0() + Duration::seconds(at));
        assert!(
            store
                .queue_ping(ann.id, &hook, &delivery_id(label), &ping)
                .await
                .unwrap()
        );
    }
    let now = t0() + minutes(1);
    assert_eq!(
        claim(&store, now, 2).await,
        [delivery_id("early"), delivery_id("middle")]
    );
    assert_eq!(
        claim(&store, now, 10).await,
        [delivery_id("late")],
        "the rest, not the future"
    );
    assert!(
        claim(&store, now + Duration::seconds(59), 10)
            .await
            .is_empty(),
        "leased"
    );
    let expired = now + minutes(1);
    assert_eq!(
        claim(&store, expired, 10).await,
        [
            delivery_id("early"),
            delivery_id("middle"),
            delivery_id("late")
        ]
    );
    let due = t0() + minutes(10);
    assert_eq!(
        claim(&store, due, 10).await,
        [
            delivery_id("early"),
            delivery_id("middle"),
            delivery_id("late"),
            delivery_id("future"),
        ],
        "due now, the leases expired"
    );
}

/// A recorded attempt releases its delivery: a pending one is due again at
/// its next time, a finished one never; the listing shows the record.
pub async fn an_attempt_is_recorded_and_releases_the_delivery(store: impl Store) {
    let ann = account(&store, "ann").await;
    let hook = webhook(&store, ann.id, "h", &[WebhookEvent::JobHalted]).await;
    for label in ["retry", "done"] {
        let ping = event(WebhookEvent::Ping, label, t0());
        assert!(
            store
                .queue_ping(ann.id, &hook, &delivery_id(label), &ping)
                .await
                .unwrap()
        );
    }
    assert_eq!(claim(&store, t0(), 10).await.len(), 2);
    let at = t0() + Duration::seconds(5);
    let retry = AttemptRecord {
        status: DeliveryStatus::Pending,
        attempts: 1,
        response_code: Some(503),
        error: "HTTP 503".into(),
        attempt_time: at,
        next_attempt_time: Some(at + Duration::seconds(30)),
    };
    store
        .record_attempt(&delivery_id("retry"), &retry)
        .await
        .unwrap();
    let done = AttemptRecord {
        status: DeliveryStatus::Succeeded,
        attempts: 1,
        response_code: Some(204),
        error: String::new(),
        attempt_time: at,
        next_attempt_time: None,
    };
    store
        .record_attempt(&delivery_id("done"), &done)
        .await
        .unwrap();

    assert!(
        claim(&store, at + Duration::seconds(29), 10)
            .await
            .is_empty()
    );
    let again = at + Duration::seconds(30);
    let claimed = store
        .claim_deliveries(again, again + minutes(1), 10)
        .await
        .unwrap();
    assert_eq!(claimed.len(), 1);
    assert_eq!(
        (claimed[0].id.clone(), claimed[0].attempts),
        (delivery_id("retry"), 1)
    );

    let page = store
        .list_deliveries(ann.id, &hook, all())
        .await
        .unwrap()
        .unwrap();
    let shown: Vec<_> = page
        .deliveries
        .iter()
        .map(|d| {
            (
                d.status,
                d.attempts,
                d.response_code,
                d.error.as_str(),
                d.last_attempt_time,
                d.next_attempt_time,
            )
        })
        .collect();
    assert_eq!(
        shown,
        [
            (DeliveryStatus::Succeeded, 1, Some(204), "", Some(at), None),
            (
                DeliveryStatus::Pending,
                1,
                Some(503),
                "HTTP 503",
                Some(at),
                Some(again)
            ),
        ]
    );
}

/// Workers claiming at once take each delivery once.
pub async fn racing_workers_claim_each_delivery_once(store: impl Store) {
    let ann = account(&store, "ann").await;
    let hook = webhook(&store, ann.id, "h", &[WebhookEvent::JobHalted]).await;
    for n in 0..40 {
        let label = format!("d{n}");
        let ping = event(WebhookEvent::Ping, &label, t0());
        assert!(
            store
                .queue_ping(ann.id, &hook, &delivery_id(&label), &ping)
                .await
                .unwrap()
        );
    }
    let claims = race(RACERS, |_| {
        let store = store.clone();
        async move { claim(&store, t0(), 3).await }
    })
    .await;
    let all_claimed: Vec<_> = claims.into_iter().flatten().collect();
    let distinct: BTreeSet<_> = all_claimed
        .iter()
        .map(|id| id.as_str().to_owned())
        .collect();
    assert_eq!(distinct.len(), all_claimed.len(), "each once");
    assert_eq!(all_claimed.len(), 40);
}

/// A settlement carrying its job's event queues a delivery to each of the
/// owner's webhooks subscribed to it when it settles, and none when the
/// settlement does not take effect.
pub async fn a_settled_jobs_event_is_queued_with_its_settlement(store: impl Store) {
    let ann = account(&store, "ann").await;
    let bob = account(&store, "bob").await;
    fleet_of(&store, ann.id, 1, 2).await;
    let halted = webhook(&store, ann.id, "halted", &[WebhookEvent::JobHalted]).await;
    let completed = webhook(&store, ann.id, "completed", &[WebhookEvent::JobCompleted]).await;
    let bobs = webhook(&store, bob.id, "bobs", &[WebhookEvent::JobHalted]).await;
    let job = running_job(&store, ann.id, "j", None).await;
    assert!(start_wave(&store, &job, 1, "w", 2, t0()).await);
    let at = t0() + minutes(1);
    let the_event = event(WebhookEvent::JobHalted, "j", at);
    let wrong_wave = store
        .settle_wave(
            &job,
            2,
            Settlement::Halt,
            at,
            at - lapse(),
            &SettlementNotices {
                event: the_event.clone().into(),
                audit: None,
            },
        )
        .await
        .unwrap();
    assert!(!wrong_wave);
    assert_eq!(
        delivered_events(&store, ann.id, &halted).await.unwrap(),
        Vec::<&str>::new()
    );
    let settled = store
        .settle_wave(
            &job,
            1,
            Settlement::Halt,
            at,
            at - lapse(),
            &SettlementNotices {
                event: the_event.clone().into(),
                audit: None,
            },
        )
        .await
        .unwrap();
    assert!(settled);
    let again = store
        .settle_wave(
            &job,
            1,
            Settlement::Halt,
            at,
            at - lapse(),
            &SettlementNotices {
                event: the_event.clone().into(),
                audit: None,
            },
        )
        .await
        .unwrap();
    assert!(!again);
    assert_eq!(
        delivered_events(&store, ann.id, &halted).await.unwrap(),
        ["job.halted"]
    );
    assert_eq!(
        delivered_events(&store, ann.id, &completed).await.unwrap(),
        Vec::<&str>::new()
    );
    assert_eq!(
        delivered_events(&store, bob.id, &bobs).await.unwrap(),
        Vec::<&str>::new()
    );
    let claimed = store
        .claim_deliveries(at, at + minutes(1), 10)
        .await
        .unwrap();
    assert_eq!(claimed.len(), 1);
    assert_eq!(claimed[0].event, the_event);
}
