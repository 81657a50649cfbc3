//! The plans SQLite makes of the audit log's reads, on a migrated database
//! without statistics (as every database is): a page of an account's log,
//! with or without filters, is read through an index that starts with the
//! account and ends with the id, newest first, so it never scans the whole
//! log nor sorts it; reading on from an id and finding where retention
//! cuts do not scan either (docs/audit.md).

use super::ENTRY_COLUMNS;
use super::log::{AFTER, NEWEST_BEFORE, condition, count_statement, page_statement};
use crate::query_plans::{database, plan_of};
use application::ports::AuditFilter;
use domain::AccountId;
use rusqlite::Connection;

fn filter(action: Option<&str>, target: Option<&str>) -> AuditFilter {
    AuditFilter {
        action: action.map(str::to_owned),
        target: target.map(str::to_owned),
    }
}

/// The count and the page of `filter`, each one search of `index` on
/// `terms`, and the page without a sort.
fn assert_searched(conn: &Connection, filter: &AuditFilter, index: &str, terms: &str) {
    let (condition, _) = condition(AccountId(1), filter);
    let count = plan_of(conn, &count_statement(&condition));
    assert_eq!(
        count,
        [format!(
            "SEARCH audit_log USING COVERING INDEX {index} ({terms})"
        )],
        "{filter:?}"
    );
    let page = plan_of(conn, &page_statement(&condition));
    assert_eq!(
        page,
        [format!("SEARCH audit_log USING INDEX {index} ({terms})")],
        "{filter:?}: no scan, no temporary b-tree for the order"
    );
}

#[test]
fn a_page_of_an_accounts_log_is_read_through_its_index() {
    let (_dir, conn) = database();
    assert_searched(
        &conn,
        &AuditFilter::default(),
        "audit_log_by_account",
        "account_id=?",
    );
}

#[test]
fn a_filtered_page_is_read_through_the_index_of_its_filter() {
    let (_dir, conn) = database();
    assert_searched(
        &conn,
        &filter(Some("device.update"), None),
        "audit_log_by_action",
        "account_id=? AND action=?",
    );
    assert_searched(
        &conn,
        &filter(None, Some("device:x")),
        "audit_log_by_target",
        "account_id=? AND target=?",
    );
    let (condition, _) = condition(AccountId(1), &filter(Some("a"), Some("t")));
    let plan = plan_of(&conn, &page_statement(&condition));
    assert_eq!(plan.len(), 1, "{plan:#?}");
    assert!(
        plan[0].starts_with("SEARCH audit_log USING INDEX audit_log_by_")
            && plan[0].contains("account_id=? AND "),
        "{plan:#?}"
    );
}

#[test]
fn reading_on_and_cutting_for_retention_search_rather_than_scan() {
    let (_dir, conn) = database();
    assert_eq!(
        plan_of(&conn, &format!("SELECT {ENTRY_COLUMNS} {AFTER}")),
        ["SEARCH audit_log USING INTEGER PRIMARY KEY (rowid>?)"]
    );
    let plan = plan_of(&conn, NEWEST_BEFORE);
    assert!(
        plan.iter()
            .any(|line| line == "SEARCH audit_log USING INTEGER PRIMARY KEY (rowid=?)"),
        "{plan:#?}"
    );
    assert!(
        plan.iter()
            .any(|line| line == "SEARCH audit_log USING COVERING INDEX audit_log_by_time (time<?)"),
        "{plan:#?}"
    );
    assert!(
        !plan.iter().any(|line| line.starts_with("SCAN")),
        "{plan:#?}"
    );
}
