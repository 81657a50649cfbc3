//! Chooses an adapter for every port.

use crate::CommandError;
use crate::database_url::DatabaseUrl;
use adapters_sqlite::SqliteStore;
use adapters_system::{Argon2Hasher, OsRandom, SystemClock};
use application::ports::Mailer;
use application::{DevMgr, Ports, Settings};
use std::sync::Arc;

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
pub async fn open_store(database_url: &str) -> Result<(SqliteStore, i32), CommandError> {
    let DatabaseUrl::Sqlite(path) = DatabaseUrl::parse(database_url).map_err(CommandError)?;
    blocking(move || {
        let store = SqliteStore::open(&path).map_err(CommandError::from_display)?;
        let version = store.migrate().map_err(CommandError::from_display)?;
        Ok((store, version))
    })
    .await
}

/// The application over SQLite, the given mailer, Argon2id and the system.
pub async fn application(
    store: SqliteStore,
    mailer: Arc<dyn Mailer>,
    settings: Settings,
) -> Result<DevMgr, CommandError> {
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    // Leave a core free for everything else while a login burst hashes.
    let hasher = blocking(move || Ok(Argon2Hasher::owasp(cores.saturating_sub(1).max(1)))).await?;
    let store = Arc::new(store);
    Ok(DevMgr::new(
        Ports {
            accounts: store.clone(),
            tokens: store.clone(),
            keys: store.clone(),
            devices: store.clone(),
            commands: store.clone(),
            outbox: store.clone(),
            login_attempts: store,
            mailer,
            hasher: Arc::new(hasher),
            clock: Arc::new(SystemClock),
            random: Arc::new(OsRandom),
        },
        settings,
    ))
}
