//! What the tests of query plans share: a migrated scratch database whose
//! connection plans as the store's do, and the lines of a statement's plan.

use crate::SqliteStore;
use rusqlite::{Connection, Params};

/// A migrated scratch database and a connection to it that plans as the
/// store's connections do: the same plan whatever the values, with the
/// store's SQL functions.
pub(crate) fn database() -> (tempfile::TempDir, Connection) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("db.sqlite");
    SqliteStore::open(&path).unwrap().migrate().unwrap();
    let conn = Connection::open(&path).unwrap();
    crate::store::keep_plans(&conn).unwrap();
    crate::devices::register_functions(&conn).unwrap();
    (dir, conn)
}

/// The plan's lines (`EXPLAIN QUERY PLAN`'s details) of a statement, with
/// every parameter null.
pub(crate) fn plan_of(conn: &Connection, text: &str) -> Vec<String> {
    let count = conn
        .prepare(text)
        .map(|statement| statement.parameter_count())
        .unwrap();
    plan_with(
        conn,
        text,
        rusqlite::params_from_iter(vec![rusqlite::types::Value::Null; count]),
    )
}

/// The plan's lines of a statement with these parameters.
pub(crate) fn plan_with(conn: &Connection, text: &str, values: impl Params) -> Vec<String> {
    conn.prepare(&format!("EXPLAIN QUERY PLAN {text}"))
        .unwrap()
        .query_map(values, |row| row.get(3))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap()
}

/// Whether the plan has a line that is exactly `line`.
pub(crate) fn has_line(plan: &[String], line: &str) -> bool {
    plan.iter().any(|l| l == line)
}
