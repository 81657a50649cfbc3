//! The transfer port's contract (`store_contract::transfer`) on PostgreSQL:
//! a copy from one fresh database into another.

use adapters_postgres::PgStore;
use scratch_postgres::TestDatabase;
use store_contract::transfer;

/// A fresh, migrated store on a database of its own (dropped with it).
async fn postgres() -> (PgStore, TestDatabase) {
    let database = tokio::task::spawn_blocking(TestDatabase::create)
        .await
        .unwrap();
    let store = PgStore::connect(database.url()).await.unwrap();
    store.migrate().await.unwrap();
    (store, database)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    not(postgres_tests),
    ignore = "PostgreSQL tests skipped: set DEVMGR_TEST_POSTGRES_URL=postgres://USER@HOST:PORT/DB (a server where USER may create databases) and build again"
)]
async fn a_copy_keeps_every_row_and_new_rows_follow() {
    let ((source, _a), (target, _b)) = (postgres().await, postgres().await);
    transfer::a_copy_keeps_every_row_and_new_rows_follow(&source, &target).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    not(postgres_tests),
    ignore = "PostgreSQL tests skipped: set DEVMGR_TEST_POSTGRES_URL=postgres://USER@HOST:PORT/DB (a server where USER may create databases) and build again"
)]
async fn a_target_with_rows_is_refused_and_an_abandoned_import_leaves_nothing() {
    let ((source, _a), (target, _b)) = (postgres().await, postgres().await);
    transfer::a_target_with_rows_is_refused_and_an_abandoned_import_leaves_nothing(
        &source, &target,
    )
    .await;
}
