//! The connection pool, units of work retried when PostgreSQL asks for it
//! and bounded in time ([`work`]), and migrations.

use crate::notifications::{self, Notifications, Waiters};
use crate::tls::{self, Tls, Unusable};
use adapters_wakeups::Wakeups;
use deadpool_postgres::{
    Manager, ManagerConfig, Pool, PoolError, RecyclingMethod, Runtime, Timeouts,
};
use domain::{AccountId, Serial};
use std::hash::{BuildHasher, Hasher, RandomState};
use std::sync::Arc;
use std::time::Duration;
use thiserror::Error;
use tokio::sync::Notify;
use work::{CONNECT_TIMEOUT, CREATE_TIMEOUT, POOL_WAIT, RECYCLE_TIMEOUT};

pub(crate) use work::{BULK_WORK_TIMEOUT, Failure, violates};

mod busy;
mod marks;
mod outage;
mod transfer;
mod work;

pub use marks::{ExclusiveClaim, MarkError, ServingMark};

mod embedded {
    refinery::embed_migrations!("migrations");
}

/// Connections in the pool of one process.
const POOL_SIZE: usize = 16;
/// How long the first connection, at start-up, may take: a server starting
/// up beside devmgr gets time to accept.
const STARTUP_WAIT: Duration = Duration::from_secs(10);
/// The advisory lock that lets one process at a time migrate ("devmgr").
const MIGRATION_LOCK: i64 = 0x0000_6465_766d_6772;

/// The database could not be reached, used or migrated.
#[derive(Debug, Error)]
pub enum OpenError {
    /// The URL is not a PostgreSQL connection URL.
    #[error("the PostgreSQL URL is not valid: {0}")]
    Url(String),
    /// The URL's TLS settings cannot be used (a root certificate file
    /// that cannot be read).
    #[error("the TLS settings of the PostgreSQL URL cannot be used: {0}")]
    Tls(String),
    /// The server refused, could not be reached, or failed the checks of
    /// its certificate.
    #[error("cannot connect to PostgreSQL at {at}: {why}")]
    Connect {
        /// `host:port` (every host the URL names).
        at: String,
        /// Why, in plain words.
        why: String,
    },
    /// A migration failed.
    #[error("cannot migrate the PostgreSQL database: {0}")]
    Migrate(String),
}

/// A pool of connections to one PostgreSQL database; implements every
/// repository port. Clones share the pool and the wake-ups.
#[derive(Clone)]
pub struct PgStore {
    config: Arc<tokio_postgres::Config>,
    tls: Tls,
    pool: Pool,
    /// Wakes the long polls of a device when a command is queued.
    pub(crate) wakeups: Arc<Wakeups<Serial>>,
    /// Wakes the consoles watching an account's fleet.
    pub(crate) fleets: Arc<Wakeups<AccountId>>,
    /// Marks this process's fleet notifications (see [`Waiters::origin`]).
    pub(crate) origin: u64,
    mail_queued: Arc<Notify>,
    reach: Arc<outage::Reach>,
    notifications: Arc<Notifications>,
}

impl std::fmt::Debug for PgStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The configuration holds the password.
        f.debug_struct("PgStore").finish_non_exhaustive()
    }
}

impl PgStore {
    /// Connects to the database of a `postgres://` URL (or libpq's
    /// key=value string), over TLS as its `sslmode` and `sslrootcert` say
    /// ([`tls`]), and starts listening for the notifications other
    /// processes on the database send (commands queued, mail queued, fleets
    /// changed). Does not migrate.
    pub async fn connect(url: &str) -> Result<Self, OpenError> {
        let (mut config, tls) = Tls::configure(url).map_err(|unusable| match unusable {
            Unusable::Url(why) => OpenError::Url(why),
            Unusable::Tls(why) => OpenError::Tls(why),
        })?;
        if config.get_connect_timeout().is_none() {
            config.connect_timeout(CONNECT_TIMEOUT);
        }
        let refused = |why: String| OpenError::Connect {
            at: tls::address(&config),
            why,
        };
        let manager = Manager::from_config(
            config.clone(),
            tls.connector(),
            ManagerConfig {
                recycling_method: RecyclingMethod::Fast,
            },
        );
        let pool = Pool::builder(manager)
            .max_size(POOL_SIZE)
            .runtime(Runtime::Tokio1)
            .wait_timeout(Some(POOL_WAIT))
            .create_timeout(Some(CREATE_TIMEOUT))
            .recycle_timeout(Some(RECYCLE_TIMEOUT))
            .build()
            .map_err(|e| refused(e.to_string()))?;
        // Fail now, with the cause, when the server cannot be used.
        let startup = Timeouts {
            wait: Some(STARTUP_WAIT),
            create: Some(STARTUP_WAIT),
            recycle: Some(STARTUP_WAIT),
        };
        drop(pool.timeout_get(&startup).await.map_err(|e| match e {
            PoolError::Backend(e) => refused(tls.explain(&e)),
            e => refused(e.to_string()),
        })?);
        let waiters = Waiters {
            commands: Arc::default(),
            fleets: Arc::default(),
            mail: Arc::new(Notify::new()),
            origin: RandomState::new().build_hasher().finish(),
        };
        let notifications = notifications::listen(&config, &tls, waiters.clone())
            .await
            .map_err(|e| refused(e.explain(&tls)))?;
        Ok(Self {
            config: Arc::new(config),
            tls,
            pool,
            wakeups: waiters.commands,
            fleets: waiters.fleets,
            origin: waiters.origin,
            mail_queued: waiters.mail,
            reach: Arc::default(),
            notifications: Arc::new(notifications),
        })
    }

    /// Creates or upgrades the schema; returns the schema version now in force.
    /// Processes starting together take turns (an advisory lock), so a
    /// latecomer finds the work done.
    pub async fn migrate(&self) -> Result<i32, OpenError> {
        let failed = |e: tokio_postgres::Error| OpenError::Migrate(self.tls.explain(&e));
        let connecting = self.config.connect(self.tls.connector()).await;
        let (mut client, connection) = connecting.map_err(failed)?;
        let driver = tokio::spawn(connection);
        client
            .execute("SELECT pg_advisory_lock($1)", &[&MIGRATION_LOCK])
            .await
            .map_err(failed)?;
        let migrated = embedded::migrations::runner()
            .set_grouped(true)
            .run_async(&mut client)
            .await
            .map_err(|e| OpenError::Migrate(tls::with_causes(&e)));
        let version = match migrated {
            Ok(_) => client
                .query_one(
                    "SELECT COALESCE(MAX(version), 0) FROM refinery_schema_history",
                    &[],
                )
                .await
                .map(|row| row.get(0))
                .map_err(failed),
            Err(e) => Err(e),
        };
        // Closing the session releases the lock.
        drop(client);
        let _ = driver.await;
        version
    }

    /// Wakes this process's outbox worker (other processes hear the
    /// notification sent with the mail).
    pub(crate) fn wake_mail_worker(&self) {
        self.mail_queued.notify_one();
    }

    /// Resolves once mail may have been queued, by this process or another.
    pub(crate) async fn mail_queued(&self) {
        self.mail_queued.notified().await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use application::StoreError;
    use std::sync::atomic::{AtomicU32, Ordering};
    use tokio::sync::Barrier;

    /// Updates row `first`, waits for the other transaction to have updated
    /// its first row (on the first attempt only), then updates row `second`.
    async fn cross_update(
        store: &PgStore,
        first: i32,
        second: i32,
        barrier: &Arc<Barrier>,
        attempts: &AtomicU32,
    ) -> Result<(), StoreError> {
        store
            .transaction("cross update", |tx| {
                let attempt = attempts.fetch_add(1, Ordering::SeqCst) + 1;
                let barrier = Arc::clone(barrier);
                Box::pin(async move {
                    let update = "UPDATE pairs SET n = n + 1 WHERE id = $1";
                    tx.execute(update, &[&first]).await?;
                    if attempt == 1 {
                        barrier.wait().await;
                    }
                    tx.execute(update, &[&second]).await?;
                    Ok(())
                })
            })
            .await
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    #[cfg_attr(
        not(postgres_tests),
        ignore = "PostgreSQL tests skipped: set DEVMGR_TEST_POSTGRES_URL=postgres://USER@HOST:PORT/DB (a server where USER may create databases) and build again"
    )]
    async fn a_transaction_aborted_by_a_deadlock_runs_again_and_succeeds() {
        let database = tokio::task::spawn_blocking(scratch_postgres::TestDatabase::create)
            .await
            .unwrap();
        database.execute("CREATE TABLE pairs (id INTEGER PRIMARY KEY, n INTEGER NOT NULL); INSERT INTO pairs VALUES (1, 0), (2, 0)");
        let store = PgStore::connect(database.url()).await.unwrap();
        let barrier = Arc::new(Barrier::new(2));
        let (one, two) = (AtomicU32::new(0), AtomicU32::new(0));
        // Each locks one row, then wants the other's: PostgreSQL aborts one.
        let (a, b) = tokio::join!(
            cross_update(&store, 1, 2, &barrier, &one),
            cross_update(&store, 2, 1, &barrier, &two),
        );
        a.unwrap();
        b.unwrap();
        let attempts = (one.load(Ordering::SeqCst), two.load(Ordering::SeqCst));
        assert!(
            attempts == (1, 2) || attempts == (2, 1),
            "one transaction ran again: {attempts:?}"
        );
        let total: i64 = store
            .run("sum", |c| {
                Box::pin(async move {
                    Ok(c.query_one("SELECT SUM(n) FROM pairs", &[])
                        .await?
                        .try_get(0)?)
                })
            })
            .await
            .unwrap();
        assert_eq!(total, 4, "both transactions committed once each");
    }
}
