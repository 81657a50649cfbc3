//! The database goes away and comes back: a store reaching PostgreSQL
//! through a TCP proxy (`tests/tcp-proxy`) that the test cuts (a server
//! restarting: connections closed, new ones refused) or blackholes (a
//! network partition: nothing goes through, nothing is closed). While it is
//! away, every operation fails within 5 s as unavailable (503 for clients);
//! within 5 s of its return, everything works again, wake-ups across
//! instances included. Without `DEVMGR_TEST_POSTGRES_URL` at build time the
//! tests are reported as ignored (see `build.rs`).

use adapters_postgres::PgStore;
use application::StoreError;
use application::ports::{DeviceRepository, EmailKeyRepository, FleetSignals};
use domain::AccountId;
use domain::secret::SecretHash;
use std::time::Duration;
use tcp_proxy::TcpProxy;
use tokio::time::{Instant, timeout};

/// The longest any operation may take while the database is away.
const FAILS_WITHIN: Duration = Duration::from_secs(5);
/// How soon after the database is back everything must work again.
const BACK_WITHIN: Duration = Duration::from_secs(5);
/// Longer than any wait of these tests.
const LONG: Duration = Duration::from_secs(30);

/// A migrated fresh database, a store on it through a proxy (first) and a
/// store on it directly (second, for announcements), and the proxy.
struct Setup {
    through: PgStore,
    direct: PgStore,
    proxy: TcpProxy,
    database: scratch_postgres::TestDatabase,
}

async fn setup() -> Setup {
    let database = tokio::task::spawn_blocking(scratch_postgres::TestDatabase::create)
        .await
        .expect("creating a PostgreSQL database panicked");
    let direct = PgStore::connect(database.url()).await.unwrap();
    direct.migrate().await.unwrap();
    let proxy = TcpProxy::start(database.server_address()).await.unwrap();
    let through = PgStore::connect(&database.url_via(proxy.address()))
        .await
        .unwrap();
    Setup {
        through,
        direct,
        proxy,
        database,
    }
}

/// A read (one statement) and a write (a transaction), each timed; both
/// must end within [`FAILS_WITHIN`].
async fn read_and_write(store: &PgStore) -> [Result<(), StoreError>; 2] {
    let started = Instant::now();
    let read = store.list_for(AccountId(1)).await.map(drop);
    let write = store
        .verify_email(&SecretHash::of("no such key"), chrono::Utc::now())
        .await
        .map(drop);
    assert!(
        started.elapsed() < FAILS_WITHIN * 2,
        "a read and a write took {:?}",
        started.elapsed()
    );
    [read, write]
}

/// Asserts that operations fail as unavailable, each within [`FAILS_WITHIN`].
async fn fails_as_unavailable(store: &PgStore, what: &str) {
    for _ in 0..3 {
        let started = Instant::now();
        let outcome = store.list_for(AccountId(1)).await;
        let took = started.elapsed();
        let error = outcome.expect_err(&format!("{what}: a read succeeded"));
        assert!(error.is_unavailable(), "{what}: {error:?}");
        assert!(took < FAILS_WITHIN, "{what}: a read took {took:?}");

        let started = Instant::now();
        let outcome = store
            .verify_email(&SecretHash::of("no such key"), chrono::Utc::now())
            .await;
        let took = started.elapsed();
        let error = outcome.expect_err(&format!("{what}: a transaction succeeded"));
        assert!(error.is_unavailable(), "{what}: {error:?}");
        assert!(took < FAILS_WITHIN, "{what}: a transaction took {took:?}");
    }
}

/// Waits until a read and a write succeed; asserts it takes less than
/// [`BACK_WITHIN`] and that every failure meanwhile is unavailable.
async fn works_again(store: &PgStore, what: &str) {
    let back = Instant::now();
    loop {
        let outcomes = read_and_write(store).await;
        if outcomes.iter().all(Result::is_ok) {
            return;
        }
        for error in outcomes.into_iter().filter_map(Result::err) {
            assert!(error.is_unavailable(), "{what}: {error:?}");
        }
        assert!(
            back.elapsed() < BACK_WITHIN,
            "{what}: still failing {:?} after the database came back",
            back.elapsed()
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Asserts that, within [`BACK_WITHIN`], an announcement on the direct
/// store wakes the announced account's watcher on the proxied one, and only
/// that one: its listening session works (a wake-up of every watcher, as
/// after listening again, does not count).
async fn hears_announcements_again(setup: &Setup, what: &str) {
    let back = Instant::now();
    let (announced, other) = (AccountId(7), AccountId(8));
    loop {
        let mut woken = setup.through.watch(announced);
        let mut quiet = setup.through.watch(other);
        setup.direct.announce(announced).await;
        let heard = timeout(Duration::from_millis(500), woken.wait(LONG))
            .await
            .is_ok();
        let everyone = timeout(Duration::from_millis(50), quiet.wait(LONG))
            .await
            .is_ok();
        if heard && !everyone {
            return;
        }
        assert!(
            back.elapsed() < BACK_WITHIN,
            "{what}: announcements not heard {:?} after the database came back",
            back.elapsed()
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    not(postgres_tests),
    ignore = "PostgreSQL tests skipped: set DEVMGR_TEST_POSTGRES_URL=postgres://USER@HOST:PORT/DB (a server where USER may create databases) and build again"
)]
async fn a_database_that_goes_down_fails_fast_as_unavailable_and_works_again_once_back() {
    let setup = setup().await;
    for outcome in read_and_write(&setup.through).await {
        outcome.unwrap();
    }
    hears_announcements_again(&setup, "before").await;

    setup.proxy.cut();
    fails_as_unavailable(&setup.through, "cut").await;
    // Stays down a while: the listening session keeps trying meanwhile.
    tokio::time::sleep(Duration::from_secs(2)).await;
    fails_as_unavailable(&setup.through, "still cut").await;

    setup.proxy.restore();
    works_again(&setup.through, "after the cut").await;
    hears_announcements_again(&setup, "after the cut").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    not(postgres_tests),
    ignore = "PostgreSQL tests skipped: set DEVMGR_TEST_POSTGRES_URL=postgres://USER@HOST:PORT/DB (a server where USER may create databases) and build again"
)]
async fn a_database_cut_off_by_the_network_fails_within_5_s_and_works_again_once_reachable() {
    let setup = setup().await;
    for outcome in read_and_write(&setup.through).await {
        outcome.unwrap();
    }

    setup.proxy.blackhole();
    fails_as_unavailable(&setup.through, "blackholed").await;
    // More at once than the pool holds: none waits past the bound either.
    let started = Instant::now();
    let many: Vec<_> = (0..24)
        .map(|_| {
            let store = setup.through.clone();
            tokio::spawn(async move {
                let started = Instant::now();
                let outcome = store.list_for(AccountId(1)).await.map(drop);
                (outcome, started.elapsed())
            })
        })
        .collect();
    for task in many {
        let (outcome, took) = task.await.unwrap();
        let error = outcome.expect_err("a read succeeded while blackholed");
        assert!(error.is_unavailable(), "{error:?}");
        assert!(took < FAILS_WITHIN, "a concurrent read took {took:?}");
    }
    assert!(started.elapsed() < FAILS_WITHIN);

    setup.proxy.restore();
    works_again(&setup.through, "after the blackhole").await;
    hears_announcements_again(&setup, "after the blackhole").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    not(postgres_tests),
    ignore = "PostgreSQL tests skipped: set DEVMGR_TEST_POSTGRES_URL=postgres://USER@HOST:PORT/DB (a server where USER may create databases) and build again"
)]
async fn several_operations_in_a_row_on_a_silent_database_still_end_within_5_s() {
    let setup = setup().await;
    for outcome in read_and_write(&setup.through).await {
        outcome.unwrap();
    }
    setup.proxy.blackhole();
    // A request whose first failure is only logged (a fleet announcement)
    // goes on to its next operation: the two together stay within the bound.
    let started = Instant::now();
    setup.through.announce(AccountId(1)).await;
    let error = setup.through.list_for(AccountId(1)).await.unwrap_err();
    assert!(error.is_unavailable(), "{error:?}");
    let took = started.elapsed();
    assert!(
        took < FAILS_WITHIN,
        "an announcement and a read took {took:?}"
    );

    setup.proxy.restore();
    works_again(&setup.through, "after the blackhole").await;
}

/// A write held up for 4 s (longer than a unit's usual time limit) by a
/// lock that other work holds on the table it needs, while reads through
/// the same store are answered all along (`reads`) or nothing else runs:
/// either way the database answers, so the write waits and succeeds.
async fn a_write_held_up_by_a_lock(reads: bool) {
    let setup = setup().await;
    let (locker, connection) = tokio_postgres::connect(setup.database.url(), tokio_postgres::NoTls)
        .await
        .unwrap();
    tokio::spawn(connection);
    locker
        .batch_execute("BEGIN; LOCK TABLE email_keys IN ACCESS EXCLUSIVE MODE")
        .await
        .unwrap();
    let write = {
        let store = setup.through.clone();
        tokio::spawn(async move {
            let started = Instant::now();
            let outcome = store
                .verify_email(&SecretHash::of("no such key"), chrono::Utc::now())
                .await;
            (outcome, started.elapsed())
        })
    };
    let held = Duration::from_secs(4);
    let started = Instant::now();
    while started.elapsed() < held {
        if reads {
            setup.through.list_for(AccountId(1)).await.unwrap();
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    locker.batch_execute("COMMIT").await.unwrap();
    let (outcome, took) = timeout(LONG, write).await.unwrap().unwrap();
    let verified = outcome.unwrap_or_else(|error| panic!("the write, after {took:?}: {error:?}"));
    assert!(!verified, "no such key was verified");
    assert!(took >= held, "the write ended before the lock was let go");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    not(postgres_tests),
    ignore = "PostgreSQL tests skipped: set DEVMGR_TEST_POSTGRES_URL=postgres://USER@HOST:PORT/DB (a server where USER may create databases) and build again"
)]
async fn work_held_up_while_the_database_answers_others_waits_instead_of_failing() {
    a_write_held_up_by_a_lock(true).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    not(postgres_tests),
    ignore = "PostgreSQL tests skipped: set DEVMGR_TEST_POSTGRES_URL=postgres://USER@HOST:PORT/DB (a server where USER may create databases) and build again"
)]
async fn work_held_up_alone_waits_once_the_database_answers_a_probe() {
    a_write_held_up_by_a_lock(false).await;
}
