//! Chooses an adapter for every port.

use crate::CommandError;
use crate::database_url::DatabaseUrl;
use adapters_postgres::PgStore;
use adapters_sqlite::SqliteStore;
use adapters_system::{Argon2Hasher, OsRandom};
use application::ports::{Clock, EventData, MailLinks, Mailer, WebhookTransport};
use application::{Ports, Services, Settings};
use std::sync::Arc;

/// The database of the URL, with the adapter that speaks to it.
pub enum Database {
    /// An embedded SQLite file.
    Sqlite(SqliteStore),
    /// A PostgreSQL database, possibly shared by several instances.
    Postgres(PgStore),
}

/// Runs start-up work that blocks (file I/O, SQLite, a first Argon2 hash) on
/// the blocking pool, never on an async worker.
async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> Result<T, CommandError> + Send + 'static,
) -> Result<T, CommandError> {
    actix_web::rt::task::spawn_blocking(work)
        .await
        .map_err(CommandError::from_display)?
}

/// Opens and migrates the database named by the URL; returns the schema version.
pub async fn open_store(database_url: &str) -> Result<(Database, i32), CommandError> {
    match DatabaseUrl::parse(database_url).map_err(CommandError)? {
        DatabaseUrl::Sqlite(path) => {
            blocking(move || {
                let store = SqliteStore::open(&path).map_err(CommandError::from_display)?;
                let version = store.migrate().map_err(CommandError::from_display)?;
                Ok((Database::Sqlite(store), version))
            })
            .await
        }
        DatabaseUrl::Postgres(url) => {
            let store = PgStore::connect(&url)
                .await
                .map_err(CommandError::from_display)?;
            let version = store.migrate().await.map_err(CommandError::from_display)?;
            Ok((Database::Postgres(store), version))
        }
    }
}

/// How much password hashing may run and wait at once.
#[derive(Debug, Clone, Copy)]
pub struct HashLimits {
    /// Hashes computed at once, each on a thread of its own that keeps its
    /// 19 MiB of Argon2 memory.
    pub threads: usize,
    /// Hashes that may wait for one of those threads; one more is refused as busy.
    pub max_queue: usize,
}

impl Default for HashLimits {
    /// One thread fewer than the CPU cores (at least one), leaving a core
    /// free for everything else while a login burst hashes; the default queue.
    fn default() -> Self {
        let cores = std::thread::available_parallelism().map_or(1, usize::from);
        Self {
            threads: cores.saturating_sub(1).max(1),
            max_queue: adapters_system::DEFAULT_MAX_QUEUE,
        }
    }
}

/// Argon2id within `hashing`'s limits (its threads start now).
pub async fn hasher(hashing: HashLimits) -> Result<Arc<Argon2Hasher>, CommandError> {
    let HashLimits { threads, max_queue } = hashing;
    let hasher =
        blocking(move || Ok(Argon2Hasher::owasp(threads).with_max_queue(max_queue))).await?;
    Ok(Arc::new(hasher))
}

/// The application over the database, the given mailer, `hasher`, the
/// system's randomness and `clock`. Mail links come from `links`; webhook
/// posts go through `webhooks`' transport, carrying its event data.
pub fn application(
    database: Database,
    mailer: Arc<dyn Mailer>,
    settings: Settings,
    hasher: Arc<Argon2Hasher>,
    links: Arc<dyn MailLinks>,
    clock: Arc<dyn Clock>,
    webhooks: (Arc<dyn WebhookTransport>, Arc<dyn EventData>),
) -> Services {
    let random = Arc::new(OsRandom);
    // Either store is every repository port at once (`application::ports::Store`).
    let ports = match database {
        Database::Sqlite(store) => Ports::over_store(
            Arc::new(store),
            mailer,
            links,
            hasher,
            clock,
            random,
            webhooks,
        ),
        Database::Postgres(store) => Ports::over_store(
            Arc::new(store),
            mailer,
            links,
            hasher,
            clock,
            random,
            webhooks,
        ),
    };
    Services::new(ports, settings)
}
