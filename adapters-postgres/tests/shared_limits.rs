//! Limits counted in the database, so that instances on it share them: rate
//! budgets (GCRA, one statement per request) and the open long polls of
//! each device. Each instance is a `PgStore` of its own. Without
//! `DEVMGR_TEST_POSTGRES_URL` at build time the tests are reported as
//! ignored (see `build.rs`).

use adapters_postgres::{PgLongPolls, PgStore};
use application::ports::{LimitKey, LongPollRegistry, OpenPoll, Rate, RateLimits, Verdict};
use domain::{AccountId, Serial};
use futures_util::FutureExt;
use futures_util::future::join_all;
use std::time::Duration;
use tcp_proxy::TcpProxy;
use tokio::time::timeout;

/// How soon a push-out reaches a poll on another instance.
const ACROSS: Duration = Duration::from_secs(2);

/// Two instances on one fresh migrated database, and the database (dropped last).
async fn two_instances() -> (PgStore, PgStore, scratch_postgres::TestDatabase) {
    let database = tokio::task::spawn_blocking(scratch_postgres::TestDatabase::create)
        .await
        .expect("creating a PostgreSQL database panicked");
    let a = PgStore::connect(database.url()).await.unwrap();
    a.migrate().await.unwrap();
    let b = PgStore::connect(database.url()).await.unwrap();
    (a, b, database)
}

fn rate(text: &str) -> Rate {
    text.parse().unwrap()
}

fn address(text: &str) -> LimitKey {
    LimitKey::Address(text.parse().unwrap())
}

/// Rows of a table, read straight from the database.
async fn rows(database: &scratch_postgres::TestDatabase, table: &str) -> i64 {
    let (client, connection) = tokio_postgres::connect(database.url(), tokio_postgres::NoTls)
        .await
        .unwrap();
    let driver = tokio::spawn(connection);
    let count = client
        .query_one(&format!("SELECT COUNT(*) FROM {table}"), &[])
        .await
        .unwrap()
        .get(0);
    drop(client);
    let _ = driver.await;
    count
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    not(postgres_tests),
    ignore = "PostgreSQL tests skipped: set DEVMGR_TEST_POSTGRES_URL=postgres://USER@HOST:PORT/DB (a server where USER may create databases) and build again"
)]
async fn of_many_requests_at_once_exactly_the_budget_is_allowed() {
    let (a, b, _database) = two_instances().await;
    let key = address("192.0.2.1");
    let budget = rate("5/hour");
    let checks = (0..24).map(|i| {
        let store = if i % 2 == 0 { a.clone() } else { b.clone() };
        async move { store.count(key, budget).await.unwrap() }
    });
    let verdicts = join_all(checks).await;
    let allowed = verdicts.iter().filter(|v| **v == Verdict::Allowed).count();
    assert_eq!(allowed, 5, "{verdicts:?}");
    for verdict in verdicts.iter().filter(|v| **v != Verdict::Allowed) {
        // One request comes back every 12 minutes.
        assert!(
            matches!(verdict, Verdict::Wait(seconds) if (1..=720).contains(seconds)),
            "{verdict:?}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    not(postgres_tests),
    ignore = "PostgreSQL tests skipped: set DEVMGR_TEST_POSTGRES_URL=postgres://USER@HOST:PORT/DB (a server where USER may create databases) and build again"
)]
async fn instances_spend_one_budget_per_key_and_refusals_spend_nothing() {
    let (a, b, _database) = two_instances().await;
    let ann = address("192.0.2.1");
    let three = rate("3/minute");
    for store in [&a, &b, &a] {
        assert_eq!(store.count(ann, three).await.unwrap(), Verdict::Allowed);
    }
    // The burst is spent: 20 s until one request comes back, on either.
    for store in [&b, &a, &b] {
        let verdict = store.count(ann, three).await.unwrap();
        assert!(
            matches!(verdict, Verdict::Wait(seconds) if (19..=20).contains(&seconds)),
            "refusals do not push the wait further: {verdict:?}"
        );
    }
    // Other keys, another kind of key with the same text's number, are whole.
    assert_eq!(
        b.count(address("192.0.2.2"), three).await.unwrap(),
        Verdict::Allowed
    );
    let password = LimitKey::PasswordChange(AccountId(1));
    let one = rate("1/hour");
    assert_eq!(a.count(password, one).await.unwrap(), Verdict::Allowed);
    assert_eq!(b.count(password, one).await.unwrap(), Verdict::Wait(3_600));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    not(postgres_tests),
    ignore = "PostgreSQL tests skipped: set DEVMGR_TEST_POSTGRES_URL=postgres://USER@HOST:PORT/DB (a server where USER may create databases) and build again"
)]
async fn a_budget_refills_evenly_and_idle_keys_are_forgotten() {
    let (a, _b, database) = two_instances().await;
    let key = address("192.0.2.1");
    let fast = rate("5/second");
    for _ in 0..5 {
        assert_eq!(a.count(key, fast).await.unwrap(), Verdict::Allowed);
    }
    assert_eq!(a.count(key, fast).await.unwrap(), Verdict::Wait(1));
    // One request comes back every 200 ms.
    tokio::time::sleep(Duration::from_millis(250)).await;
    assert_eq!(a.count(key, fast).await.unwrap(), Verdict::Allowed);
    assert_eq!(a.count(key, fast).await.unwrap(), Verdict::Wait(1));

    a.count(address("192.0.2.2"), rate("1/hour")).await.unwrap();
    a.forget_idle().await.unwrap();
    assert_eq!(
        rows(&database, "rate_budgets").await,
        2,
        "nothing is idle yet"
    );
    tokio::time::sleep(Duration::from_millis(1_100)).await;
    a.forget_idle().await.unwrap();
    assert_eq!(
        rows(&database, "rate_budgets").await,
        1,
        "the fast key is whole again"
    );
    assert_eq!(a.count(key, fast).await.unwrap(), Verdict::Allowed);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    not(postgres_tests),
    ignore = "PostgreSQL tests skipped: set DEVMGR_TEST_POSTGRES_URL=postgres://USER@HOST:PORT/DB (a server where USER may create databases) and build again"
)]
async fn without_the_database_no_budget_is_spent_and_polls_still_wait() {
    let (_a, _b, database) = two_instances().await;
    let proxy = TcpProxy::start(database.server_address()).await.unwrap();
    let through = PgStore::connect(&database.url_via(proxy.address()))
        .await
        .unwrap();
    let polls = PgLongPolls::new(through.clone());
    proxy.cut();
    let key = address("192.0.2.1");
    let error = through.count(key, rate("3/minute")).await.unwrap_err();
    assert!(error.is_unavailable(), "{error:?}");
    // A poll needs no row to wait: it waits, counted by this instance alone.
    let mut poll = polls.open(&serial(1)).await.unwrap();
    polls.settled().await;
    assert!(poll.pushed_out().now_or_never().is_none());
    assert_eq!(polls.count(), 1);
    drop(poll);
    assert_eq!(polls.count(), 0);
}

fn serial(n: u8) -> Serial {
    Serial::from_random_bytes([n; 16])
}

/// Whether the poll was told to end within [`ACROSS`].
async fn ends(poll: &mut Box<dyn OpenPoll>) -> bool {
    timeout(ACROSS, poll.pushed_out()).await.is_ok()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    not(postgres_tests),
    ignore = "PostgreSQL tests skipped: set DEVMGR_TEST_POSTGRES_URL=postgres://USER@HOST:PORT/DB (a server where USER may create databases) and build again"
)]
async fn a_third_poll_anywhere_ends_the_oldest_anywhere() {
    let (a, b, database) = two_instances().await;
    let (on_a, on_b) = (PgLongPolls::new(a), PgLongPolls::new(b));
    let mut first = on_a.open(&serial(1)).await.unwrap();
    let mut second = on_a.open(&serial(1)).await.unwrap();
    let mut other = on_b.open(&serial(2)).await.unwrap();
    assert_eq!((on_a.count(), on_b.count()), (2, 1));
    // Rows are written in the background; the test orders the instances' opens.
    on_a.settled().await;
    on_b.settled().await;
    let mut third = on_b.open(&serial(1)).await.unwrap();
    assert!(ends(&mut first).await, "the oldest, on the other instance");
    assert!(second.pushed_out().now_or_never().is_none());
    assert!(third.pushed_out().now_or_never().is_none());
    assert!(other.pushed_out().now_or_never().is_none());
    // A poll that ended frees its place: the next one ends nobody.
    drop(first);
    drop(second);
    on_a.settled().await;
    let mut fourth = on_a.open(&serial(1)).await.unwrap();
    on_a.settled().await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(third.pushed_out().now_or_never().is_none());
    let _fifth = on_a.open(&serial(1)).await.unwrap();
    assert!(ends(&mut third).await);
    assert!(fourth.pushed_out().now_or_never().is_none());
    on_a.settled().await;
    assert_eq!(
        rows(&database, "open_long_polls").await,
        3,
        "the two open polls of one device, the one of the other"
    );
    drop((third, other));
    on_a.forget_stale().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    not(postgres_tests),
    ignore = "PostgreSQL tests skipped: set DEVMGR_TEST_POSTGRES_URL=postgres://USER@HOST:PORT/DB (a server where USER may create databases) and build again"
)]
async fn of_many_polls_opened_at_once_only_two_stay_open() {
    let (a, b, _database) = two_instances().await;
    let (on_a, on_b) = (PgLongPolls::new(a), PgLongPolls::new(b));
    // More opens than the two pools have connections, so that they race in
    // the database (without the lock in `open_long_poll`, three or more stay
    // open now and then).
    let opens = (0..40).map(|i| {
        let registry = if i % 2 == 0 {
            on_a.clone()
        } else {
            on_b.clone()
        };
        async move { registry.open(&serial(7)).await.unwrap() }
    });
    let mut polls = join_all(opens).await;
    tokio::time::sleep(ACROSS).await;
    let open = polls
        .iter_mut()
        .map(|poll| poll.pushed_out().now_or_never())
        .filter(Option::is_none)
        .count();
    assert_eq!(open, 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    not(postgres_tests),
    ignore = "PostgreSQL tests skipped: set DEVMGR_TEST_POSTGRES_URL=postgres://USER@HOST:PORT/DB (a server where USER may create databases) and build again"
)]
async fn closing_ends_this_instances_polls_only() {
    let (a, b, _database) = two_instances().await;
    let (on_a, on_b) = (PgLongPolls::new(a), PgLongPolls::new(b));
    let mut mine = on_a.open(&serial(1)).await.unwrap();
    let mut theirs = on_b.open(&serial(2)).await.unwrap();
    on_a.close_all();
    assert!(mine.pushed_out().now_or_never().is_some());
    let mut late = on_a.open(&serial(3)).await.unwrap();
    assert!(late.pushed_out().now_or_never().is_some());
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(theirs.pushed_out().now_or_never().is_none());
    drop((mine, late));
    assert_eq!(on_a.count(), 0);
    assert_eq!(on_b.count(), 1);
}
