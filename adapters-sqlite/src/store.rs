//! The connection pool, its per-connection settings, and migrations.

use crate::devices::HeartbeatWriter;
use adapters_wakeups::Wakeups;
use application::StoreError;
use domain::{AccountId, Serial};
use r2d2::Pool;
use r2d2_sqlite::SqliteConnectionManager;
use rusqlite::Connection;
use rusqlite::config::DbConfig;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};
use thiserror::Error;
use tokio::sync::{Mutex, Notify, Semaphore};

mod backup;
mod checkpoint;
mod file;
mod grouped;
mod readers;
mod transfer;

pub use backup::{BackupInfo, FileError, restore};
use readers::Readers;

mod embedded {
    refinery::embed_migrations!("migrations");
}

/// How long a connection waits for another writer before giving up.
const BUSY_TIMEOUT: Duration = Duration::from_secs(10);
/// Connections in the pool (and blocking tasks at once).
const POOL_SIZE: u32 = 8;
/// The histogram of the seconds each unit of work waited for its pooled
/// connection (a permit, then the pool), through the `metrics` facade.
pub(crate) const POOL_WAIT: &str = "devmgr_db_pool_wait_seconds";

/// The database could not be opened or migrated.
#[derive(Debug, Error)]
pub enum OpenError {
    /// The pool could not open a connection.
    #[error("cannot open the SQLite database {path}: {source}")]
    Pool {
        /// The database file.
        path: PathBuf,
        /// Cause.
        source: r2d2::Error,
    },
    /// WAL mode could not be switched on.
    #[error("cannot open the SQLite database {path}: {source}")]
    Wal {
        /// The database file.
        path: PathBuf,
        /// Cause.
        source: rusqlite::Error,
    },
    /// A migration failed.
    #[error("cannot migrate the SQLite database: {0}")]
    Migrate(String),
    /// The file could not be created or made private.
    #[error("cannot make the SQLite database {path} private: {source}")]
    Private {
        /// The database file.
        path: PathBuf,
        /// Cause.
        source: std::io::Error,
    },
}

/// A pool of connections to one SQLite file; implements every repository port.
#[derive(Clone)]
pub struct SqliteStore {
    pool: Pool<SqliteConnectionManager>,
    readers: Arc<Readers>,
    /// Writes heartbeats together; started by the first heartbeat.
    heartbeats: Arc<OnceLock<Option<HeartbeatWriter>>>,
    /// Commits grouped writes together; started by the first.
    grouped: Arc<OnceLock<Option<grouped::GroupedWriter>>>,
    /// Truncates the WAL once a minute while the store lives.
    _checkpoints: Arc<Option<checkpoint::Checkpoints>>,
    permits: Arc<Semaphore>,
    /// Writers of this process take turns here ([`write`](Self::write)).
    writers: Arc<Mutex<()>>,
    mail_queued: Arc<Notify>,
    /// Wakes the long polls of a device when a command is queued.
    pub(crate) wakeups: Arc<Wakeups<Serial>>,
    /// Wakes the consoles watching an account's fleet.
    pub(crate) fleets: Arc<Wakeups<AccountId>>,
}

impl std::fmt::Debug for SqliteStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SqliteStore").finish_non_exhaustive()
    }
}

impl SqliteStore {
    /// Opens (creating if needed) the database file. WAL is switched on once
    /// here; every pooled connection gets the busy timeout, foreign keys and the
    /// SQL functions of device searches.
    /// The file (with its `-wal` and `-shm`, which SQLite creates with the
    /// file's mode) is readable by its owner only: it holds install tokens.
    /// Does not migrate.
    pub fn open(path: &Path) -> Result<Self, OpenError> {
        file::make_private(path).map_err(|source| OpenError::Private {
            path: path.to_owned(),
            source,
        })?;
        file::enable_wal(path).map_err(|source| OpenError::Wal {
            path: path.to_owned(),
            source,
        })?;
        let checkpoints = checkpoint::start(path);
        let thread_checkpoints = checkpoints.is_some();
        let manager = SqliteConnectionManager::file(path).with_init(move |conn| {
            conn.busy_handler(Some(wait_for_the_writer))?;
            keep_plans(conn)?;
            crate::devices::register_functions(conn)?;
            if thread_checkpoints {
                conn.pragma_update(None, "wal_autocheckpoint", checkpoint::WRITER_PAGES)?;
            }
            conn.execute_batch("PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON;")
        });
        let pool = Pool::builder()
            .max_size(POOL_SIZE)
            // r2d2 runs `SELECT 1` on every checkout by default, a check for
            // connections a network can break: a file's cannot, and the
            // statement was parsed anew each time (2 % of the writer
            // thread's time under reboots).
            .test_on_check_out(false)
            .build(manager)
            .map_err(|source| OpenError::Pool {
                path: path.to_owned(),
                source,
            })?;
        Ok(Self {
            pool,
            readers: Arc::new(Readers::new(path)),
            heartbeats: Arc::default(),
            grouped: Arc::default(),
            _checkpoints: Arc::new(checkpoints),
            permits: Arc::new(Semaphore::new(POOL_SIZE as usize)),
            writers: Arc::default(),
            mail_queued: Arc::new(Notify::new()),
            wakeups: Arc::default(),
            fleets: Arc::default(),
        })
    }

    /// Creates or upgrades the schema; returns the schema version now in force.
    /// Safe to run from several processes at once: a loser retries and finds
    /// the work done.
    pub fn migrate(&self) -> Result<i32, OpenError> {
        let mut last_error = String::new();
        for attempt in 0..5 {
            if attempt > 0 {
                std::thread::sleep(Duration::from_millis(200 * attempt));
            }
            let mut conn = self
                .pool
                .get()
                .map_err(|e| OpenError::Migrate(e.to_string()))?;
            match embedded::migrations::runner()
                .set_grouped(true)
                .run(&mut *conn)
            {
                Ok(_) => return Ok(schema_version(&conn)),
                Err(e) => last_error = e.to_string(),
            }
        }
        Err(OpenError::Migrate(last_error))
    }

    /// Tells the outbox worker of this process that mail was committed.
    pub(crate) fn wake_mail_worker(&self) {
        self.mail_queued.notify_one();
    }

    /// Resolves when [`wake_mail_worker`](Self::wake_mail_worker) is called
    /// (or was, since the last wait).
    pub(crate) async fn mail_queued(&self) {
        self.mail_queued.notified().await;
    }

    /// Runs `work` with a pooled connection on the blocking pool.
    pub(crate) async fn run<T, F>(&self, what: &'static str, work: F) -> Result<T, StoreError>
    where
        T: Send + 'static,
        F: FnOnce(&mut Connection) -> rusqlite::Result<T> + Send + 'static,
    {
        self.run_mapped(what, move |conn| work(conn).map_err(Failure::Sql))
            .await
    }

    /// Like [`run`](Self::run), for work that writes: the writers of this
    /// process take turns, in order, before they take a connection, instead
    /// of all taking one and trying SQLite's write lock over and over (on a
    /// 2-core machine each try is a thread woken up, and the holder of the
    /// lock waits for a core). A turn not given within [`BUSY_TIMEOUT`] is
    /// taken anyway: SQLite's lock still decides.
    pub(crate) async fn write<T, F>(&self, what: &'static str, work: F) -> Result<T, StoreError>
    where
        T: Send + 'static,
        F: FnOnce(&mut Connection) -> rusqlite::Result<T> + Send + 'static,
    {
        self.write_mapped(what, move |conn| work(conn).map_err(Failure::Sql))
            .await
    }

    /// [`write`](Self::write) for work that can fail with a domain outcome,
    /// as [`run_mapped`](Self::run_mapped).
    pub(crate) async fn write_mapped<T, E, F>(&self, what: &'static str, work: F) -> Result<T, E>
    where
        T: Send + 'static,
        E: From<StoreError> + Send + 'static,
        F: FnOnce(&mut Connection) -> Result<T, Failure<E>> + Send + 'static,
    {
        let _turn = tokio::time::timeout(BUSY_TIMEOUT, self.writers.lock())
            .await
            .ok();
        self.run_mapped(what, work).await
    }

    /// The thread that writes heartbeats together, started on first use;
    /// `None` if it could not be started.
    pub(crate) fn heartbeat_writer(&self) -> Option<&HeartbeatWriter> {
        self.readers.leave_view_here();
        self.heartbeats
            .get_or_init(|| HeartbeatWriter::start(self.pool.clone()).ok())
            .as_ref()
    }

    /// Runs a short read (`work` must only read) on this thread's own
    /// connection at once, or on the blocking pool like [`run`](Self::run)
    /// when it cannot be done here within the bounds of
    /// [`Readers`](readers::Readers): no waiting for a lock, a small budget
    /// of steps.
    pub(crate) async fn read<T, F>(&self, what: &'static str, work: F) -> Result<T, StoreError>
    where
        T: Send + 'static,
        F: Fn(&Connection) -> rusqlite::Result<T> + Send + 'static,
    {
        if let Some(outcome) = self.readers.try_read(&work) {
            return outcome.map_err(|e| StoreError::new(what, e));
        }
        self.run(what, move |conn| work(conn)).await
    }

    /// Like [`run`](Self::run), for work that can fail with a domain outcome `E`
    /// (a duplicate, say) besides SQLite errors. Records how long the work
    /// waited for its connection ([`POOL_WAIT`]). Ends the view's read
    /// transaction on this thread first, as every write does (`store/readers.rs`).
    pub(crate) async fn run_mapped<T, E, F>(&self, what: &'static str, work: F) -> Result<T, E>
    where
        T: Send + 'static,
        E: From<StoreError> + Send + 'static,
        F: FnOnce(&mut Connection) -> Result<T, Failure<E>> + Send + 'static,
    {
        self.readers.leave_view_here();
        let asked = Instant::now();
        let _permit = self
            .permits
            .acquire()
            .await
            .map_err(|e| StoreError::new("database is shutting down", e))?;
        let pool = self.pool.clone();
        let outcome = tokio::task::spawn_blocking(move || {
            let conn = pool.get();
            metrics::histogram!(POOL_WAIT).record(asked.elapsed().as_secs_f64());
            let mut conn = conn.map_err(|e| Failure::Store(StoreError::new(what, e)))?;
            work(&mut conn)
        })
        .await
        .map_err(|e| StoreError::new(what, e))?;
        outcome.map_err(|failure| failure.into_outcome(what))
    }
}

/// The busy handler of pooled connections: called with how many times it
/// was called before for the same lock, it waits briefly and answers whether
/// to try again (until about [`BUSY_TIMEOUT`]).
///
/// SQLite's own handler (`busy_timeout`) sleeps 1, 2, 5, 10, … ms between
/// tries, so a write that finds another one committing sleeps well past the
/// other's end; transactions here take tens of microseconds, so the first
/// thousand tries wait 50 µs each, the rest 1 ms.
fn wait_for_the_writer(tries: i32) -> bool {
    const SHORT_TRIES: u32 = 1_000;
    const SHORT: Duration = Duration::from_micros(50);
    const LONG: Duration = Duration::from_millis(1);
    let tries = tries.unsigned_abs();
    let waited = if tries < SHORT_TRIES {
        SHORT * tries
    } else {
        SHORT * SHORT_TRIES + LONG * (tries - SHORT_TRIES)
    };
    if waited >= BUSY_TIMEOUT {
        return false;
    }
    std::thread::sleep(if tries < SHORT_TRIES { SHORT } else { LONG });
    true
}

/// Keeps each cached statement's plan whatever its values: without this,
/// SQLite prepares again, on every run, any statement whose plan could
/// depend on a bound value (`LIMIT ?` among them), which cost listings a
/// fifth of their time. No statement here lets values choose an index.
pub(crate) fn keep_plans(conn: &Connection) -> rusqlite::Result<()> {
    conn.set_db_config(DbConfig::SQLITE_DBCONFIG_ENABLE_QPSG, true)
        .map(|_| ())
}

/// What a unit of work can fail with.
pub(crate) enum Failure<E> {
    /// A domain outcome to hand back as it is.
    Outcome(E),
    /// A SQLite error.
    Sql(rusqlite::Error),
    /// Any other infrastructure failure.
    Store(StoreError),
}

impl<E: From<StoreError>> Failure<E> {
    /// What the caller of a unit of work doing `what` gets for this failure.
    pub(crate) fn into_outcome(self, what: &'static str) -> E {
        match self {
            Failure::Outcome(e) => e,
            Failure::Sql(e) => StoreError::new(what, e).into(),
            Failure::Store(e) => e.into(),
        }
    }
}

impl<E> From<rusqlite::Error> for Failure<E> {
    fn from(e: rusqlite::Error) -> Self {
        Failure::Sql(e)
    }
}

/// Whether an error is a UNIQUE violation on `column` (as `table.column`).
pub(crate) fn is_unique_violation(error: &rusqlite::Error, column: &str) -> bool {
    matches!(
        error,
        rusqlite::Error::SqliteFailure(e, Some(message))
            if e.code == rusqlite::ErrorCode::ConstraintViolation && message.contains(column)
    )
}

fn schema_version(conn: &Connection) -> i32 {
    conn.query_row(
        "SELECT COALESCE(MAX(version), 0) FROM refinery_schema_history",
        [],
        |row| row.get(0),
    )
    .unwrap_or(0)
}
