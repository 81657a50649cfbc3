//! An owner's webhooks: created and read back, listed newest first (also
//! within one second), pinged, their deliveries listed newest first, and
//! deleted with their deliveries; another account's are never read,
//! counted, pinged or deleted.

use crate::{
    Store, account, all, delivered_events, delivery_id, event, minutes, t0, webhook, webhook_id,
};
use application::ports::Window;
use domain::{DeliveryStatus, EventSet, WebhookEvent};

/// A webhook reads back as created, without its secret; the listing shows
/// the newest first, a page at a time, counting all.
pub async fn webhooks_are_listed_newest_first_a_page_at_a_time(store: impl Store) {
    let ann = account(&store, "ann").await;
    let jobs = [WebhookEvent::JobCompleted, WebhookEvent::JobHalted];
    for label in ["a", "b", "c"] {
        webhook(&store, ann.id, label, &jobs).await;
    }
    let found = store
        .find_webhook(ann.id, &webhook_id("a"))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(found.target_url, "https://hooks.example.com/a");
    assert_eq!(found.events, EventSet::new(jobs).unwrap());
    assert_eq!(found.created_time, t0());
    let page = store
        .list_webhooks(
            ann.id,
            Window {
                limit: 2,
                offset: 0,
            },
        )
        .await
        .unwrap();
    assert_eq!(page.count, 3);
    let ids: Vec<_> = page.webhooks.into_iter().map(|w| w.id).collect();
    assert_eq!(ids, [webhook_id("c"), webhook_id("b")]);
}

/// A ping goes to its webhook alone, whatever its events, with the id
/// given, due at once; deliveries are listed newest first.
pub async fn a_ping_is_queued_for_its_webhook_alone(store: impl Store) {
    let ann = account(&store, "ann").await;
    let hook = webhook(&store, ann.id, "h", &[WebhookEvent::JobHalted]).await;
    let other = webhook(&store, ann.id, "o", &[WebhookEvent::JobHalted]).await;
    let first = event(WebhookEvent::Ping, "first", t0());
    let second = event(WebhookEvent::Ping, "second", t0());
    assert!(
        store
            .queue_ping(ann.id, &hook, &delivery_id("p1"), &first)
            .await
            .unwrap()
    );
    assert!(
        store
            .queue_ping(ann.id, &hook, &delivery_id("p2"), &second)
            .await
            .unwrap()
    );
    assert_eq!(
        delivered_events(&store, ann.id, &other).await.unwrap(),
        Vec::<&str>::new()
    );

    let page = store
        .list_deliveries(ann.id, &hook, all())
        .await
        .unwrap()
        .unwrap();
    let ids: Vec<_> = page.deliveries.iter().map(|d| d.id.clone()).collect();
    assert_eq!(
        ids,
        [delivery_id("p2"), delivery_id("p1")],
        "same second: newest first"
    );
    let ping = &page.deliveries[1];
    assert_eq!(
        (ping.event, ping.status),
        (WebhookEvent::Ping, DeliveryStatus::Pending)
    );
    assert_eq!(
        (ping.attempts, ping.response_code, ping.error.as_str()),
        (0, None, "")
    );
    assert_eq!((ping.created_time, ping.last_attempt_time), (t0(), None));
    assert_eq!(ping.next_attempt_time, Some(t0()));
    let one = store
        .list_deliveries(
            ann.id,
            &hook,
            Window {
                limit: 1,
                offset: 1,
            },
        )
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        (one.count, one.deliveries[0].id.clone()),
        (2, delivery_id("p1"))
    );

    let claimed = store
        .claim_deliveries(t0(), t0() + minutes(1), 10)
        .await
        .unwrap();
    let data: Vec<_> = claimed.iter().map(|d| d.event.data.as_str()).collect();
    assert_eq!(data, ["{\"label\": \"first\"}", "{\"label\": \"second\"}"]);
    assert_eq!(claimed[0].target_url, "https://hooks.example.com/h");
    assert_eq!(claimed[0].secret, "secret-of-h-0123456789");
    assert_eq!(
        (claimed[0].event.event, claimed[0].event.time),
        (WebhookEvent::Ping, t0())
    );
}

/// Another account's webhooks are not listed, read, pinged or deleted, and
/// their deliveries are not listed.
pub async fn another_accounts_webhooks_are_untouchable(store: impl Store) {
    let ann = account(&store, "ann").await;
    let bob = account(&store, "bob").await;
    let hook = webhook(&store, ann.id, "h", &[WebhookEvent::AlertOpened]).await;
    let ping = event(WebhookEvent::Ping, "p", t0());
    assert_eq!(store.list_webhooks(bob.id, all()).await.unwrap().count, 0);
    assert_eq!(store.find_webhook(bob.id, &hook).await.unwrap(), None);
    assert!(
        !store
            .queue_ping(bob.id, &hook, &delivery_id("p"), &ping)
            .await
            .unwrap()
    );
    assert_eq!(
        store.list_deliveries(bob.id, &hook, all()).await.unwrap(),
        None
    );
    assert!(
        !store
            .delete_webhook(
                bob.id,
                &hook,
                &crate::noted(domain::AuditAction::WebhookDelete)
            )
            .await
            .unwrap()
    );
    assert!(store.find_webhook(ann.id, &hook).await.unwrap().is_some());
    assert_eq!(
        delivered_events(&store, ann.id, &hook).await.unwrap(),
        Vec::<&str>::new()
    );
    let unknown = webhook_id("unknown");
    assert!(
        !store
            .queue_ping(ann.id, &unknown, &delivery_id("q"), &ping)
            .await
            .unwrap()
    );
    assert_eq!(
        store
            .list_deliveries(ann.id, &unknown, all())
            .await
            .unwrap(),
        None
    );
}

/// A deleted webhook takes its deliveries along: none is claimed after, and
/// recording an attempt of one changes nothing.
pub async fn a_deleted_webhook_takes_its_deliveries_along(store: impl Store) {
    let ann = account(&store, "ann").await;
    let gone = webhook(&store, ann.id, "gone", &[WebhookEvent::AlertOpened]).await;
    let kept = webhook(&store, ann.id, "kept", &[WebhookEvent::AlertOpened]).await;
    let ping = event(WebhookEvent::Ping, "p", t0());
    assert!(
        store
            .queue_ping(ann.id, &gone, &delivery_id("g"), &ping)
            .await
            .unwrap()
    );
    assert!(
        store
            .queue_ping(ann.id, &kept, &delivery_id("k"), &ping)
            .await
            .unwrap()
    );
    assert!(
        store
            .delete_webhook(
                ann.id,
                &gone,
                &crate::noted(domain::AuditAction::WebhookDelete)
            )
            .await
            .unwrap()
    );
    assert!(
        !store
            .delete_webhook(
                ann.id,
                &gone,
                &crate::noted(domain::AuditAction::WebhookDelete)
            )
            .await
            .unwrap(),
        "once"
    );
    assert_eq!(
        store.list_deliveries(ann.id, &gone, all()).await.unwrap(),
        None
    );
    let claimed = store
        .claim_deliveries(t0(), t0() + minutes(1), 10)
        .await
        .unwrap();
    let ids: Vec<_> = claimed.into_iter().map(|d| d.id).collect();
    assert_eq!(ids, [delivery_id("k")]);
    let attempt = application::ports::AttemptRecord {
        status: DeliveryStatus::Succeeded,
        attempts: 1,
        response_code: Some(200),
        error: String::new(),
        attempt_time: t0(),
        next_attempt_time: None,
    };
    store
        .record_attempt(&delivery_id("g"), &attempt)
        .await
        .unwrap();
    assert_eq!(store.list_webhooks(ann.id, all()).await.unwrap().count, 1);
}
