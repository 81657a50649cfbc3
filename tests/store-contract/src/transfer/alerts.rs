//! The alerting rows of a copy: monitors (a snooze, a fleet ratio read
//! back exactly, since when a share has been above it), open and resolved
//! alerts, mail windows and a digest line, a webhook with its secret and
//! its deliveries (one attempted), shown alike by the target, which goes on
//! from them.

use crate::{
    Store, alert_id, all, apply, event, fleet_kind, minutes, monitor_id, new_monitor, open_alert,
    opening, resolving, t0, verdict, webhook,
};
use application::ports::{AlertFilter, AttemptRecord, MonitorVerdict, Table};
use domain::{AccountId, DeliveryStatus, MonitorKind, Selector, Serial, WebhookEvent};

/// The rows [`fill`] adds, by table (ann's three mails go to the outbox
/// besides, and ten of bob's).
pub(super) const COPIED: [(Table, u64); 6] = [
    (Table::Monitors, 4),
    (Table::Alerts, 13),
    (Table::AlertMailWindows, 2),
    (Table::AlertDigestLines, 1),
    (Table::Webhooks, 1),
    (Table::WebhookDeliveries, 3),
];

/// Mails [`fill`] queues.
pub(super) const MAILS: u64 = 13;

/// Fills `source`: ann's device monitor (snoozed) with an alert of `pi`
/// opened and resolved, her fleet monitor with an open alert, and her
/// webhook with the three deliveries they made, one attempted; bob's
/// monitor opening eleven alerts at once over `fleet` (ten mails, one
/// digest line), and his second monitor's share above its ratio.
pub(super) async fn fill(
    source: &impl Store,
    ann: AccountId,
    pi: &Serial,
    bob: AccountId,
    fleet: &[Serial],
) {
    let events = [WebhookEvent::AlertOpened, WebhookEvent::AlertResolved];
    let hook = webhook(source, ann, "ann-hook", &events).await;
    let device = new_monitor(ann, "ann-m", MonitorKind::DeviceOffline, Selector::All, 60);
    source
        .create_monitor(&device, &crate::noted(domain::AuditAction::MonitorCreate))
        .await
        .unwrap();
    let ratio = new_monitor(ann, "ann-f", fleet_kind(0.3), Selector::All, 60);
    source
        .create_monitor(&ratio, &crate::noted(domain::AuditAction::MonitorCreate))
        .await
        .unwrap();
    let snooze = Some(t0() + minutes(60));
    source
        .snooze_monitor(
            ann,
            &device.id,
            snooze,
            &crate::noted(domain::AuditAction::MonitorSnooze),
        )
        .await
        .unwrap();
    let alert = open_alert(&device.id, "ann-a", Some(pi), t0() + minutes(1));
    apply(
        source,
        &opening(&device.id, ann, [alert.clone()], t0() + minutes(1)),
        t0() + minutes(1),
    )
    .await;
    let fleet_alert = open_alert(&ratio.id, "ann-fa", None, t0() + minutes(2));
    apply(
        source,
        &opening(&ratio.id, ann, [fleet_alert], t0() + minutes(2)),
        t0() + minutes(2),
    )
    .await;
    let calm = MonitorVerdict {
        calm: vec![(alert_id("ann-fa"), Some(t0() + minutes(2)))],
        ..verdict(&ratio.id, ann)
    };
    apply(source, &calm, t0() + minutes(2)).await;
    apply(
        source,
        &resolving(&device.id, ann, &alert, t0() + minutes(3)),
        t0() + minutes(3),
    )
    .await;
    let claimed = source
        .claim_deliveries(t0() + minutes(3), t0() + minutes(4), 1)
        .await
        .unwrap();
    let attempt = AttemptRecord {
        status: DeliveryStatus::Pending,
        attempts: 1,
        response_code: Some(500),
        error: "HTTP 500".into(),
        attempt_time: t0() + minutes(3),
        next_attempt_time: Some(t0() + minutes(4)),
    };
    source
        .record_attempt(&claimed[0].id, &attempt)
        .await
        .unwrap();
    assert!(
        source
            .list_deliveries(ann, &hook, all())
            .await
            .unwrap()
            .is_some()
    );

    let bobs = new_monitor(bob, "bob-m", MonitorKind::DeviceOffline, Selector::All, 60);
    source
        .create_monitor(&bobs, &crate::noted(domain::AuditAction::MonitorCreate))
        .await
        .unwrap();
    let alerts: Vec<_> = fleet[..11]
        .iter()
        .enumerate()
        .map(|(k, serial)| open_alert(&bobs.id, &format!("bob-{k}"), Some(serial), t0()))
        .collect();
    let opened = apply(source, &opening(&bobs.id, bob, alerts, t0()), t0()).await;
    assert_eq!(opened.0.len(), 11);
    let shares = new_monitor(bob, "bob-f", fleet_kind(0.5), Selector::All, 600);
    source
        .create_monitor(&shares, &crate::noted(domain::AuditAction::MonitorCreate))
        .await
        .unwrap();
    let above = MonitorVerdict {
        above_since: Some(t0()),
        ..verdict(&shares.id, bob)
    };
    apply(source, &above, t0()).await;
}

/// The target shows the owners' monitors, alerts, webhooks and deliveries,
/// the engine's view, the digests and the deliveries due as the source
/// does; new monitors, alerts and deliveries follow the copied ones, and an
/// open alert still keeps another from opening for its device.
pub(super) async fn assert_same<S: Store>(
    source: &S,
    target: &S,
    owners: [AccountId; 2],
    pi: &Serial,
) {
    let everything = AlertFilter::default();
    for owner in owners {
        let monitors = source.list_monitors(owner, all()).await.unwrap();
        assert_eq!(target.list_monitors(owner, all()).await.unwrap(), monitors);
        let alerts = source.list_alerts(owner, &everything, all()).await.unwrap();
        assert_eq!(
            target.list_alerts(owner, &everything, all()).await.unwrap(),
            alerts
        );
        let webhooks = source.list_webhooks(owner, all()).await.unwrap();
        assert_eq!(target.list_webhooks(owner, all()).await.unwrap(), webhooks);
        for hook in &webhooks.webhooks {
            let deliveries = source
                .list_deliveries(owner, &hook.id, all())
                .await
                .unwrap();
            let copied = target
                .list_deliveries(owner, &hook.id, all())
                .await
                .unwrap();
            assert_eq!(copied, deliveries);
        }
    }
    let now = t0() + minutes(10);
    let online_after = now - minutes(1);
    let watches = source.watch_monitors(now, online_after).await.unwrap();
    assert_eq!(watches.len(), 4);
    assert_eq!(
        target.watch_monitors(now, online_after).await.unwrap(),
        watches
    );
    let digests = source.due_digests(now, minutes(1)).await.unwrap();
    assert_eq!(digests.len(), 1);
    assert_eq!(target.due_digests(now, minutes(1)).await.unwrap(), digests);
    let due = source
        .claim_deliveries(now, now + minutes(1), 10)
        .await
        .unwrap();
    assert_eq!(due.len(), 3);
    assert_eq!(
        target
            .claim_deliveries(now, now + minutes(1), 10)
            .await
            .unwrap(),
        due
    );

    let [ann, _] = owners;
    let newer = new_monitor(
        ann,
        "ann-new",
        MonitorKind::DeviceOffline,
        Selector::All,
        60,
    );
    target
        .create_monitor(&newer, &crate::noted(domain::AuditAction::MonitorCreate))
        .await
        .unwrap();
    let listed = target.list_monitors(ann, all()).await.unwrap();
    assert_eq!(listed.monitors[0].id, newer.id, "a new monitor comes first");
    let fleet = monitor_id("ann-f");
    let another = open_alert(&fleet, "ann-another", None, now);
    let refused = apply(target, &opening(&fleet, ann, [another], now), now).await;
    assert_eq!(refused, (vec![], vec![]), "the fleet alert is still open");
    let device = monitor_id("ann-m");
    let again = open_alert(&device, "ann-again", Some(pi), now);
    let opened = apply(target, &opening(&device, ann, [again], now), now).await;
    assert_eq!(opened.0, [alert_id("ann-again")], "pi's alert had resolved");
    let alerts = target.list_alerts(ann, &everything, all()).await.unwrap();
    assert_eq!(
        alerts.alerts[0].id,
        alert_id("ann-again"),
        "a new alert comes first"
    );
    let hook = &target.list_webhooks(ann, all()).await.unwrap().webhooks[0];
    let ping = event(WebhookEvent::Ping, "after", now);
    let id = crate::delivery_id("after");
    assert!(target.queue_ping(ann, &hook.id, &id, &ping).await.unwrap());
    let page = target
        .list_deliveries(ann, &hook.id, all())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(page.deliveries[0].id, id, "a new delivery comes first");
}
