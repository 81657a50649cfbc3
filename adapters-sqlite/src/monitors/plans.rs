//! The plans SQLite makes of the engine's reads, on a migrated database
//! without statistics (as every database is): a monitor's down devices are
//! read through the index on the last heartbeat (not one row per device of
//! the account), its open alerts through the index of open alerts.

use super::rows::{ALERT_COLUMNS, MONITOR_COLUMNS};
use super::watch::{OPEN_WITH_DEVICES, down_statement};
use crate::devices::Filter;
use crate::query_plans::{database, has_line, plan_of};
use chrono::{TimeZone, Utc};
use domain::{AccountId, Criteria, Selector, Tag};

fn filter(selector: &Selector) -> Filter {
    let online_after = Utc.with_ymd_and_hms(2026, 5, 1, 8, 0, 0).unwrap();
    Filter::new(AccountId(1), selector, online_after)
}

#[test]
fn down_devices_are_read_through_the_last_heartbeat_index() {
    let (_dir, conn) = database();
    let online = Selector::Matching(Criteria {
        online: Some(false),
        ..Criteria::default()
    });
    for selector in [Selector::All, online] {
        let plan = plan_of(&conn, &down_statement(&filter(&selector)));
        assert_eq!(
            plan.first().map(String::as_str),
            Some("SEARCH devices USING INDEX devices_by_last_seen (account_id=? AND last_seen<?)"),
            "{plan:#?}"
        );
        assert!(
            plan.iter()
                .any(|line| line.starts_with("SEARCH a USING INDEX alerts_one_open")),
            "{plan:#?}"
        );
    }
}

#[test]
fn down_devices_of_a_tag_are_driven_by_the_tag_index() {
    let (_dir, conn) = database();
    let tagged = Selector::Matching(Criteria {
        tags: vec![Tag::from_stored("lab".to_owned())],
        ..Criteria::default()
    });
    let plan = plan_of(&conn, &down_statement(&filter(&tagged)));
    assert!(
        plan.iter()
            .any(|line| line.contains("USING COVERING INDEX device_tags_by_account")),
        "{plan:#?}"
    );
    assert!(
        plan.iter()
            .any(|line| line == "SEARCH devices USING PRIMARY KEY (serial=?)"),
        "{plan:#?}"
    );
}

#[test]
fn open_alerts_are_read_through_the_index_of_open_alerts() {
    let (_dir, conn) = database();
    let text = OPEN_WITH_DEVICES.replace("{ALERT_COLUMNS}", ALERT_COLUMNS);
    let plan = plan_of(&conn, &text);
    assert!(
        plan[0].starts_with("SEARCH a USING INDEX alerts_"),
        "{plan:#?}"
    );
    assert!(
        has_line(
            &plan,
            "SEARCH devices USING PRIMARY KEY (serial=?) LEFT-JOIN"
        ),
        "{plan:#?}"
    );
    let monitors = super::watch::MONITORS.replace("{MONITOR_COLUMNS}", MONITOR_COLUMNS);
    assert!(
        plan_of(&conn, &monitors)
            .iter()
            .any(|line| line == "SEARCH accounts USING INTEGER PRIMARY KEY (rowid=?)")
    );
}
