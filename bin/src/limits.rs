//! Where the limits that instances on one database share are counted: the
//! rate budgets (throttle, password changes) and the open long polls of each
//! device. On PostgreSQL, in the database, so every instance counts against
//! the same budgets; on SQLite (one instance), in this process's memory
//! (docs/operations.md, "What is shared, what is per instance").

use crate::wiring::Database;
use adapters_http::{LongPolls, MemoryRateLimits};
use adapters_postgres::PgLongPolls;
use application::ports::{LongPollRegistry, RateLimits};
use std::sync::Arc;

/// The rate budgets and the long-poll registry of one server.
#[derive(Clone)]
pub struct Limits {
    /// Rate budgets per key.
    pub rates: Arc<dyn RateLimits>,
    /// The open long polls of each device.
    pub long_polls: Arc<dyn LongPollRegistry>,
}

impl Limits {
    /// The limits of the database's store.
    pub fn of(database: &Database) -> Self {
        match database {
            Database::Sqlite(_) => Self {
                rates: Arc::new(MemoryRateLimits::default()),
                long_polls: Arc::new(LongPolls::default()),
            },
            Database::Postgres(store) => Self {
                rates: Arc::new(store.clone()),
                long_polls: Arc::new(PgLongPolls::new(store.clone())),
            },
        }
    }

    /// Forgets budgets that are whole again and long polls left behind by
    /// instances that stopped; failures are logged (the next round tries again).
    pub async fn forget_idle(&self) {
        if let Err(error) = self.rates.forget_idle().await {
            tracing::warn!(error = ?error, "cannot forget idle rate budgets");
        }
        if let Err(error) = self.long_polls.forget_stale().await {
            tracing::warn!(error = ?error, "cannot forget stale long polls");
        }
    }
}
