//! Recording a verdict: alerts open and resolve once whoever applies the
//! verdict and however often, and what took effect is told once: a mail in
//! the outbox and a delivery to each of the owner's webhooks subscribed to
//! its event; nothing for a deleted monitor or while snoozed.

use crate::{
    RACERS, Store, account, alert_id, all, apply, delivered_events, device_monitor, fleet_of,
    minutes, open_alert, opening, outbox_subjects, race, resolving, t0, transition, verdict,
    webhook,
};
use application::ports::{AlertFilter, MonitorVerdict};
use domain::{AlertState, WebhookEvent};

/// An opening applied twice opens one alert, told once; so does an opening
/// of another alert for the same device while the first is open. Once it
/// resolved, the device can have an alert again.
pub async fn an_alert_opens_once_per_device_while_open(store: impl Store) {
    let ann = account(&store, "ann").await;
    let fleet = fleet_of(&store, ann.id, 1, 1).await;
    let monitor = device_monitor(&store, ann.id, "m").await;
    let hook = webhook(&store, ann.id, "h", &[WebhookEvent::AlertOpened]).await;
    let first = open_alert(&monitor, "first", Some(&fleet[0]), t0());
    let twice = opening(&monitor, ann.id, [first.clone()], t0());
    assert_eq!(
        apply(&store, &twice, t0()).await,
        (vec![alert_id("first")], vec![])
    );
    assert_eq!(apply(&store, &twice, t0()).await, (vec![], vec![]));
    let other = open_alert(&monitor, "other", Some(&fleet[0]), t0());
    let again = opening(&monitor, ann.id, [other.clone()], t0());
    assert_eq!(apply(&store, &again, t0()).await, (vec![], vec![]));
    assert_eq!(
        store.find_alert(ann.id, &alert_id("other")).await.unwrap(),
        None
    );
    assert_eq!(
        outbox_subjects(&store, t0()).await,
        ["Alert opened: reason first"]
    );
    assert_eq!(
        delivered_events(&store, ann.id, &hook).await.unwrap(),
        ["alert.opened"]
    );

    let at = t0() + minutes(5);
    apply(&store, &resolving(&monitor, ann.id, &first, at), at).await;
    assert_eq!(
        apply(&store, &again, at).await,
        (vec![alert_id("other")], vec![])
    );
}

/// A resolution applied twice resolves once and is told once; one of an
/// alert never opened resolves nothing.
pub async fn an_alert_resolves_once(store: impl Store) {
    let ann = account(&store, "ann").await;
    let fleet = fleet_of(&store, ann.id, 1, 1).await;
    let monitor = device_monitor(&store, ann.id, "m").await;
    let hook = webhook(&store, ann.id, "h", &[WebhookEvent::AlertResolved]).await;
    let alert = open_alert(&monitor, "a", Some(&fleet[0]), t0());
    apply(
        &store,
        &opening(&monitor, ann.id, [alert.clone()], t0()),
        t0(),
    )
    .await;
    outbox_subjects(&store, t0()).await;
    let at = t0() + minutes(5);
    let resolution = resolving(&monitor, ann.id, &alert, at);
    assert_eq!(
        apply(&store, &resolution, at).await,
        (vec![], vec![alert_id("a")])
    );
    assert_eq!(apply(&store, &resolution, at).await, (vec![], vec![]));
    let never = open_alert(&monitor, "never", Some(&fleet[0]), t0());
    let nothing = resolving(&monitor, ann.id, &never, at);
    assert_eq!(apply(&store, &nothing, at).await, (vec![], vec![]));

    let read = store
        .find_alert(ann.id, &alert_id("a"))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        (read.state, read.resolved_time),
        (AlertState::Resolved, Some(at))
    );
    assert_eq!(
        outbox_subjects(&store, at).await,
        ["Alert resolved: reason a"]
    );
    assert_eq!(
        delivered_events(&store, ann.id, &hook).await.unwrap(),
        ["alert.resolved"]
    );
}

/// A verdict for a deleted monitor, or given with another owner, changes
/// nothing and tells nothing.
pub async fn a_verdict_for_a_deleted_or_foreign_monitor_does_nothing(store: impl Store) {
    let ann = account(&store, "ann").await;
    let bob = account(&store, "bob").await;
    let fleet = fleet_of(&store, ann.id, 1, 1).await;
    let monitor = device_monitor(&store, ann.id, "m").await;
    let bobs_hook = webhook(&store, bob.id, "b", &[WebhookEvent::AlertOpened]).await;
    let alert = open_alert(&monitor, "a", Some(&fleet[0]), t0());
    let foreign = opening(&monitor, bob.id, [alert.clone()], t0());
    assert_eq!(apply(&store, &foreign, t0()).await, (vec![], vec![]));
    assert!(
        store
            .delete_monitor(
                ann.id,
                &monitor,
                &crate::noted(domain::AuditAction::MonitorDelete)
            )
            .await
            .unwrap()
    );
    let stale = opening(&monitor, ann.id, [alert], t0());
    assert_eq!(apply(&store, &stale, t0()).await, (vec![], vec![]));

    for owner in [ann.id, bob.id] {
        let listed = store
            .list_alerts(owner, &AlertFilter::default(), all())
            .await;
        assert_eq!(listed.unwrap().count, 0);
    }
    assert!(outbox_subjects(&store, t0()).await.is_empty());
    assert_eq!(
        delivered_events(&store, bob.id, &bobs_hook).await.unwrap(),
        Vec::<&str>::new()
    );
}

/// A transition without a notice (the monitor snoozed) takes effect but
/// queues no mail and no delivery.
pub async fn a_snoozed_transition_tells_nothing(store: impl Store) {
    let ann = account(&store, "ann").await;
    let fleet = fleet_of(&store, ann.id, 1, 1).await;
    let monitor = device_monitor(&store, ann.id, "m").await;
    let hook = webhook(&store, ann.id, "h", &[WebhookEvent::AlertOpened]).await;
    let alert = open_alert(&monitor, "a", Some(&fleet[0]), t0());
    let snoozed = MonitorVerdict {
        opened: vec![transition(alert, "opened", t0(), false)],
        ..verdict(&monitor, ann.id)
    };
    assert_eq!(
        apply(&store, &snoozed, t0()).await,
        (vec![alert_id("a")], vec![])
    );
    assert!(outbox_subjects(&store, t0()).await.is_empty());
    assert_eq!(
        delivered_events(&store, ann.id, &hook).await.unwrap(),
        Vec::<&str>::new()
    );
}

/// An alert's event goes to each of its owner's webhooks subscribed to it,
/// not to the others, nor to another account's.
pub async fn events_go_to_the_owners_subscribed_webhooks_only(store: impl Store) {
    let ann = account(&store, "ann").await;
    let bob = account(&store, "bob").await;
    let fleet = fleet_of(&store, ann.id, 1, 1).await;
    let monitor = device_monitor(&store, ann.id, "m").await;
    let opened = webhook(&store, ann.id, "opened", &[WebhookEvent::AlertOpened]).await;
    let jobs = webhook(&store, ann.id, "jobs", &[WebhookEvent::JobCompleted]).await;
    let both = [WebhookEvent::AlertOpened, WebhookEvent::AlertResolved];
    let both = webhook(&store, ann.id, "both", &both).await;
    let bobs = webhook(&store, bob.id, "bobs", &[WebhookEvent::AlertOpened]).await;
    let alert = open_alert(&monitor, "a", Some(&fleet[0]), t0());
    apply(
        &store,
        &opening(&monitor, ann.id, [alert.clone()], t0()),
        t0(),
    )
    .await;
    let at = t0() + minutes(5);
    apply(&store, &resolving(&monitor, ann.id, &alert, at), at).await;

    let events = |hook| delivered_events(&store, ann.id, hook);
    assert_eq!(events(&opened).await.unwrap(), ["alert.opened"]);
    assert_eq!(events(&jobs).await.unwrap(), Vec::<&str>::new());
    assert_eq!(
        events(&both).await.unwrap(),
        ["alert.resolved", "alert.opened"]
    );
    assert_eq!(
        delivered_events(&store, bob.id, &bobs).await.unwrap(),
        Vec::<&str>::new()
    );
    let page = store
        .list_deliveries(ann.id, &both, all())
        .await
        .unwrap()
        .unwrap();
    let resolved = &page.deliveries[0];
    assert_eq!(
        (resolved.created_time, resolved.next_attempt_time),
        (at, Some(at))
    );
    assert_eq!((resolved.attempts, resolved.response_code), (0, None));
    assert_eq!(resolved.error, "");
}

/// Instances applying the same opening at once open one alert, queue one
/// mail and one delivery per subscribed webhook.
pub async fn racing_verdicts_open_and_tell_once(store: impl Store) {
    let ann = account(&store, "ann").await;
    let fleet = fleet_of(&store, ann.id, 1, 1).await;
    let monitor = device_monitor(&store, ann.id, "m").await;
    let first = webhook(&store, ann.id, "first", &[WebhookEvent::AlertOpened]).await;
    let second = webhook(&store, ann.id, "second", &[WebhookEvent::AlertOpened]).await;
    let alert = open_alert(&monitor, "a", Some(&fleet[0]), t0());
    let the_verdict = opening(&monitor, ann.id, [alert], t0());
    let outcomes = race(RACERS, |_| {
        let (store, the_verdict) = (store.clone(), the_verdict.clone());
        async move {
            store
                .apply_verdict(&the_verdict, t0(), minutes(1))
                .await
                .unwrap()
        }
    })
    .await;
    let opened: usize = outcomes.iter().map(|applied| applied.opened.len()).sum();
    assert_eq!(opened, 1);
    let listed = store
        .list_alerts(ann.id, &AlertFilter::default(), all())
        .await;
    assert_eq!(listed.unwrap().count, 1);
    assert_eq!(
        outbox_subjects(&store, t0()).await,
        ["Alert opened: reason a"]
    );
    for hook in [first, second] {
        assert_eq!(
            delivered_events(&store, ann.id, &hook).await.unwrap(),
            ["alert.opened"]
        );
    }
}
