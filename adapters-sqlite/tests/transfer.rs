//! The transfer port's contract (`store_contract::transfer`) on SQLite: a
//! copy from one fresh database file into another.

use adapters_sqlite::SqliteStore;
use store_contract::transfer;

/// A fresh, migrated store in its own scratch directory (kept with it).
async fn sqlite() -> (SqliteStore, tempfile::TempDir) {
    tokio::task::spawn_blocking(|| {
        let dir = tempfile::tempdir().unwrap();
        let store = SqliteStore::open(&dir.path().join("db.sqlite")).unwrap();
        store.migrate().unwrap();
        (store, dir)
    })
    .await
    .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_copy_keeps_every_row_and_new_rows_follow() {
    let ((source, _a), (target, _b)) = (sqlite().await, sqlite().await);
    transfer::a_copy_keeps_every_row_and_new_rows_follow(&source, &target).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_target_with_rows_is_refused_and_an_abandoned_import_leaves_nothing() {
    let ((source, _a), (target, _b)) = (sqlite().await, sqlite().await);
    transfer::a_target_with_rows_is_refused_and_an_abandoned_import_leaves_nothing(
        &source, &target,
    )
    .await;
}
