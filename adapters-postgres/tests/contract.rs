//! The repository contract (`tests/store-contract`), run on PostgreSQL: each
//! test on a fresh, migrated database of the server named by
//! `DEVMGR_TEST_POSTGRES_URL`. Without that variable at build time the tests
//! are reported as ignored (see `build.rs`).

use adapters_postgres::PgStore;
use store_contract::Opened;

/// A fresh PostgreSQL store: a new database on the server of
/// `DEVMGR_TEST_POSTGRES_URL`, migrated. The database is dropped when the
/// value goes.
async fn postgres() -> Opened<PgStore> {
    let database = tokio::task::spawn_blocking(scratch_postgres::TestDatabase::create)
        .await
        .expect("creating a PostgreSQL database panicked");
    let store = PgStore::connect(database.url())
        .await
        .expect("cannot connect to a fresh PostgreSQL database");
    store
        .migrate()
        .await
        .expect("cannot migrate a fresh PostgreSQL database");
    Opened::new(store, database)
}

store_contract::suite!(
    postgres,
    #[cfg_attr(
        not(postgres_tests),
        ignore = "PostgreSQL tests skipped: set DEVMGR_TEST_POSTGRES_URL=postgres://USER@HOST:PORT/DB (a server where USER may create databases) and build again"
    )]
);
