//! Units of work: a pooled connection, the work on it, a new try when
//! PostgreSQL aborted it for concurrent work, and time limits, so that no
//! request waits long on a database that is down or cut off. It answers 503
//! instead ([`outage`]) and works again as soon as the database is back:
//! connections the server closed are dropped by the pool (its check of an
//! idle connection), stuck ones by the unit whose work ran out of time.

use super::PgStore;
use super::outage;
use application::StoreError;
use deadpool_postgres::{Client, Object, PoolError, Transaction};
use futures_util::future::BoxFuture;
use std::hash::{BuildHasher, Hasher, RandomState};
use std::time::Duration;
use tokio::time::{Instant, timeout_at};
use tokio_postgres::error::SqlState;

/// The longest a unit of work waits for a pooled connection while all 16
/// are busy: in a burst (a thousand agents polling at once) requests queue
/// rather than fail, as long as the database answers. Once a unit finds it
/// out of reach every such wait ends at once ([`outage::Reach`]).
///
/// With that, the budgets keep every request under 5 s however the database
/// fails (a refused or reset connection fails at once; only a silent one
/// costs time): a unit takes at most `CREATE_TIMEOUT + WORK_TIMEOUT` =
/// 3.5 s, and a request stops at its first failed unit, except a fleet
/// announcement, which is only logged: the unit after it runs on
/// [`SUSPECT_BUDGET`], so 3.5 + 1 = 4.5 s at worst. (A request that queued
/// behind a saturated pool before the database went away adds its wait;
/// one whose work was under way then may get one more window, [`BUSY_LIMIT`](super::busy::BUSY_LIMIT).)
pub(super) const POOL_WAIT: Duration = Duration::from_secs(30);
/// The longest opening a new connection may take: TCP, start-up and
/// authentication, a matter of milliseconds with a database that answers.
pub(super) const CREATE_TIMEOUT: Duration = Duration::from_millis(1500);
/// The longest the check of an idle connection may take before it is lent
/// (the pool only looks whether it is closed: no I/O).
pub(super) const RECYCLE_TIMEOUT: Duration = Duration::from_secs(1);
/// The time limit on opening the TCP connection when the URL sets no
/// `connect_timeout` (the rest of a connection's start is bounded by
/// [`CREATE_TIMEOUT`], and by the listening session's own limit).
pub(super) const CONNECT_TIMEOUT: Duration = CREATE_TIMEOUT;
/// The longest one try of a unit of work may use its connection. Our
/// statements take milliseconds; one without an answer by then is on a
/// connection cut off from its server, which is then closed, not pooled.
pub(super) const WORK_TIMEOUT: Duration = Duration::from_secs(2);
/// The longest one try of bulk work may use its connection: a fleet job's
/// steps, which resolve, give commands to and count up to 100,000 targets
/// in one transaction (seconds at that size, milliseconds at 10,000).
pub(crate) const BULK_WORK_TIMEOUT: Duration = Duration::from_secs(60);
/// The whole budget of a unit (connection and work) while the database
/// was out of reach at the last look and nothing has reached it since
/// ([`outage::Reach`]): enough for a database that is back, short enough
/// that a request never pays two full budgets.
const SUSPECT_BUDGET: Duration = Duration::from_secs(1);
/// How long a unit waits for a connection or an answer, with no answer to
/// any unit meanwhile, before it asks the database whether it answers at
/// all (a probe, [`PgStore::probe`]): our statements take milliseconds, and
/// asking early leaves a loaded machine nearly the whole budget to answer.
pub(super) const PROBE_AFTER: Duration = Duration::from_millis(100);
/// The pause before a unit that PostgreSQL refused a new connection (it
/// serves as many clients as it takes) asks the pool again.
const FULL_PAUSE: Duration = Duration::from_millis(20);
/// Tries of a unit of work that PostgreSQL aborted as a deadlock or a
/// serialization failure, before the error is reported.
const ATTEMPTS: u32 = 8;

impl PgStore {
    /// Runs `work` on a pooled connection, outside a transaction: for a
    /// single statement, which PostgreSQL makes atomic by itself.
    pub(crate) async fn run<T, F>(&self, what: &'static str, work: F) -> Result<T, StoreError>
    where
        T: Send,
        F: for<'c> FnMut(&'c Client) -> BoxFuture<'c, Result<T, Failure<StoreError>>> + Send,
    {
        self.run_within(what, WORK_TIMEOUT, work).await
    }

    /// [`run`](Self::run), with `work_timeout` for each try's work instead of
    /// the usual limit (for bulk work, [`BULK_WORK_TIMEOUT`]).
    pub(crate) async fn run_within<T, F>(
        &self,
        what: &'static str,
        work_timeout: Duration,
        mut work: F,
    ) -> Result<T, StoreError>
    where
        T: Send,
        F: for<'c> FnMut(&'c Client) -> BoxFuture<'c, Result<T, Failure<StoreError>>> + Send,
    {
        let mut attempt = 0;
        loop {
            attempt += 1;
            let checkout = self.checkout(what, work_timeout).await?;
            let outcome = self
                .await_work(checkout.lent, checkout.due, work(checkout.client()))
                .await;
            if let Some(value) = self.settle(what, checkout, outcome, attempt).await? {
                return Ok(value);
            }
        }
    }

    /// Runs `work` in a transaction and commits it. When PostgreSQL aborts
    /// it (a deadlock, a serialization failure), runs it again from the
    /// start, a few times, so no client sees such an error.
    pub(crate) async fn transaction<T, E, F>(&self, what: &'static str, work: F) -> Result<T, E>
    where
        T: Send,
        E: From<StoreError> + Send,
        F: for<'t> FnMut(&'t Transaction<'t>) -> BoxFuture<'t, Result<T, Failure<E>>> + Send,
    {
        self.transaction_within(what, WORK_TIMEOUT, work).await
    }

    /// [`transaction`](Self::transaction), with `work_timeout` for each
    /// try's work instead of the usual limit (for bulk work,
    /// [`BULK_WORK_TIMEOUT`]).
    pub(crate) async fn transaction_within<T, E, F>(
        &self,
        what: &'static str,
        work_timeout: Duration,
        mut work: F,
    ) -> Result<T, E>
    where
        T: Send,
        E: From<StoreError> + Send,
        F: for<'t> FnMut(&'t Transaction<'t>) -> BoxFuture<'t, Result<T, Failure<E>>> + Send,
    {
        let mut attempt = 0;
        loop {
            attempt += 1;
            let mut checkout = self.checkout(what, work_timeout).await?;
            let (lent, due) = (checkout.lent, checkout.due);
            let client = checkout.client_mut();
            let outcome = self
                .await_work(lent, due, async {
                    let tx = client.transaction().await?;
                    let value = work(&tx).await?;
                    tx.commit().await?;
                    Ok(value)
                })
                .await;
            if let Some(value) = self.settle(what, checkout, outcome, attempt).await? {
                return Ok(value);
            }
        }
    }

    /// A connection for one try of a unit of work, with the instant its work
    /// must be done by: [`POOL_WAIT`] then `work_timeout`, or
    /// [`SUSPECT_BUDGET`] for both while the database is suspect.
    async fn checkout(
        &self,
        what: &'static str,
        work_timeout: Duration,
    ) -> Result<Checkout, StoreError> {
        let started = Instant::now();
        let suspect = self.reach.suspect();
        let budget = if suspect { SUSPECT_BUDGET } else { POOL_WAIT };
        let client = self.client(what, started + budget).await;
        let client = client.inspect_err(|e| {
            if e.is_unavailable() {
                self.reach.no_answer_since(started);
            }
        })?;
        let lent = Instant::now();
        let due = if suspect {
            started + SUSPECT_BUDGET
        } else {
            lent + work_timeout
        };
        Ok(Checkout {
            client: Some(client),
            due,
            lent,
        })
    }

    /// A pooled connection, by `deadline`, unless another unit finds the
    /// database out of reach meanwhile; the wait is recorded in
    /// `devmgr_db_pool_wait_seconds`.
    ///
    /// A new connection that could not be opened in time while the database
    /// answered other units, or a probe sent [`PROBE_AFTER`] in when none
    /// did, is load, not an outage: the unit waits for a connection
    /// again, within its deadline. So is one that PostgreSQL
    /// refused because it serves as many clients as it takes
    /// (`max_connections`, or the role's or database's connection limit):
    /// the unit waits for one of the pool's connections to come back, or for
    /// the database to take one more ([`outage::full`]).
    async fn client(&self, what: &'static str, deadline: Instant) -> Result<Client, StoreError> {
        let started = Instant::now();
        let lost = self.reach.next_loss();
        tokio::pin!(lost);
        let got = loop {
            let tried = Instant::now();
            let getting = timeout_at(deadline, self.pool.get());
            tokio::pin!(getting);
            // Soon, with no answer meanwhile: ask the database whether it
            // answers at all, leaving the probe most of the time a new
            // connection may take.
            let probe_at = tokio::time::sleep_until(tried + PROBE_AFTER);
            tokio::pin!(probe_at);
            let mut probed = false;
            let got = loop {
                tokio::select! {
                    got = &mut getting => break Some(got),
                    () = &mut lost => break None,
                    () = &mut probe_at, if !probed => {
                        probed = true;
                        if !self.reach.answered_since(tried) {
                            tokio::spawn(self.clone().probe(tried + CREATE_TIMEOUT));
                        }
                    }
                }
            };
            let Some(got) = got else {
                break Err(outage::unreachable(
                    what,
                    "another request found the database out of reach meanwhile",
                ));
            };
            let got = match got {
                Ok(Ok(client)) => Ok(client),
                Ok(Err(PoolError::Timeout(_))) if self.reach.answered_since(tried) => continue,
                Ok(Err(PoolError::Backend(e))) if outage::is_full(&e) => {
                    self.reach.answered();
                    outage::full(&e);
                    tokio::time::sleep_until(deadline.min(Instant::now() + FULL_PAUSE)).await;
                    continue;
                }
                Ok(Err(e)) => Err(outage::pool_failure(what, e)),
                Err(_) => Err(outage::timed_out(
                    what,
                    "database connection",
                    deadline - started,
                )),
            };
            break got;
        };
        metrics::histogram!("devmgr_db_pool_wait_seconds").record(started.elapsed().as_secs_f64());
        got
    }

    /// Takes a unit's outcome (`None`: out of time): the value, `Ok(None)`
    /// when the failure is worth another try (after a short pause), or the
    /// error. The connection goes back to the pool only if the database
    /// answered on it.
    async fn settle<T, E: From<StoreError>>(
        &self,
        what: &'static str,
        checkout: Checkout,
        outcome: Option<Result<T, Failure<E>>>,
        attempt: u32,
    ) -> Result<Option<T>, E> {
        let failure = match outcome {
            None => {
                self.reach.no_answer_since(checkout.lent);
                let waited = checkout.lent.elapsed();
                return Err(outage::timed_out(what, "answer from the database", waited).into());
            }
            Some(Ok(value)) => {
                self.reach.answered();
                checkout.keep();
                return Ok(Some(value));
            }
            Some(Err(failure)) => failure,
        };
        if matches!(&failure, Failure::Sql(e) if outage::is_unreachable(e)) {
            self.reach.lost();
        } else {
            self.reach.answered();
            checkout.keep();
        }
        retry_or_fail(what, failure, attempt).await.map(|()| None)
    }
}

/// A pooled connection lent to one try of a unit of work. Unless the unit
/// [`keep`](Self::keep)s it (the database answered on it), it leaves the
/// pool when dropped, and closes: its work ran out of time or was abandoned
/// halfway, and a connection in that state may be stuck.
struct Checkout {
    /// `None` once kept.
    client: Option<Client>,
    /// When the work must be done.
    due: Instant,
    /// When the connection was lent.
    lent: Instant,
}

impl Checkout {
    fn client(&self) -> &Client {
        self.client
            .as_ref()
            .expect("a checkout holds its client until it goes")
    }

    fn client_mut(&mut self) -> &mut Client {
        self.client
            .as_mut()
            .expect("a checkout holds its client until it goes")
    }

    /// Returns the connection to the pool.
    fn keep(mut self) {
        drop(self.client.take());
    }
}

impl Drop for Checkout {
    fn drop(&mut self) {
        if let Some(client) = self.client.take() {
            drop(Object::take(client));
        }
    }
}

/// Returns (after a short pause) when the failure is worth another attempt;
/// otherwise the error to report.
async fn retry_or_fail<E: From<StoreError>>(
    what: &'static str,
    failure: Failure<E>,
    attempt: u32,
) -> Result<(), E> {
    match failure {
        Failure::Sql(e) if is_transient(&e) && attempt < ATTEMPTS => {
            tracing::debug!(operation = what, attempt, error = %e, "retrying");
            // Spread the retries of the colliding transactions apart.
            let jitter = RandomState::new().build_hasher().finish() % 7;
            tokio::time::sleep(Duration::from_millis(u64::from(attempt) * 5 + jitter)).await;
            Ok(())
        }
        Failure::Sql(e) => Err(outage::sql_failure(what, e).into()),
        Failure::Store(e) => Err(e.into()),
        Failure::Outcome(e) => Err(e),
    }
}

/// Whether PostgreSQL aborted the work only because of concurrent work, so
/// running it again can succeed.
fn is_transient(error: &tokio_postgres::Error) -> bool {
    matches!(
        error.code(),
        Some(code) if *code == SqlState::T_R_SERIALIZATION_FAILURE
            || *code == SqlState::T_R_DEADLOCK_DETECTED
    )
}

/// What a unit of work can fail with.
pub(crate) enum Failure<E> {
    /// A domain outcome to hand back as it is.
    Outcome(E),
    /// A PostgreSQL error.
    Sql(tokio_postgres::Error),
    /// Any other infrastructure failure.
    Store(StoreError),
}

impl<E> From<tokio_postgres::Error> for Failure<E> {
    fn from(e: tokio_postgres::Error) -> Self {
        Failure::Sql(e)
    }
}

impl<E> From<StoreError> for Failure<E> {
    fn from(e: StoreError) -> Self {
        Failure::Store(e)
    }
}

/// Whether an error is a violation of the named UNIQUE constraint.
pub(crate) fn violates(error: &tokio_postgres::Error, constraint: &str) -> bool {
    error.code() == Some(&SqlState::UNIQUE_VIOLATION)
        && error
            .as_db_error()
            .and_then(|e| e.constraint())
            .is_some_and(|name| name == constraint)
}
