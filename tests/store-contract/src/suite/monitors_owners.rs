//! An owner's monitors and alerts: created and read back, listed newest
//! first (also within one second), snoozed, deleted with their alerts, and
//! never read, counted or changed through another account.

use crate::{
    Store, account, alert_id, all, apply, device_monitor, fleet_kind, fleet_of, minutes,
    monitor_id, new_monitor, open_alert, opening, resolving, t0,
};
use application::ports::{AlertFilter, Window};
use domain::{AlertState, MonitorKind, Selector};

/// A monitor reads back as it was created (the fleet ratio exactly), and
/// the listing shows the newest first, a page at a time, counting all.
pub async fn monitors_are_listed_newest_first_a_page_at_a_time(store: impl Store) {
    let ann = account(&store, "ann").await;
    let fleet = new_monitor(ann.id, "fleet", fleet_kind(0.3), Selector::All, 60);
    store
        .create_monitor(&fleet, &crate::noted(domain::AuditAction::MonitorCreate))
        .await
        .unwrap();
    for label in ["b", "c", "d"] {
        device_monitor(&store, ann.id, label).await;
    }
    let found = store
        .find_monitor(ann.id, &fleet.id)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(found.kind, fleet_kind(0.3));
    assert_eq!(found.kind.ratio().unwrap().get(), 0.3);
    assert_eq!(
        (found.name.as_str(), found.selector_json.as_str()),
        ("monitor fleet", "{\"label\": \"fleet\"}")
    );
    assert_eq!((found.after.seconds(), found.snoozed_until), (60, None));
    assert_eq!(found.created_time, t0());

    let page = store
        .list_monitors(
            ann.id,
            Window {
                limit: 2,
                offset: 1,
            },
        )
        .await
        .unwrap();
    assert_eq!(page.count, 4);
    let ids: Vec<_> = page.monitors.iter().map(|m| m.id.clone()).collect();
    assert_eq!(
        ids,
        [monitor_id("c"), monitor_id("b")],
        "same second: creation order"
    );
    let last = store
        .list_monitors(
            ann.id,
            Window {
                limit: 2,
                offset: 3,
            },
        )
        .await
        .unwrap();
    assert_eq!(last.monitors.len(), 1);
    assert_eq!(last.monitors[0].kind, fleet_kind(0.3));
}

/// Another account's monitors are not listed, counted, read, snoozed or
/// deleted; its alerts are not listed or read.
pub async fn another_accounts_monitors_and_alerts_are_untouchable(store: impl Store) {
    let ann = account(&store, "ann").await;
    let bob = account(&store, "bob").await;
    let fleet = fleet_of(&store, ann.id, 1, 1).await;
    let id = device_monitor(&store, ann.id, "m").await;
    let alert = open_alert(&id, "a", Some(&fleet[0]), t0());
    apply(&store, &opening(&id, ann.id, [alert], t0()), t0()).await;

    assert_eq!(store.list_monitors(bob.id, all()).await.unwrap().count, 0);
    assert_eq!(store.find_monitor(bob.id, &id).await.unwrap(), None);
    let until = Some(t0() + minutes(5));
    assert_eq!(
        store
            .snooze_monitor(
                bob.id,
                &id,
                until,
                &crate::noted(domain::AuditAction::MonitorSnooze)
            )
            .await
            .unwrap(),
        None
    );
    assert!(
        !store
            .delete_monitor(
                bob.id,
                &id,
                &crate::noted(domain::AuditAction::MonitorDelete)
            )
            .await
            .unwrap()
    );
    let everything = AlertFilter::default();
    assert_eq!(
        store
            .list_alerts(bob.id, &everything, all())
            .await
            .unwrap()
            .count,
        0
    );
    assert_eq!(
        store.find_alert(bob.id, &alert_id("a")).await.unwrap(),
        None
    );
    let theirs = AlertFilter {
        monitor: Some(id.clone()),
        state: None,
    };
    assert_eq!(
        store
            .list_alerts(bob.id, &theirs, all())
            .await
            .unwrap()
            .count,
        0
    );

    let kept = store.find_monitor(ann.id, &id).await.unwrap().unwrap();
    assert_eq!(kept.snoozed_until, None);
    assert!(
        store
            .find_alert(ann.id, &alert_id("a"))
            .await
            .unwrap()
            .is_some()
    );
    assert_eq!(
        store
            .list_alerts(ann.id, &theirs, all())
            .await
            .unwrap()
            .count,
        1
    );
}

/// Snoozing sets and ends the time, returning the monitor after the change.
pub async fn a_snooze_is_set_and_ended(store: impl Store) {
    let ann = account(&store, "ann").await;
    let id = device_monitor(&store, ann.id, "m").await;
    let until = t0() + minutes(30);
    let snoozed = store
        .snooze_monitor(
            ann.id,
            &id,
            Some(until),
            &crate::noted(domain::AuditAction::MonitorSnooze),
        )
        .await
        .unwrap();
    assert_eq!(snoozed.unwrap().snoozed_until, Some(until));
    let found = store.find_monitor(ann.id, &id).await.unwrap().unwrap();
    assert_eq!(found.snoozed_until, Some(until));
    let woken = store
        .snooze_monitor(
            ann.id,
            &id,
            None,
            &crate::noted(domain::AuditAction::MonitorSnooze),
        )
        .await
        .unwrap();
    assert_eq!(woken.unwrap().snoozed_until, None);
    assert_eq!(
        store
            .snooze_monitor(
                ann.id,
                &monitor_id("none"),
                None,
                &crate::noted(domain::AuditAction::MonitorSnooze)
            )
            .await
            .unwrap(),
        None
    );
}

/// Alerts are listed newest first (in opening order within one second),
/// filtered by monitor and by state, and read one by one as stored.
pub async fn alerts_are_listed_newest_first_and_filtered(store: impl Store) {
    let ann = account(&store, "ann").await;
    let fleet = fleet_of(&store, ann.id, 1, 3).await;
    let first = device_monitor(&store, ann.id, "first").await;
    let second = device_monitor(&store, ann.id, "second").await;
    let a = open_alert(&first, "a", Some(&fleet[0]), t0());
    let b = open_alert(&first, "b", Some(&fleet[1]), t0());
    let c = open_alert(&second, "c", Some(&fleet[2]), t0());
    apply(&store, &opening(&first, ann.id, [a.clone(), b], t0()), t0()).await;
    apply(&store, &opening(&second, ann.id, [c], t0()), t0()).await;
    let resolved_at = t0() + minutes(3);
    apply(
        &store,
        &resolving(&first, ann.id, &a, resolved_at),
        resolved_at,
    )
    .await;

    let ids = |page: application::ports::AlertPage| {
        assert_eq!(page.count, page.alerts.len() as u64);
        page.alerts
            .into_iter()
            .map(|alert| alert.id)
            .collect::<Vec<_>>()
    };
    let every = store
        .list_alerts(ann.id, &AlertFilter::default(), all())
        .await
        .unwrap();
    assert_eq!(ids(every), [alert_id("c"), alert_id("b"), alert_id("a")]);
    let of_first = AlertFilter {
        monitor: Some(first.clone()),
        state: None,
    };
    let listed = store.list_alerts(ann.id, &of_first, all()).await.unwrap();
    assert_eq!(ids(listed), [alert_id("b"), alert_id("a")]);
    let open_of_first = AlertFilter {
        monitor: Some(first.clone()),
        state: Some(AlertState::Open),
    };
    let listed = store
        .list_alerts(ann.id, &open_of_first, all())
        .await
        .unwrap();
    assert_eq!(ids(listed), [alert_id("b")]);
    let resolved = AlertFilter {
        monitor: None,
        state: Some(AlertState::Resolved),
    };
    let listed = store.list_alerts(ann.id, &resolved, all()).await.unwrap();
    assert_eq!(ids(listed), [alert_id("a")]);
    let page = store
        .list_alerts(
            ann.id,
            &AlertFilter::default(),
            Window {
                limit: 1,
                offset: 1,
            },
        )
        .await
        .unwrap();
    assert_eq!((page.count, page.alerts[0].id.clone()), (3, alert_id("b")));

    let read = store
        .find_alert(ann.id, &alert_id("a"))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(read.state, AlertState::Resolved);
    assert_eq!(
        (read.started_time, read.resolved_time),
        (t0(), Some(resolved_at))
    );
    assert_eq!((read.monitor, read.serial), (first, Some(fleet[0].clone())));
    assert_eq!(read.reason, "reason a");
}

/// Deleting a monitor deletes its alerts and only its own.
pub async fn a_deleted_monitor_takes_its_alerts_along(store: impl Store) {
    let ann = account(&store, "ann").await;
    let fleet = fleet_of(&store, ann.id, 1, 2).await;
    let gone = device_monitor(&store, ann.id, "gone").await;
    let kept = device_monitor(&store, ann.id, "kept").await;
    let a = open_alert(&gone, "a", Some(&fleet[0]), t0());
    let b = open_alert(&kept, "b", Some(&fleet[0]), t0());
    apply(&store, &opening(&gone, ann.id, [a], t0()), t0()).await;
    apply(&store, &opening(&kept, ann.id, [b], t0()), t0()).await;

    assert!(
        store
            .delete_monitor(
                ann.id,
                &gone,
                &crate::noted(domain::AuditAction::MonitorDelete)
            )
            .await
            .unwrap()
    );
    assert!(
        !store
            .delete_monitor(
                ann.id,
                &gone,
                &crate::noted(domain::AuditAction::MonitorDelete)
            )
            .await
            .unwrap(),
        "once"
    );
    assert_eq!(store.find_monitor(ann.id, &gone).await.unwrap(), None);
    assert_eq!(
        store.find_alert(ann.id, &alert_id("a")).await.unwrap(),
        None
    );
    assert!(
        store
            .find_alert(ann.id, &alert_id("b"))
            .await
            .unwrap()
            .is_some()
    );
    let listed = store
        .list_alerts(ann.id, &AlertFilter::default(), all())
        .await
        .unwrap();
    assert_eq!(listed.count, 1);
    let kinds: Vec<_> = store
        .list_monitors(ann.id, all())
        .await
        .unwrap()
        .monitors
        .into_iter()
        .map(|m| (m.id, m.kind))
        .collect();
    assert_eq!(kinds, [(kept, MonitorKind::DeviceOffline)]);
}
