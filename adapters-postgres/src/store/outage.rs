//! Telling a database out of reach from other failures. An out-of-reach
//! database (down, restarting, cut off, too slow to answer) is
//! [`StoreError::unreachable`]: clients get 503 and try again shortly, and
//! `devmgr_db_unavailable_total` counts it. Anything else (a constraint, a
//! malformed row) stays a plain store error: a 500.

use application::StoreError;
use deadpool_postgres::PoolError;
use std::io;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;
use tokio::sync::Notify;
use tokio::sync::futures::Notified;
use tokio::time::Instant;

/// Whether the last unit of work found the database out of reach, and
/// nothing has reached it since: later units then get a short budget
/// (`SUSPECT_BUDGET` in [`super::work`]), so a request whose failed unit
/// was only logged (a fleet announcement) does not wait a full budget twice.
/// Finding the database out of reach also ends every wait for a pooled
/// connection at once: those would only wait for connections that are
/// stuck or gone.
///
/// A unit that gets no answer in time while the database answers other
/// units is not proof of an outage but of load (a thousand agents polling
/// at once on a busy machine): [`no_answer_since`](Self::no_answer_since)
/// tells the two apart.
#[derive(Debug)]
pub(crate) struct Reach {
    suspect: AtomicBool,
    lost: Notify,
    /// What the times of answers are counted from.
    base: Instant,
    /// When the database last answered, in nanoseconds after `base` (plus
    /// one: 0 is never).
    last_answer: AtomicU64,
    /// Whether a probe of the database is under way.
    probing: AtomicBool,
}

impl Default for Reach {
    fn default() -> Self {
        Self {
            suspect: AtomicBool::new(false),
            lost: Notify::new(),
            base: Instant::now(),
            last_answer: AtomicU64::new(0),
            probing: AtomicBool::new(false),
        }
    }
}

impl Reach {
    /// Whether the database was out of reach at the last look.
    pub(crate) fn suspect(&self) -> bool {
        self.suspect.load(Ordering::Relaxed)
    }

    /// The database answered (with rows or with an error of its own).
    pub(crate) fn answered(&self) {
        self.suspect.store(false, Ordering::Relaxed);
        let at = u64::try_from(self.base.elapsed().as_nanos()).unwrap_or(u64::MAX);
        self.last_answer
            .fetch_max(at.saturating_add(1), Ordering::Relaxed);
    }

    /// Whether the database answered some unit after `instant`.
    pub(crate) fn answered_since(&self, instant: Instant) -> bool {
        let since = instant.saturating_duration_since(self.base).as_nanos();
        u128::from(self.last_answer.load(Ordering::Relaxed)) > since.saturating_add(1)
    }

    /// A unit begun at `began` got no connection or no answer in time: the
    /// database is out of reach, unless it answered another unit meanwhile
    /// (it is busy, not gone: the other units go on).
    pub(crate) fn no_answer_since(&self, began: Instant) {
        if !self.answered_since(began) {
            self.lost();
        }
    }

    /// Whether this caller may probe the database now: no other probe is
    /// under way. The caller calls [`end_probe`](Self::end_probe) after.
    pub(crate) fn begin_probe(&self) -> bool {
        !self.probing.swap(true, Ordering::AcqRel)
    }

    /// The probe begun with [`begin_probe`](Self::begin_probe) is over.
    pub(crate) fn end_probe(&self) {
        self.probing.store(false, Ordering::Release);
    }

    /// The database proved out of reach.
    pub(crate) fn lost(&self) {
        self.suspect.store(true, Ordering::Relaxed);
        self.lost.notify_waiters();
    }

    /// Resolves when the database is next found out of reach (by [`lost`](Self::lost)
    /// called after this future was made).
    pub(crate) fn next_loss(&self) -> Notified<'_> {
        self.lost.notified()
    }
}

/// A [`StoreError::unreachable`], counted.
pub(crate) fn unreachable(
    what: &'static str,
    cause: impl Into<Box<dyn std::error::Error + Send + Sync>>,
) -> StoreError {
    metrics::counter!("devmgr_db_unavailable_total").increment(1);
    StoreError::unreachable(what, cause)
}

/// No answer within `budget`: the database is taken to be out of reach.
pub(crate) fn timed_out(what: &'static str, waiting_for: &str, budget: Duration) -> StoreError {
    let cause = io::Error::new(
        io::ErrorKind::TimedOut,
        format!("no {waiting_for} within {} ms", budget.as_millis()),
    );
    unreachable(what, cause)
}

/// The pool could not give a connection: it timed out, or could not open
/// one (refused, reset, the server starting up or shutting down, …).
pub(crate) fn pool_failure(what: &'static str, error: PoolError) -> StoreError {
    match error {
        PoolError::Timeout(_) | PoolError::Backend(_) => unreachable(what, error),
        other => StoreError::new(what, other),
    }
}

/// A failure of the driver while working on a connection.
pub(crate) fn sql_failure(what: &'static str, error: tokio_postgres::Error) -> StoreError {
    if is_unreachable(&error) {
        unreachable(what, error)
    } else {
        StoreError::new(what, error)
    }
}

/// Whether the driver's error means the database is out of reach: the
/// connection is closed, broke (an I/O error), or PostgreSQL said so
/// (SQLSTATE class 08, connection exception; 57P01–57P03, shutting down,
/// crashed, not accepting connections yet).
pub(crate) fn is_unreachable(error: &tokio_postgres::Error) -> bool {
    if error.is_closed() {
        return true;
    }
    if let Some(state) = error.code() {
        let code = state.code();
        return code.starts_with("08") || matches!(code, "57P01" | "57P02" | "57P03");
    }
    broke_on_io(error)
}

/// Whether an I/O error lies under `error`: the socket was refused, reset,
/// timed out, hit its end. The driver also wraps a malformed message in an
/// I/O error (`InvalidData`, `InvalidInput`): that is no outage.
fn broke_on_io(error: &(dyn std::error::Error + 'static)) -> bool {
    let mut cause = error.source();
    while let Some(inner) = cause {
        if let Some(io) = inner.downcast_ref::<io::Error>() {
            return !matches!(
                io.kind(),
                io::ErrorKind::InvalidData | io::ErrorKind::InvalidInput
            );
        }
        cause = inner.source();
    }
    false
}

/// Whether PostgreSQL refused a new connection because it serves as many
/// clients as it takes (SQLSTATE 53300: `max_connections`, or the role's or
/// the database's connection limit). The database answered: that is load,
/// not an outage.
pub(crate) fn is_full(error: &tokio_postgres::Error) -> bool {
    error.code() == Some(&tokio_postgres::error::SqlState::TOO_MANY_CONNECTIONS)
}

/// Reports a connection refused by a [full](is_full) database, at most once
/// a minute (a busy server meets it on many requests at once): the pools
/// of the processes sharing it ask for more connections than it takes.
pub(crate) fn full(error: &tokio_postgres::Error) {
    static LAST_WARNED: AtomicU64 = AtomicU64::new(0);
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |since| since.as_secs());
    let last = LAST_WARNED.load(Ordering::Relaxed);
    if now >= last + 60
        && LAST_WARNED
            .compare_exchange(last, now, Ordering::Relaxed, Ordering::Relaxed)
            .is_ok()
    {
        tracing::warn!(
            error = %error,
            "PostgreSQL refused a new connection: it serves as many clients as it takes; \
             requests wait for a pooled connection (raise max_connections, or run fewer \
             instances on the database)"
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use deadpool_postgres::TimeoutType;
    use tokio::net::TcpListener;
    use tokio_postgres::NoTls;

    /// The error of connecting to `address` (which must fail).
    async fn connect_error(address: std::net::SocketAddr) -> tokio_postgres::Error {
        let url = format!("postgres://devmgr@{address}/devmgr?connect_timeout=2");
        match url
            .parse::<tokio_postgres::Config>()
            .unwrap()
            .connect(NoTls)
            .await
        {
            Ok(_) => panic!("connected to {address}"),
            Err(error) => error,
        }
    }

    #[tokio::test]
    async fn a_refused_connection_is_unreachable() {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = listener.local_addr().unwrap();
        drop(listener);
        let error = connect_error(address).await;
        assert!(is_unreachable(&error), "{error:?}");
        assert!(sql_failure("read", error).is_unavailable());
    }

    #[tokio::test]
    async fn a_connection_the_server_closes_is_unreachable() {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = listener.local_addr().unwrap();
        tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                drop(stream);
            }
        });
        let error = connect_error(address).await;
        assert!(is_unreachable(&error), "{error:?}");
    }

    #[test]
    fn a_pool_that_times_out_or_cannot_connect_is_unreachable_a_closed_one_is_not() {
        for timeout in [TimeoutType::Wait, TimeoutType::Create, TimeoutType::Recycle] {
            assert!(pool_failure("get", PoolError::Timeout(timeout)).is_unavailable());
        }
        assert!(!pool_failure("get", PoolError::Closed).is_unavailable());
        assert!(timed_out("get", "answer", Duration::from_secs(2)).is_unavailable());
    }

    #[test]
    fn the_database_is_suspect_from_when_it_is_lost_until_it_answers() {
        let reach = Reach::default();
        assert!(!reach.suspect());
        reach.lost();
        assert!(reach.suspect());
        reach.answered();
        assert!(!reach.suspect());
    }

    #[test]
    fn no_answer_in_time_is_a_loss_unless_another_unit_was_answered_meanwhile() {
        let reach = Reach::default();
        let began = Instant::now();
        std::thread::sleep(Duration::from_millis(2));
        reach.answered();
        reach.no_answer_since(began);
        assert!(
            !reach.suspect(),
            "answered after the unit began: busy, not gone"
        );
        let later = Instant::now();
        std::thread::sleep(Duration::from_millis(2));
        reach.no_answer_since(later);
        assert!(
            reach.suspect(),
            "no answer since the unit began: out of reach"
        );
    }

    #[tokio::test]
    async fn a_loss_ends_the_waits_begun_before_it_only() {
        let reach = Reach::default();
        let waiting = reach.next_loss();
        reach.lost();
        tokio::time::timeout(Duration::from_secs(1), waiting)
            .await
            .expect("a wait begun before the loss ends");
        let later = reach.next_loss();
        assert!(
            tokio::time::timeout(Duration::from_millis(50), later)
                .await
                .is_err(),
            "a wait begun after the loss goes on"
        );
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    #[cfg_attr(
        not(postgres_tests),
        ignore = "PostgreSQL tests skipped: set DEVMGR_TEST_POSTGRES_URL=postgres://USER@HOST:PORT/DB (a server where USER may create databases) and build again"
    )]
    async fn refusals_of_a_live_database_are_not_unreachable_a_terminated_session_is() {
        let database = tokio::task::spawn_blocking(scratch_postgres::TestDatabase::create)
            .await
            .unwrap();
        let config: tokio_postgres::Config = database.url().parse().unwrap();
        let (client, connection) = config.connect(NoTls).await.unwrap();
        let driver = tokio::spawn(connection);
        client
            .batch_execute("CREATE TABLE t (id INTEGER PRIMARY KEY); INSERT INTO t VALUES (1)")
            .await
            .unwrap();

        let duplicate = client
            .execute("INSERT INTO t VALUES (1)", &[])
            .await
            .unwrap_err();
        assert!(!is_unreachable(&duplicate), "{duplicate:?}");
        assert!(!sql_failure("insert", duplicate).is_unavailable());
        let row = client.query_one("SELECT 'x'::text", &[]).await.unwrap();
        let undecodable = row.try_get::<_, i32>(0).unwrap_err();
        assert!(!is_unreachable(&undecodable), "{undecodable:?}");
        let syntax = client.execute("SELEC 1", &[]).await.unwrap_err();
        assert!(!is_unreachable(&syntax), "{syntax:?}");

        let terminated = client
            .batch_execute("SELECT pg_terminate_backend(pg_backend_pid())")
            .await
            .unwrap_err();
        assert!(is_unreachable(&terminated), "{terminated:?}");
        let _ = driver.await;
        let closed = client.execute("SELECT 1", &[]).await.unwrap_err();
        assert!(closed.is_closed(), "{closed:?}");
        assert!(sql_failure("select", closed).is_unavailable());
    }
}
