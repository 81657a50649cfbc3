//! Unit tests of the monitors' use cases over a mocked store.

use super::*;
use crate::use_cases::test_support::{Harness, account, now, text};
use chrono::Duration;
use domain::OfflineRatio;
use mockall::predicate::eq;

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
        .withf(|monitor| {
            monitor.owner == domain::AccountId(7)
                && monitor.created_time == now()
                && monitor.after.seconds() == 600
                && monitor.name.as_str() == "Lab offline"
        })
        .times(1)
        .returning(|_| Ok(()));
    h.monitors
        .expect_find_monitor()
        .returning(|_, id| Ok(Some(record(id.clone(), None))));
    let app = h.app();
    let created = app
        .monitors
        .create(&account(true, None), request())
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
        .with(eq(domain::AccountId(7)), eq(id.clone()), eq(None))
        .times(2)
        .returning(|_, id, until| Ok(Some(record(id.clone(), until))));
    h.monitors
        .expect_snooze_monitor()
        .with(eq(domain::AccountId(7)), eq(id.clone()), eq(Some(later)))
        .times(1)
        .returning(|_, id, until| Ok(Some(record(id.clone(), until))));
    let app = h.app();
    let owner = account(true, None);
    for until in [None, Some(now()), Some(later)] {
        let snoozed = app
            .monitors
            .snooze(&owner, &id, until)
            .await
            .unwrap()
            .unwrap();
        assert_eq!(snoozed.snoozed_until, until.filter(|at| *at > now()));
    }
}
