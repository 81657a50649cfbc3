//! Several instances on one database: what one announces, the others hear
//! (LISTEN/NOTIFY). Each instance is a `PgStore` of its own: its own pool and
//! its own listening session. Without `DEVMGR_TEST_POSTGRES_URL` at build
//! time the tests are reported as ignored (see `build.rs`).

use adapters_postgres::PgStore;
use application::ports::FleetSignals;
use domain::AccountId;
use std::time::Duration;

/// How soon an announcement reaches another instance.
const ACROSS: Duration = Duration::from_secs(2);
/// A wait that is not woken must still be waiting after this.
const QUIET_PERIOD: Duration = Duration::from_millis(300);
/// Longer than any wait of these tests.
const LONG: Duration = Duration::from_secs(30);

/// Two instances on one fresh database, and the database (dropped last).
async fn two_instances() -> (PgStore, PgStore, scratch_postgres::TestDatabase) {
    let database = tokio::task::spawn_blocking(scratch_postgres::TestDatabase::create)
        .await
        .expect("creating a PostgreSQL database panicked");
    let a = PgStore::connect(database.url()).await.unwrap();
    a.migrate().await.unwrap();
    let b = PgStore::connect(database.url()).await.unwrap();
    (a, b, database)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    not(postgres_tests),
    ignore = "PostgreSQL tests skipped: set DEVMGR_TEST_POSTGRES_URL=postgres://USER@HOST:PORT/DB (a server where USER may create databases) and build again"
)]
async fn an_announcement_on_one_instance_wakes_a_watch_on_another() {
    let (a, b, _database) = two_instances().await;
    let ann = AccountId(1);

    let mut on_b = b.watch(ann);
    a.announce(ann).await;
    let woken = tokio::time::timeout(ACROSS, on_b.wait(LONG)).await;
    assert!(woken.is_ok(), "instance B did not hear A's announcement");

    // And the other way round, while waiting.
    let mut on_a = a.watch(ann);
    let waiting = tokio::spawn(async move { tokio::time::timeout(ACROSS, on_a.wait(LONG)).await });
    tokio::time::sleep(Duration::from_millis(50)).await;
    b.announce(ann).await;
    assert!(
        waiting.await.unwrap().is_ok(),
        "instance A did not hear B's announcement"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    not(postgres_tests),
    ignore = "PostgreSQL tests skipped: set DEVMGR_TEST_POSTGRES_URL=postgres://USER@HOST:PORT/DB (a server where USER may create databases) and build again"
)]
async fn an_announcement_wakes_only_its_accounts_watchers_once_on_every_instance() {
    let (a, b, _database) = two_instances().await;
    let (ann, bob) = (AccountId(1), AccountId(2));

    let mut ann_on_a = a.watch(ann);
    let mut ann_on_b = b.watch(ann);
    let mut bob_on_b = b.watch(bob);
    a.announce(ann).await;
    for (instance, listener) in [("A", &mut ann_on_a), ("B", &mut ann_on_b)] {
        let woken = tokio::time::timeout(ACROSS, listener.wait(LONG)).await;
        assert!(woken.is_ok(), "ann's watcher on {instance} was not woken");
    }
    // Its own notification, coming back to A, does not wake A's watcher again.
    for (instance, listener) in [("A", &mut ann_on_a), ("B", &mut ann_on_b)] {
        let woken = tokio::time::timeout(QUIET_PERIOD, listener.wait(LONG)).await;
        assert!(
            woken.is_err(),
            "ann's watcher on {instance} was woken twice"
        );
    }
    let woken = tokio::time::timeout(QUIET_PERIOD, bob_on_b.wait(LONG)).await;
    assert!(
        woken.is_err(),
        "bob's watcher was woken by ann's announcement"
    );
}
