//! What the monitor engine observes: a device monitor's down devices (seen,
//! silent for longer than its wait, without an open alert) and its open
//! alerts with their devices now; a fleet monitor's counts and its open
//! alert. Each monitor sees its own account's devices only.

use crate::{
    Store, account, alert_id, apply, create_devices, fleet_device, fleet_kind, fleet_serial,
    matching, monitor_id, new_monitor, open_alert, opening, t0, tag, verdict, watch_of,
};
use application::ports::{DownDevice, MonitorWatch, Observation, WatchedAlert};
use chrono::Duration;
use domain::{AccountId, Criteria, MonitorKind, Selector, Serial, Timestamp};

/// When the tests watch.
fn now() -> Timestamp {
    t0() + Duration::hours(1)
}

fn ago(seconds: i64) -> Option<Timestamp> {
    Some(now() - Duration::seconds(seconds))
}

/// Creates device `n` of `owner` with `tags`, last seen at `last_seen`.
async fn device(
    store: &impl Store,
    owner: AccountId,
    n: u16,
    tags: &[&str],
    last_seen: Option<Timestamp>,
) -> Serial {
    let name = format!("pi-{n}");
    create_devices(
        store,
        &[fleet_device(
            owner,
            n,
            &name,
            "",
            tags,
            last_seen,
            i64::from(n),
        )],
    )
    .await;
    fleet_serial(n)
}

fn down_of(watch: &MonitorWatch) -> Vec<(Serial, String, Timestamp)> {
    let Observation::Devices { down, .. } = &watch.observed else {
        panic!("a device monitor: {watch:?}");
    };
    down.iter()
        .map(
            |DownDevice {
                 serial,
                 name,
                 last_seen,
             }| (serial.clone(), name.as_str().to_owned(), *last_seen),
        )
        .collect()
}

fn open_of(watch: &MonitorWatch) -> Vec<WatchedAlert> {
    let Observation::Devices { open, .. } = &watch.observed else {
        panic!("a device monitor: {watch:?}");
    };
    open.clone()
}

/// Down: seen, and silent for longer than the wait (not exactly as long),
/// oldest heartbeat first; never seen and online devices are not down, nor
/// a device that has an open alert of the monitor, nor another account's.
pub async fn down_devices_are_seen_silent_and_without_an_open_alert(store: impl Store) {
    let ann = account(&store, "ann").await;
    let bob = account(&store, "bob").await;
    let late = device(&store, ann.id, 1, &[], ago(301)).await;
    device(&store, ann.id, 2, &[], ago(300)).await;
    device(&store, ann.id, 3, &[], None).await;
    device(&store, ann.id, 4, &[], ago(10)).await;
    let alerted = device(&store, ann.id, 5, &[], ago(1000)).await;
    let later = device(&store, ann.id, 6, &[], ago(400)).await;
    device(&store, bob.id, 7, &[], ago(1000)).await;
    let monitor = new_monitor(ann.id, "m", MonitorKind::DeviceOffline, Selector::All, 300);
    store
        .create_monitor(&monitor, &crate::noted(domain::AuditAction::MonitorCreate))
        .await
        .unwrap();
    let alert = open_alert(&monitor.id, "a", Some(&alerted), t0());
    apply(&store, &opening(&monitor.id, ann.id, [alert], t0()), t0()).await;

    let watch = watch_of(&store, &monitor.id, now()).await;
    assert_eq!(
        (watch.owner, watch.owner_email.as_str()),
        (ann.id, "ann@example.com")
    );
    assert_eq!(watch.above_since, None);
    assert_eq!(
        down_of(&watch),
        [
            (later, "pi-6".to_owned(), ago(400).unwrap()),
            (late, "pi-1".to_owned(), ago(301).unwrap()),
        ]
    );
    let open = open_of(&watch);
    assert_eq!(open.len(), 1);
    assert_eq!(open[0].open.alert.id, alert_id("a"));
    assert_eq!(open[0].device, Some((true, ago(1000))));
}

/// A monitor's selector picks its down devices as the fleet listing would:
/// by tags, by serials (another account's match nothing), by being online.
pub async fn a_monitors_selector_picks_its_down_devices(store: impl Store) {
    let ann = account(&store, "ann").await;
    let bob = account(&store, "bob").await;
    let lab = device(&store, ann.id, 1, &["lab"], ago(600)).await;
    let plain = device(&store, ann.id, 2, &[], ago(500)).await;
    let theirs = device(&store, bob.id, 3, &["lab"], ago(600)).await;
    let by_tag = matching(Criteria {
        tags: vec![tag("lab")],
        ..Criteria::default()
    });
    let by_serial = matching(Criteria {
        serials: Some(vec![plain.as_str().to_owned(), theirs.as_str().to_owned()]),
        ..Criteria::default()
    });
    let online = matching(Criteria {
        online: Some(true),
        ..Criteria::default()
    });
    let offline = matching(Criteria {
        online: Some(false),
        ..Criteria::default()
    });
    let cases = [
        ("tag", by_tag, vec![lab.clone()]),
        ("serial", by_serial, vec![plain.clone()]),
        ("online", online, vec![]),
        ("offline", offline, vec![lab, plain]),
    ];
    for (label, selector, _) in &cases {
        let monitor = new_monitor(
            ann.id,
            label,
            MonitorKind::DeviceOffline,
            selector.clone(),
            60,
        );
        store
            .create_monitor(&monitor, &crate::noted(domain::AuditAction::MonitorCreate))
            .await
            .unwrap();
    }
    for (label, _, expected) in cases {
        let watch = watch_of(&store, &monitor_id(label), now()).await;
        let serials: Vec<_> = down_of(&watch)
            .into_iter()
            .map(|(serial, ..)| serial)
            .collect();
        assert_eq!(serials, expected, "{label}");
    }
}

/// An open alert comes with its device now: whether the selector still
/// matches it and its last heartbeat, or `None` once the device is gone;
/// and with since when it has been calm, as the last verdict kept it.
pub async fn open_alerts_come_with_their_devices_now(store: impl Store) {
    let ann = account(&store, "ann").await;
    let tagged = device(&store, ann.id, 1, &["lab"], ago(5)).await;
    let untagged = device(&store, ann.id, 2, &[], ago(600)).await;
    let gone = device(&store, ann.id, 3, &["lab"], ago(600)).await;
    let selector = matching(Criteria {
        tags: vec![tag("lab")],
        ..Criteria::default()
    });
    let monitor = new_monitor(ann.id, "m", MonitorKind::DeviceOffline, selector, 60);
    store
        .create_monitor(&monitor, &crate::noted(domain::AuditAction::MonitorCreate))
        .await
        .unwrap();
    let alerts = [
        open_alert(&monitor.id, "tagged", Some(&tagged), t0()),
        open_alert(&monitor.id, "untagged", Some(&untagged), t0()),
        open_alert(&monitor.id, "gone", Some(&gone), t0()),
    ];
    apply(&store, &opening(&monitor.id, ann.id, alerts, t0()), t0()).await;
    let calm = application::ports::MonitorVerdict {
        calm: vec![(alert_id("tagged"), ago(5))],
        ..verdict(&monitor.id, ann.id)
    };
    apply(&store, &calm, now()).await;
    assert!(
        store
            .delete(
                ann.id,
                &gone,
                &crate::noted(domain::AuditAction::DeviceDelete)
            )
            .await
            .unwrap()
    );

    let watch = watch_of(&store, &monitor.id, now()).await;
    let seen: Vec<_> = open_of(&watch)
        .into_iter()
        .map(|watched| {
            (
                watched.open.alert.id,
                watched.open.calm_since,
                watched.device,
            )
        })
        .collect();
    assert_eq!(
        seen,
        [
            (alert_id("tagged"), ago(5), Some((true, ago(5)))),
            (alert_id("untagged"), None, Some((false, ago(600)))),
            (alert_id("gone"), None, None),
        ]
    );
    assert!(down_of(&watch).is_empty(), "each has its alert");
}

/// A fleet monitor counts its selected devices and the offline ones among
/// them (never seen, or last seen at or before the online cut), and sees
/// its open alert and since when its share has been above the ratio.
pub async fn a_fleet_monitor_counts_selected_and_offline_devices(store: impl Store) {
    let ann = account(&store, "ann").await;
    let bob = account(&store, "bob").await;
    device(&store, ann.id, 1, &["lab"], ago(5)).await;
    device(&store, ann.id, 2, &["lab"], ago(90)).await;
    device(&store, ann.id, 3, &["lab"], None).await;
    device(&store, ann.id, 4, &[], ago(1000)).await;
    device(&store, bob.id, 5, &["lab"], None).await;
    let lab = matching(Criteria {
        tags: vec![tag("lab")],
        ..Criteria::default()
    });
    let nothing = matching(Criteria {
        tags: vec![tag("none")],
        ..Criteria::default()
    });
    for (label, selector) in [("all", Selector::All), ("lab", lab), ("none", nothing)] {
        let monitor = new_monitor(ann.id, label, fleet_kind(0.5), selector, 60);
        store
            .create_monitor(&monitor, &crate::noted(domain::AuditAction::MonitorCreate))
            .await
            .unwrap();
    }
    let above = application::ports::MonitorVerdict {
        above_since: ago(30),
        ..verdict(&monitor_id("lab"), ann.id)
    };
    apply(&store, &above, now()).await;
    let fleet_alert = open_alert(&monitor_id("all"), "fleet", None, t0());
    apply(
        &store,
        &opening(&monitor_id("all"), ann.id, [fleet_alert.clone()], t0()),
        t0(),
    )
    .await;

    let counts = |watch: &MonitorWatch| match &watch.observed {
        Observation::Fleet {
            selected,
            offline,
            open,
        } => (
            *selected,
            *offline,
            open.as_ref().map(|open| open.alert.clone()),
        ),
        other => panic!("a fleet monitor: {other:?}"),
    };
    let all = watch_of(&store, &monitor_id("all"), now()).await;
    assert_eq!(counts(&all), (4, 3, Some(fleet_alert)));
    let lab = watch_of(&store, &monitor_id("lab"), now()).await;
    assert_eq!(counts(&lab), (3, 2, None));
    assert_eq!(lab.above_since, ago(30));
    let none = watch_of(&store, &monitor_id("none"), now()).await;
    assert_eq!(counts(&none), (0, 0, None));
    let every = store
        .watch_monitors(now(), now() - Duration::seconds(90))
        .await
        .unwrap();
    assert_eq!(every.len(), 3, "every monitor of every account, each once");
}
