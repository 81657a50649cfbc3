//! Readiness and the store's counts, for health checks and metrics.

use crate::rows;
use crate::store::SqliteStore;
use application::StoreError;
use application::ports::{Census, CommandCounts, StoreProbe};
use async_trait::async_trait;
use domain::{CommandState, CommandStatus, Timestamp};
use rusqlite::types::Type;
use rusqlite::{Connection, params};

/// Every device, and those heard from at or after `?1`; the mail still in
/// the outbox (a row goes once delivered or given up).
const DEVICES_AND_OUTBOX: &str = "SELECT \
     (SELECT COUNT(*) FROM devices), \
     (SELECT COUNT(*) FROM devices WHERE last_seen > ?1), \
     (SELECT COUNT(*) FROM outbox)";

/// The commands grouped by what their state is derived from: the stored
/// status, whether they were issued at or before `?1` (lapsed unless
/// acknowledged) and whether they were handed out.
const COMMANDS: &str = "SELECT status, issued_time <= ?1, delivered_time IS NOT NULL, COUNT(*) \
     FROM device_commands GROUP BY 1, 2, 3";

#[async_trait]
impl StoreProbe for SqliteStore {
    async fn ping(&self) -> Result<(), StoreError> {
        self.run("ping the database", |conn| {
            conn.prepare_cached("SELECT 1")?
                .query_row([], |row| row.get::<_, i64>(0))
                .map(drop)
        })
        .await
    }

    async fn census(
        &self,
        online_after: Timestamp,
        lapsed_before: Timestamp,
    ) -> Result<Census, StoreError> {
        let (online_after, lapsed_before) =
            (rows::to_secs(online_after), rows::to_secs(lapsed_before));
        self.run("count devices, commands and mail", move |conn| {
            // One read transaction: the counts are of one moment.
            let tx = conn.transaction()?;
            let census = count(&tx, online_after, lapsed_before)?;
            tx.commit()?;
            Ok(census)
        })
        .await
    }
}

/// The census, in two statements.
fn count(conn: &Connection, online_after: i64, lapsed_before: i64) -> rusqlite::Result<Census> {
    let (devices, devices_online, outbox_backlog) = conn
        .prepare_cached(DEVICES_AND_OUTBOX)?
        .query_row([online_after], |row| {
            Ok((tally(row.get(0)?), tally(row.get(1)?), tally(row.get(2)?)))
        })?;
    let mut commands = CommandCounts::default();
    let mut statement = conn.prepare_cached(COMMANDS)?;
    let mut groups = statement.query(params![lapsed_before])?;
    while let Some(row) = groups.next()? {
        let status = match row.get::<_, Option<String>>(0)? {
            None => None,
            Some(code) => Some(CommandStatus::from_code(&code).ok_or_else(|| {
                rusqlite::Error::FromSqlConversionFailure(
                    0,
                    Type::Text,
                    format!("unknown command status {code:?}").into(),
                )
            })?),
        };
        commands.add(
            CommandState::of(status, row.get(1)?, row.get(2)?),
            tally(row.get(3)?),
        );
    }
    Ok(Census {
        devices,
        devices_online,
        commands,
        outbox_backlog,
    })
}

/// A count as SQLite gives it (never negative).
fn tally(count: i64) -> u64 {
    u64::try_from(count).unwrap_or_default()
}
