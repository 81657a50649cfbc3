//! Readiness and the store's counts, for health checks and metrics.

use crate::prepared;
use crate::rows;
use crate::store::PgStore;
use application::StoreError;
use application::ports::{Census, CommandCounts, StoreProbe};
use async_trait::async_trait;
use domain::{CommandState, CommandStatus, Timestamp};

/// Every device, and those heard from at or after `$1`; the mail still in
/// the outbox (a row goes once delivered or given up).
const DEVICES_AND_OUTBOX: &str = "SELECT \
     (SELECT COUNT(*) FROM devices), \
     (SELECT COUNT(*) FROM devices WHERE last_seen > $1), \
     (SELECT COUNT(*) FROM outbox)";

/// The commands grouped by what their state is derived from: the stored
/// status, whether they were issued at or before `$1` (lapsed unless
/// acknowledged) and whether they were handed out.
const COMMANDS: &str = "SELECT status, issued_time <= $1, delivered_time IS NOT NULL, COUNT(*) \
     FROM device_commands GROUP BY 1, 2, 3";

#[async_trait]
impl StoreProbe for PgStore {
    async fn ping(&self) -> Result<(), StoreError> {
        self.run("ping the database", |c| {
            Box::pin(async move {
                prepared::query_one(c, "SELECT 1", &[]).await?;
                Ok(())
            })
        })
        .await
    }

    async fn census(
        &self,
        online_after: Timestamp,
        lapsed_before: Timestamp,
    ) -> Result<Census, StoreError> {
        let (online_after, lapsed_before) = (rows::at(online_after), rows::at(lapsed_before));
        self.run("count devices, commands and mail", |c| {
            Box::pin(async move {
                let row = prepared::query_one(c, DEVICES_AND_OUTBOX, &[&online_after]).await?;
                let [devices, devices_online, outbox_backlog] =
                    [0, 1, 2].map(|column| row.try_get::<_, i64>(column).map(tally));
                let mut commands = CommandCounts::default();
                for group in prepared::query(c, COMMANDS, &[&lapsed_before]).await? {
                    let status = match group.try_get::<_, Option<String>>(0)? {
                        None => None,
                        Some(code) => Some(CommandStatus::from_code(&code).ok_or_else(|| {
                            StoreError::message(format!(
                                "a stored row is invalid: unknown command status {code:?}"
                            ))
                        })?),
                    };
                    commands.add(
                        CommandState::of(status, group.try_get(1)?, group.try_get(2)?),
                        tally(group.try_get(3)?),
                    );
                }
                Ok(Census {
                    devices: devices?,
                    devices_online: devices_online?,
                    commands,
                    outbox_backlog: outbox_backlog?,
                })
            })
        })
        .await
    }
}

/// A count as PostgreSQL gives it (a `bigint`, never negative).
fn tally(count: i64) -> u64 {
    u64::try_from(count).unwrap_or_default()
}
