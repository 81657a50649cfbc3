//! Chooses an adapter for every port.

use crate::CommandError;
use crate::database_url::DatabaseUrl;
use adapters_sqlite::SqliteStore;
use adapters_system::{Argon2Hasher, OsRandom, SystemClock};
use application::ports::Mailer;
use application::{DevMgr, Ports, Settings};
use std::sync::Arc;

/// Opens and migrates the database named by the URL.
pub fn open_store(database_url: &str) -> Result<(SqliteStore, i32), CommandError> {
    let DatabaseUrl::Sqlite(path) = DatabaseUrl::parse(database_url).map_err(CommandError)?;
    let store = SqliteStore::open(&path).map_err(CommandError::from_display)?;
    let version = store.migrate().map_err(CommandError::from_display)?;
    Ok((store, version))
}

/// The application over SQLite, the given mailer, Argon2id and the system.
pub fn application(store: SqliteStore, mailer: Arc<dyn Mailer>, settings: Settings) -> DevMgr {
    let store = Arc::new(store);
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    DevMgr::new(
        Ports {
            accounts: store.clone(),
            tokens: store.clone(),
            keys: store.clone(),
            devices: store.clone(),
            commands: store,
            mailer,
            // Leave a core free for everything else while a login burst hashes.
            hasher: Arc::new(Argon2Hasher::owasp(cores.saturating_sub(1).max(1))),
            clock: Arc::new(SystemClock),
            random: Arc::new(OsRandom),
        },
        settings,
    )
}
