//! Whether a server is using the database: each `devmgr serve` holds a
//! shared advisory lock on a session of its own for as long as it runs (and
//! takes it again when that session is lost); `devmgr copy-store` takes the
//! same lock exclusively, without waiting, so it refuses while a server
//! runs, and no server starts while it copies (docs/operations.md, "Moving
//! between stores"). A lock that PostgreSQL holds for a session is
//! released when the session ends, however the process ends.

use super::PgStore;
use application::StoreError;
use deadpool_postgres::{ClientWrapper, Object};
use std::time::Duration;
use thiserror::Error;
use tokio::task::JoinHandle;
use tokio::time::timeout;

/// The advisory lock that marks a database as served ("serves").
const SERVING_LOCK: i64 = 0x0000_7365_7276_6573;
/// How often the serving session is checked.
const CHECK_EVERY: Duration = Duration::from_secs(5);
/// The longest a check (or taking the lock again) may take.
const CHECK_TIMEOUT: Duration = Duration::from_secs(2);
/// The pause between attempts to take the mark again after losing it.
const RETAKE_PAUSE: Duration = Duration::from_secs(1);

/// The mark could not be taken.
#[derive(Debug, Error)]
pub enum MarkError {
    /// Another process holds it in a way that excludes this one.
    #[error("the database is in use")]
    Busy,
    /// The database failed.
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// A server's mark on the database, kept (and taken again after a lost
/// session) until dropped.
#[derive(Debug)]
pub struct ServingMark {
    keeper: JoinHandle<()>,
}

impl Drop for ServingMark {
    fn drop(&mut self) {
        // Ending the task closes its session, which releases the lock.
        self.keeper.abort();
    }
}

/// A tool's claim to be alone with the database, released when dropped.
pub struct ExclusiveClaim {
    _session: ClientWrapper,
}

impl std::fmt::Debug for ExclusiveClaim {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ExclusiveClaim").finish_non_exhaustive()
    }
}

impl PgStore {
    /// A connection of its own, out of the pool for good (closed when dropped).
    pub(super) async fn session(&self, what: &'static str) -> Result<ClientWrapper, StoreError> {
        let client = self
            .pool
            .get()
            .await
            .map_err(|e| StoreError::unreachable(what, e))?;
        Ok(Object::take(client))
    }

    /// Marks the database as used by this server until the mark is dropped;
    /// several servers may hold it at once. [`MarkError::Busy`] while a
    /// `copy-store` works on the database.
    pub async fn hold_serving_mark(&self) -> Result<ServingMark, MarkError> {
        let session = self.session("mark the database as served").await?;
        if !try_lock(&session, "SELECT pg_try_advisory_lock_shared($1)").await? {
            return Err(MarkError::Busy);
        }
        let keeper = tokio::spawn(keep(self.clone(), session));
        Ok(ServingMark { keeper })
    }

    /// Claims the database for a tool that must be alone with it.
    /// [`MarkError::Busy`] while a server (or another such tool) holds the mark.
    pub async fn claim_exclusive(&self) -> Result<ExclusiveClaim, MarkError> {
        let session = self.session("claim the database").await?;
        if !try_lock(&session, "SELECT pg_try_advisory_lock($1)").await? {
            return Err(MarkError::Busy);
        }
        Ok(ExclusiveClaim { _session: session })
    }
}

async fn try_lock(session: &ClientWrapper, statement: &str) -> Result<bool, StoreError> {
    let row = session
        .query_one(statement, &[&SERVING_LOCK])
        .await
        .map_err(|e| StoreError::new("take the advisory lock", e))?;
    row.try_get(0)
        .map_err(|e| StoreError::new("take the advisory lock", e))
}

/// Checks the serving session now and then; when it is gone (the database
/// restarted, the network broke), takes the mark again on a new one.
async fn keep(store: PgStore, mut session: ClientWrapper) {
    loop {
        tokio::time::sleep(CHECK_EVERY).await;
        let check = timeout(CHECK_TIMEOUT, session.simple_query("SELECT 1")).await;
        if matches!(check, Ok(Ok(_))) {
            continue;
        }
        tracing::warn!("lost the database session that marks it as served; taking the mark again");
        session = loop {
            tokio::time::sleep(RETAKE_PAUSE).await;
            let Ok(candidate) = store.session("mark the database as served").await else {
                continue;
            };
            let statement = "SELECT pg_try_advisory_lock_shared($1)";
            match timeout(CHECK_TIMEOUT, try_lock(&candidate, statement)).await {
                Ok(Ok(true)) => break candidate,
                Ok(Ok(false)) => tracing::warn!(
                    "a devmgr copy-store is working on the database this server uses"
                ),
                _ => {}
            }
        };
        tracing::info!("the database is marked as served again");
    }
}
