//! The repository contract: what every storage adapter must do, written once
//! against the ports of [`application::ports`], and run by each adapter from
//! its own tests.
//!
//! - [`Store`] is every repository port at once
//!   ([`application::ports::Store`]), cloneable.
//! - [`suite`](mod@suite) holds the tests, generic functions
//!   `pub async fn name(store: impl Store)`; an adapter's test crate runs them
//!   all with [`suite!`], giving it a function that opens a fresh, migrated,
//!   empty store of the adapter as an [`Opened`] (which keeps alive whatever
//!   the store lives in: a scratch directory, a scratch database).
//! - The rest are the fixtures the tests share: fixed times, accounts,
//!   devices, enrolments, reports, fleets with their reference queries,
//!   and [`race`] for concurrency tests.

mod accounts;
mod alerts;
mod audit;
mod commands;
mod devices;
mod fleet;
mod jobs;
pub mod suite;
pub mod transfer;

pub use accounts::*;
pub use alerts::*;
pub use audit::*;
pub use commands::*;
pub use devices::*;
pub use fleet::*;
pub use jobs::*;

use chrono::{TimeZone, Utc};
use domain::{Amount, BoundedText, Timestamp};
use std::any::Any;
use std::future::Future;
use std::sync::Arc;

/// A store under test: every repository port at once
/// ([`application::ports::Store`], the one list of them), cheap to clone
/// (clones share the database), so concurrent tasks each hold one.
pub trait Store: application::ports::Store + Clone {}

impl<T: application::ports::Store + Clone> Store for T {}

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

// --- Time ---------------------------------------------------------------------

/// Checked text: `value` must pass `T`'s rule.
pub fn text<T: BoundedText>(value: &str) -> T {
    T::parse(value).expect("text within its rule")
}

/// A checked amount: `value` must be one.
pub fn amount(value: i64) -> Amount {
    Amount::new(value).expect("an amount")
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
