//! The repository contract (`tests/store-contract`), run on SQLite: each test
//! on a fresh, migrated database file in a scratch directory.

use adapters_sqlite::SqliteStore;
use store_contract::Opened;

/// A fresh SQLite store: a new file in a scratch directory, migrated. The
/// directory goes when the value does.
async fn sqlite() -> Opened<SqliteStore> {
    tokio::task::spawn_blocking(|| {
        let dir = tempfile::tempdir().expect("cannot make a scratch directory");
        let store = SqliteStore::open(&dir.path().join("db.sqlite"))
            .expect("cannot open a fresh SQLite database");
        store
            .migrate()
            .expect("cannot migrate a fresh SQLite database");
        Opened::new(store, dir)
    })
    .await
    .expect("opening a SQLite store panicked")
}

store_contract::suite!(sqlite);
