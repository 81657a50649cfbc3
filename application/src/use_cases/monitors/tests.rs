//! Unit tests of the monitors' use cases over a mocked store.

use super::*;
use crate::use_cases::test_support::{Harness, Notes, account, by, now, text};
use chrono::Duration;
use domain::OfflineRatio;
use mockall::predicate::{always, eq};

fn request() -> MonitorRequest {
    MonitorRequest {
        name: text("Lab offline"),
        kind: MonitorKind::FleetOfflineRatio(OfflineRatio::new(0.2).unwrap()),
        selector: Selector::All,
        selector_json: "{\"all\": true}".into(),
        after: AfterSeconds::from_stored(600),
    }
}

fn record(id: MonitorId, snoozed_until: Option<Timestamp>) -> MonitorRecord {
    MonitorRecord {
        id,
        name: text("Lab offline"),
        kind: request().kind,
        selector_json: "{\"all\": true}".into(),
        after: AfterSeconds::from_stored(600),
        snoozed_until,
        created_time: now(),
    }
}

#[tokio::test]
async fn a_monitor_is_stored_for_its_owner_and_read_back() {
    let mut h = Harness::new();
    h.monitors
        .expect_create_monitor()
        .withf(|monitor, _| {
            monitor.owner == domain::AccountId(7)
                && monitor.created_time == now()
                && monitor.after.seconds() == 600
                && monitor.name.as_str() == "Lab offline"
        })
        .times(1)
        .returning(|_, _| Ok(()));
    h.monitors
        .expect_find_monitor()
        .returning(|_, id| Ok(Some(record(id.clone(), None))));
    let app = h.app();
    let created = app
        .monitors
        .create(by(&account(true, None)), request())
        .await
        .unwrap();
    assert_eq!(created.name.as_str(), "Lab offline");
    assert_eq!(app.monitors.least_after_seconds(), 90);
}

#[tokio::test]
async fn a_snooze_in_the_past_or_null_ends_it_and_a_future_one_is_kept() {
    let mut h = Harness::new();
    let id = MonitorId::from_random_bytes([1; 16]);
    let later = now() + Duration::minutes(30);
    h.monitors
        .expect_snooze_monitor()
        .with(eq(domain::AccountId(7)), eq(id.clone()), eq(None), always())
        .times(2)
        .returning(|_, id, until, _| Ok(Some(record(id.clone(), until))));
    h.monitors
        .expect_snooze_monitor()
        .with(
            eq(domain::AccountId(7)),
            eq(id.clone()),
            eq(Some(later)),
            always(),
        )
        .times(1)
        .returning(|_, id, until, _| Ok(Some(record(id.clone(), until))));
    let app = h.app();
    let owner = account(true, None);
    for until in [None, Some(now()), Some(later)] {
        let snoozed = app
            .monitors
            .snooze(by(&owner), &id, until)
            .await
            .unwrap()
            .unwrap();
        assert_eq!(snoozed.snoozed_until, until.filter(|at| *at > now()));
    }
}

/// The line of `action` with `detail` by the tests' user on monitor `id`.
fn entry(action: &str, id: &MonitorId, detail: &str) -> String {
    format!(
        "user owner@example.com 203.0.113.9 monitor.{action} monitor:{} {detail}",
        id.as_str()
    )
}

#[tokio::test]
async fn creating_and_deleting_a_monitor_ask_to_record_it() {
    let mut h = Harness::new();
    let notes = Notes::default();
    let (create, delete) = (notes.clone(), notes.clone());
    h.monitors
        .expect_create_monitor()
        .times(1)
        .returning(move |_, audit| {
            create.keep(audit);
            Ok(())
        });
    h.monitors
        .expect_find_monitor()
        .returning(|_, id| Ok(Some(record(id.clone(), None))));
    h.monitors
        .expect_delete_monitor()
        .times(1)
        .returning(move |_, _, audit| {
            delete.keep(audit);
            Ok(true)
        });
    let app = h.app();
    let owner = account(true, None);
    let created = app.monitors.create(by(&owner), request()).await.unwrap();
    assert!(app.monitors.delete(by(&owner), &created.id).await.unwrap());
    assert_eq!(
        notes.lines(),
        [
            entry("create", &created.id, "{}"),
            entry("delete", &created.id, "{}")
        ]
    );
}

#[tokio::test]
async fn a_snooze_records_its_end_and_an_ended_snooze_records_null() {
    let mut h = Harness::new();
    let notes = Notes::default();
    let kept = notes.clone();
    let id = MonitorId::from_random_bytes([1; 16]);
    h.monitors
        .expect_snooze_monitor()
        .times(3)
        .returning(move |_, id, until, audit| {
            kept.keep(audit);
            Ok(Some(record(id.clone(), until)))
        });
    let app = h.app();
    let owner = account(true, None);
    let later = now() + Duration::minutes(30);
    for until in [Some(later), Some(now() - Duration::minutes(1)), None] {
        app.monitors.snooze(by(&owner), &id, until).await.unwrap();
    }
    assert_eq!(
        notes.lines(),
        [
            entry("snooze", &id, r#"{"until":"2026-03-01T12:30:00"}"#),
            entry("snooze", &id, r#"{"until":null}"#),
            entry("snooze", &id, r#"{"until":null}"#),
        ]
    );
}
