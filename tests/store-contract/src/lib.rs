//! The repository contract: what every storage adapter must do, written once
//! against the ports of [`application::ports`] and run against each adapter.
//!
//! - [`Store`] is every repository port at once, as one adapter value
//!   implements them.
//! - Each backend has a function that opens a fresh, migrated, empty store
//!   ([`sqlite`], [`postgres`]), returning it as an [`Opened`] that keeps alive whatever the
//!   store lives in (a scratch directory, a scratch database).
//! - [`contract_tests!`] turns generic test functions
//!   `async fn name(store: impl Store)` into one `#[tokio::test]` per function
//!   and backend.
//! - The rest are the fixtures the tests share: fixed times, accounts,
//!   devices, enrolments, reports, and [`race`] for concurrency tests.
//!
//! The tests themselves are in `tests/contract/`.

mod accounts;
mod commands;
mod devices;

pub use accounts::*;
pub use commands::*;
pub use devices::*;

use adapters_postgres::PgStore;
use adapters_sqlite::SqliteStore;
use application::ports::{
    AccountRepository, CommandRepository, DeviceRepository, EmailKeyRepository,
    LoginAttemptRepository, Outbox, TokenRepository,
};
use chrono::{TimeZone, Utc};
use domain::{BoundedText, Timestamp};
use std::any::Any;
use std::future::Future;
use std::sync::Arc;

/// Every repository port, as one storage adapter implements them all; cheap
/// to clone (clones share the database), so concurrent tasks each hold one.
pub trait Store:
    AccountRepository
    + TokenRepository
    + EmailKeyRepository
    + DeviceRepository
    + CommandRepository
    + Outbox
    + LoginAttemptRepository
    + Clone
    + Send
    + Sync
    + 'static
{
}

impl<T> Store for T where
    T: AccountRepository
        + TokenRepository
        + EmailKeyRepository
        + DeviceRepository
        + CommandRepository
        + Outbox
        + LoginAttemptRepository
        + Clone
        + Send
        + Sync
        + 'static
{
}

/// A freshly opened, migrated, empty store, and whatever must outlive it
/// (its scratch directory or database). Derefs to the store.
pub struct Opened<S> {
    // Declared first, so dropped first: the store lets go of its database
    // before the guard removes it.
    store: S,
    _guard: Box<dyn Any + Send>,
}

impl<S> Opened<S> {
    /// A store and the guard of what it lives in, dropped after the store.
    pub fn new(store: S, guard: impl Any + Send) -> Self {
        Self {
            store,
            _guard: Box::new(guard),
        }
    }
}

impl<S> std::ops::Deref for Opened<S> {
    type Target = S;

    fn deref(&self) -> &S {
        &self.store
    }
}

/// A fresh SQLite store: a new file in a scratch directory, migrated. The
/// directory goes when the value does.
pub async fn sqlite() -> Opened<SqliteStore> {
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

/// A fresh PostgreSQL store: a new database on the server of
/// `DEVMGR_TEST_POSTGRES_URL`, migrated. The database is dropped when the
/// value goes.
pub async fn postgres() -> Opened<PgStore> {
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

/// Generates, for each generic contract test `async fn name(store: impl Store)`
/// named in the list, one `#[tokio::test]` per backend, in a module named
/// after the backend (`sqlite::name`, `postgres::name`), that opens a fresh store, runs the
/// test on it and keeps the store's scratch files until the test ends.
///
/// ```text
/// async fn accounts_are_unique(store: impl Store) { /* … */ }
/// store_contract::contract_tests!(accounts_are_unique);
/// ```
///
/// Each backend is one line of the first arm below, naming the module, the
/// function that opens a fresh store of the backend, and the attributes its
/// tests carry besides `#[tokio::test]`. PostgreSQL's tests are ignored, with
/// the reason, unless the crate was built with `DEVMGR_TEST_POSTGRES_URL` set
/// (see `build.rs`).
#[macro_export]
macro_rules! contract_tests {
    ($($test:ident),+ $(,)?) => {
        $crate::contract_tests!(@backend sqlite, $crate::sqlite, [], [$($test),+]);
        $crate::contract_tests!(@backend postgres, $crate::postgres,
            [#[cfg_attr(
                not(postgres_tests),
                ignore = "PostgreSQL tests skipped: set DEVMGR_TEST_POSTGRES_URL=postgres://USER@HOST:PORT/DB (a server where USER may create databases) and build again"
            )]],
            [$($test),+]);
    };
    (@backend $backend:ident, $open:path, $attributes:tt, [$($test:ident),+]) => {
        mod $backend {
            $( $crate::contract_tests!(@test $open, $attributes, $test); )+
        }
    };
    (@test $open:path, [$(#[$attribute:meta])*], $test:ident) => {
        #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
        $(#[$attribute])*
        async fn $test() {
            let opened = $open().await;
            super::$test(::std::clone::Clone::clone(&*opened)).await;
        }
    };
}

// --- Time ---------------------------------------------------------------------

/// Checked text: `value` must pass `T`'s rule.
pub fn text<T: BoundedText>(value: &str) -> T {
    T::parse(value).expect("text within its rule")
}

/// The fixed "now" of the tests: 2026-05-01 08:00:00 UTC.
pub fn t0() -> Timestamp {
    Utc.with_ymd_and_hms(2026, 5, 1, 8, 0, 0).unwrap()
}

/// `n` minutes.
pub fn minutes(n: i64) -> chrono::Duration {
    chrono::Duration::minutes(n)
}

/// How long an undelivered command stays pending, in these tests.
pub fn lapse() -> chrono::Duration {
    minutes(10)
}

/// How many tasks race in the concurrency tests.
pub const RACERS: usize = 16;

/// Runs `n` tasks at once, each on its own tokio task, all released together
/// once every one has started; returns their results in the order of their
/// index. `task(i)` makes the `i`-th (give it its own clone of the store).
/// Panics if a task panics.
pub async fn race<T, F>(n: usize, mut task: impl FnMut(usize) -> F) -> Vec<T>
where
    F: Future<Output = T> + Send + 'static,
    T: Send + 'static,
{
    let start = Arc::new(tokio::sync::Barrier::new(n));
    let racers: Vec<_> = (0..n)
        .map(|i| {
            let (start, work) = (Arc::clone(&start), task(i));
            tokio::spawn(async move {
                start.wait().await;
                work.await
            })
        })
        .collect();
    let mut results = Vec::with_capacity(n);
    for racer in racers {
        results.push(racer.await.expect("a racing task panicked"));
    }
    results
}
