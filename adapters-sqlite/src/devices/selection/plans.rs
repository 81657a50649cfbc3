//! The plans SQLite makes of the fleet queries, on a migrated database
//! without statistics (as every database is): serials or tags given are
//! looked up through their index instead of walking the account's devices,
//! and a listing reads an index in its order instead of sorting all.

use super::{Filter, page_statement};
use crate::query_plans::{database, plan_with};
use chrono::{TimeZone, Utc};
use domain::{AccountId, Criteria, DeviceOrdering, Search, Selector, Tag};
use rusqlite::{Connection, params_from_iter};

/// The plan's lines (`EXPLAIN QUERY PLAN`'s details) for a page of 100.
fn plan(conn: &Connection, selector: &Selector, ordering: &str) -> Vec<String> {
    let now = Utc.with_ymd_and_hms(2026, 5, 1, 8, 0, 0).unwrap();
    let filter = Filter::new(AccountId(1), selector, now);
    let ordering = DeviceOrdering::parse(ordering).unwrap();
    let (text, values) = page_statement(&filter, ordering, 100, 0);
    plan_with(conn, &text, params_from_iter(values))
}

fn tags(names: &[&str]) -> Vec<Tag> {
    names.iter().map(|name| Tag::parse(name).unwrap()).collect()
}

#[test]
fn serials_and_tags_are_looked_up_through_their_index() {
    let (_dir, conn) = database();
    let cases = [
        (
            Criteria {
                tags: tags(&["lab", "eu"]),
                online: Some(true),
                ..Criteria::default()
            },
            "SEARCH device_tags USING COVERING INDEX device_tags_by_account (account_id=? AND tag=?)",
        ),
        (
            Criteria {
                any_tags: tags(&["lab", "eu"]),
                search: Search::new("pi"),
                ..Criteria::default()
            },
            "SEARCH device_tags USING COVERING INDEX device_tags_by_account (account_id=? AND tag=?)",
        ),
        (
            Criteria {
                serials: Some(vec!["a".into(), "b".into()]),
                tags: tags(&["lab"]),
                ..Criteria::default()
            },
            "SCAN json_each VIRTUAL TABLE INDEX 1:",
        ),
    ];
    for (criteria, lookup) in cases {
        let plan = plan(&conn, &Selector::Matching(criteria.clone()), "name");
        assert!(
            plan.iter().any(|line| line == lookup),
            "{criteria:?}: {plan:#?}"
        );
        assert!(
            plan.iter()
                .any(|line| line == "SEARCH devices USING PRIMARY KEY (serial=?)"),
            "{criteria:?}: {plan:#?}"
        );
        assert!(
            !plan.iter().any(|line| line.contains("devices_by_")),
            "no walk of the account's devices: {criteria:?}: {plan:#?}"
        );
    }
}

const ORDERINGS: [&str; 6] = [
    "created_time",
    "-created_time",
    "name",
    "-name",
    "last_seen_time",
    "-last_seen_time",
];

#[test]
fn a_listing_reads_an_index_in_its_order() {
    let (_dir, conn) = database();
    let filtered = Selector::Matching(Criteria {
        online: Some(false),
        machine_type: domain::MachineType::from_code("rpi_5"),
        ..Criteria::default()
    });
    for selector in [Selector::All, filtered] {
        for ordering in ORDERINGS {
            let index = match ordering.trim_start_matches('-') {
                "created_time" => "devices_by_account",
                "name" => "devices_by_name",
                _ => "devices_by_last_seen",
            };
            let plan = plan(&conn, &selector, ordering);
            assert!(
                plan.iter().any(|line| {
                    line.starts_with("SEARCH devices USING INDEX") && line.contains(index)
                }),
                "{ordering}: {plan:#?}"
            );
            assert!(
                !plan
                    .iter()
                    .any(|line| line == "USE TEMP B-TREE FOR ORDER BY"),
                "no sort of every device: {ordering}: {plan:#?}"
            );
        }
    }
}

#[test]
fn a_search_reads_the_accounts_devices_once() {
    let (_dir, conn) = database();
    let search = Selector::Matching(Criteria {
        search: Search::new("pi"),
        online: Some(true),
        ..Criteria::default()
    });
    for ordering in ORDERINGS {
        let plan = plan(&conn, &search, ordering);
        let walks = plan
            .iter()
            .filter(|line| line.starts_with("SCAN devices") || line.contains("INDEX devices_by_"))
            .count();
        assert_eq!(walks, 1, "{ordering}: {plan:#?}");
        assert!(
            plan.iter()
                .any(|line| line == "SEARCH devices USING PRIMARY KEY (serial=?)"),
            "the page's devices read again by serial: {ordering}: {plan:#?}"
        );
    }
}
