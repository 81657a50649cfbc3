//! Unit tests of the monitor engine over a mocked store: what it decides
//! for what it observes, and what it leaves alone.

use super::*;
use crate::ports::{
    AppliedVerdict, DigestLine, DownDevice, DueDigest, MonitorRecord, MonitorVerdict, MonitorWatch,
    Observation, OpenAlert, WatchedAlert,
};
use crate::use_cases::test_support::{Harness, announcements, now, text};
use domain::{
    AccountId, AfterSeconds, AlertId, AlertState, MonitorId, MonitorKind, OfflineRatio, Serial,
    Timestamp, WebhookEvent,
};
use mockall::predicate::{always, eq};

fn monitor(kind: MonitorKind, snoozed_until: Option<Timestamp>) -> MonitorRecord {
    MonitorRecord {
        id: MonitorId::from_random_bytes([1; 16]),
        name: text("Lab"),
        kind,
        selector_json: "{\"all\": true}".into(),
        after: AfterSeconds::from_stored(600),
        snoozed_until,
        created_time: now() - Duration::days(1),
    }
}

fn watch(
    monitor: MonitorRecord,
    above_since: Option<Timestamp>,
    observed: Observation,
) -> MonitorWatch {
    MonitorWatch {
        monitor,
        owner: AccountId(7),
        owner_email: "owner@example.com".into(),
        above_since,
        observed,
    }
}

fn serial() -> Serial {
    Serial::from_random_bytes([3; 16])
}

fn open_alert(serial: Option<Serial>, calm_since: Option<Timestamp>) -> OpenAlert {
    OpenAlert {
        alert: crate::ports::AlertRecord {
            id: AlertId::from_random_bytes([5; 16]),
            monitor: MonitorId::from_random_bytes([1; 16]),
            serial,
            state: AlertState::Open,
            started_time: now() - Duration::hours(1),
            resolved_time: None,
            reason: "earlier".into(),
        },
        calm_since,
    }
}

fn no_digests(h: &mut Harness) {
    h.monitors.expect_due_digests().returning(|_, _| Ok(vec![]));
}

/// Runs one tick over `watches`, capturing the verdicts applied.
async fn tick(mut h: Harness, watches: Vec<MonitorWatch>) -> (usize, Vec<MonitorVerdict>) {
    let applied = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let seen = applied.clone();
    h.monitors
        .expect_watch_monitors()
        .with(eq(now()), eq(now() - Duration::seconds(90)))
        .return_once(move |_, _| Ok(watches));
    h.monitors
        .expect_apply_verdict()
        .with(always(), eq(now()), eq(Duration::seconds(60)))
        .returning(move |verdict, _, _| {
            seen.lock().unwrap().push(verdict.clone());
            Ok(AppliedVerdict {
                opened: verdict.opened.iter().map(|t| t.alert.id.clone()).collect(),
                resolved: verdict
                    .resolved
                    .iter()
                    .map(|t| t.alert.id.clone())
                    .collect(),
            })
        });
    let changes = h.app().monitor_engine.tick().await.unwrap();
    let verdicts = applied.lock().unwrap().clone();
    (changes, verdicts)
}

#[tokio::test]
async fn a_down_device_opens_an_alert_with_its_reason_mail_and_event() {
    let mut h = Harness::new();
    h.fleet_signals = announcements(1);
    no_digests(&mut h);
    let last_seen = now() - Duration::seconds(601);
    let observed = Observation::Devices {
        down: vec![DownDevice {
            serial: serial(),
            name: text("gate"),
            last_seen,
        }],
        open: vec![],
    };
    let (changes, verdicts) = tick(
        h,
        vec![watch(
            monitor(MonitorKind::DeviceOffline, None),
            None,
            observed,
        )],
    )
    .await;
    assert_eq!(changes, 1);
    let opened = &verdicts[0].opened[0];
    assert_eq!(opened.alert.serial, Some(serial()));
    assert_eq!(opened.alert.state, AlertState::Open);
    assert_eq!(opened.alert.started_time, now());
    assert_eq!(
        opened.alert.reason,
        "No heartbeat from \"gate\" since 2026-03-01T11:49:59 UTC (more than 600 s)."
    );
    let notice = opened.notice.as_ref().expect("not snoozed");
    assert_eq!(notice.mail.subject, "Alert opened: Lab");
    assert_eq!(notice.mail.to, "owner@example.com");
    assert!(notice.mail.text.contains(opened.alert.id.as_str()));
    assert_eq!(notice.event.event, WebhookEvent::AlertOpened);
    assert_eq!(notice.event.time, now());
    assert!(notice.event.data.contains(opened.alert.id.as_str()));
}

#[tokio::test]
async fn a_snoozed_monitor_opens_and_resolves_without_notices() {
    let mut h = Harness::new();
    no_digests(&mut h);
    let snoozed = monitor(
        MonitorKind::DeviceOffline,
        Some(now() + Duration::minutes(5)),
    );
    let observed = Observation::Devices {
        down: vec![DownDevice {
            serial: serial(),
            name: text("gate"),
            last_seen: now() - Duration::hours(1),
        }],
        open: vec![WatchedAlert {
            open: open_alert(Some(Serial::from_random_bytes([4; 16])), None),
            device: None,
        }],
    };
    let (changes, verdicts) = tick(h, vec![watch(snoozed, None, observed)]).await;
    assert_eq!(changes, 2);
    assert!(verdicts[0].opened[0].notice.is_none());
    let resolved = &verdicts[0].resolved[0];
    assert!(resolved.notice.is_none());
    assert_eq!(resolved.alert.state, AlertState::Resolved);
    assert_eq!(resolved.alert.resolved_time, Some(now()));
}

#[tokio::test]
async fn a_device_back_online_is_remembered_as_calm_then_resolved_after_two_windows() {
    let mut h = Harness::new();
    no_digests(&mut h);
    let back = now() - Duration::seconds(5);
    let calm_now = WatchedAlert {
        open: open_alert(Some(serial()), None),
        device: Some((true, Some(back))),
    };
    let mut long_calm = calm_now.clone();
    long_calm.open.alert.id = AlertId::from_random_bytes([6; 16]);
    long_calm.open.calm_since = Some(now() - Duration::seconds(180));
    let observed = Observation::Devices {
        down: vec![],
        open: vec![calm_now, long_calm],
    };
    let (_, verdicts) = tick(
        h,
        vec![watch(
            monitor(MonitorKind::DeviceOffline, None),
            None,
            observed,
        )],
    )
    .await;
    assert_eq!(
        verdicts[0].calm,
        [(AlertId::from_random_bytes([5; 16]), Some(back))]
    );
    assert_eq!(verdicts[0].resolved.len(), 1);
    assert_eq!(
        verdicts[0].resolved[0].alert.id,
        AlertId::from_random_bytes([6; 16])
    );
    let notice = verdicts[0].resolved[0].notice.as_ref().unwrap();
    assert_eq!(notice.mail.subject, "Alert resolved: Lab");
    assert_eq!(notice.event.event, WebhookEvent::AlertResolved);
}

#[tokio::test]
async fn nothing_is_written_for_a_monitor_whose_state_holds() {
    let mut h = Harness::new();
    no_digests(&mut h);
    h.fleet_signals = announcements(0);
    let ratio = MonitorKind::FleetOfflineRatio(OfflineRatio::new(0.5).unwrap());
    let since = now() - Duration::seconds(10);
    let watches = vec![
        watch(
            monitor(MonitorKind::DeviceOffline, None),
            None,
            Observation::Devices {
                down: vec![],
                open: vec![WatchedAlert {
                    open: open_alert(Some(serial()), None),
                    device: Some((true, Some(now() - Duration::seconds(300)))),
                }],
            },
        ),
        watch(
            monitor(ratio, None),
            Some(since),
            Observation::Fleet {
                selected: 4,
                offline: 3,
                open: None,
            },
        ),
    ];
    let (changes, verdicts) = tick(h, watches).await;
    assert_eq!(changes, 0);
    assert!(verdicts.is_empty(), "{verdicts:?}");
}

#[tokio::test]
async fn a_fleet_above_its_ratio_for_the_wait_opens_one_alert_with_the_shares() {
    let mut h = Harness::new();
    no_digests(&mut h);
    let ratio = MonitorKind::FleetOfflineRatio(OfflineRatio::new(0.25).unwrap());
    let first = watch(
        monitor(ratio, None),
        None,
        Observation::Fleet {
            selected: 8,
            offline: 3,
            open: None,
        },
    );
    let mut due = first.clone();
    due.above_since = Some(now() - Duration::seconds(600));
    due.monitor.id = MonitorId::from_random_bytes([2; 16]);
    let (changes, verdicts) = tick(h, vec![first, due]).await;
    assert_eq!(changes, 1);
    assert_eq!(verdicts[0].above_since, Some(now()));
    assert!(verdicts[0].opened.is_empty());
    let opened = &verdicts[1].opened[0];
    assert_eq!(opened.alert.serial, None);
    assert_eq!(
        opened.alert.reason,
        "3 of 8 selected devices offline (38 %), above 25 % for 600 s."
    );
    assert_eq!(verdicts[1].above_since, None);
}

#[tokio::test]
async fn a_due_digest_is_queued_with_every_line() {
    let mut h = Harness::new();
    h.monitors
        .expect_watch_monitors()
        .returning(|_, _| Ok(vec![]));
    let opened = now() - Duration::seconds(60);
    h.monitors
        .expect_due_digests()
        .with(eq(now()), eq(Duration::seconds(60)))
        .returning(move |_, _| {
            Ok(vec![DueDigest {
                owner: AccountId(7),
                owner_email: "owner@example.com".into(),
                window_opened: opened,
                lines: vec![
                    DigestLine {
                        subject: "Alert opened: Lab".into(),
                        alert: AlertId::from_random_bytes([5; 16]),
                    },
                    DigestLine {
                        subject: "Alert resolved: Lab".into(),
                        alert: AlertId::from_random_bytes([6; 16]),
                    },
                ],
            }])
        });
    h.monitors
        .expect_send_digest()
        .withf(move |owner, at, mail, sent_at| {
            *sent_at == now()
                && *owner == AccountId(7)
                && *at == opened
                && mail.subject == "Alert digest: 2 notifications"
                && mail.to == "owner@example.com"
                && mail
                    .text
                    .contains(AlertId::from_random_bytes([6; 16]).as_str())
        })
        .times(1)
        .returning(|_, _, _, _| Ok(true));
    assert_eq!(h.app().monitor_engine.tick().await.unwrap(), 0);
}
