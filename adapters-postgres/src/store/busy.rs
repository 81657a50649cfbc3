//! Telling a busy database from a lost one while a unit of work waits: the
//! answers other units, or a probe sent early in the wait, got meanwhile
//! ([`Reach`](super::outage::Reach)). A unit whose time runs out while the database answers
//! gets another window ([`BUSY_LIMIT`]); one that gets no answer fails as
//! unavailable ([`super::work`]).

use super::PgStore;
use super::work::{PROBE_AFTER, WORK_TIMEOUT};
use deadpool_postgres::Object;
use std::time::Duration;
use tokio::time::{Instant, timeout_at};

/// The longest one try may go on past its time limit while the database
/// answers other units (counted from when the try got its connection): the
/// database is then busy (a loaded machine, a lock held by other work), not
/// out of reach, and the try waits rather than fail. A try begun while the
/// database is out of reach never sees another unit answered, so the
/// bounds of [`super::work`] hold for it.
pub(super) const BUSY_LIMIT: Duration = Duration::from_secs(10);

impl PgStore {
    /// A try's `work`, given until `due` (`None`: out of time). When time
    /// runs out while the database answered other units, or a probe, since
    /// [`PROBE_AFTER`] into the try's window (at least [`WORK_TIMEOUT`]), the
    /// database is busy rather than gone: the try gets another window, up to
    /// [`BUSY_LIMIT`] after `lent`.
    ///
    /// The probe goes early, whatever answered before, so that a loaded
    /// machine has nearly the whole window to answer it, and only answers
    /// after it count: under the full test suite's load CI saw a lone PATCH,
    /// and later a lone heartbeat, answer 503 when a probe had less time, or
    /// was left out because another unit had been answered just before.
    pub(super) async fn await_work<F: Future>(
        &self,
        lent: Instant,
        due: Instant,
        work: F,
    ) -> Option<F::Output> {
        tokio::pin!(work);
        let window = due.saturating_duration_since(lent).max(WORK_TIMEOUT);
        let limit = lent + BUSY_LIMIT.max(window);
        let mut due = due;
        loop {
            let asking = due
                .checked_sub(window)
                .map_or(due, |start| (start + PROBE_AFTER).min(due));
            if let Ok(output) = timeout_at(asking, &mut work).await {
                return Some(output);
            }
            // Ask the database directly, while the work goes on (one probe
            // at a time: one under way answers for this try too).
            tokio::spawn(self.clone().probe(due));
            match timeout_at(due, &mut work).await {
                Ok(output) => return Some(output),
                Err(_) if due < limit && self.reach.answered_since(asking) => {
                    due = (due + window).min(limit);
                }
                Err(_) => return None,
            }
        }
    }

    /// Asks the database for a round trip by `deadline`, on the listening
    /// session ([`Notifications::answers`](crate::notifications::Notifications::answers))
    /// or, while none listens, `SELECT 1` on another pooled connection: an
    /// answer counts as one ([`Reach::answered`](super::outage::Reach::answered)). One probe at a
    /// time; a pooled connection that did not answer leaves the pool.
    pub(super) async fn probe(self, deadline: Instant) {
        if !self.reach.begin_probe() {
            return;
        }
        let answered = match self.notifications.answers(deadline).await {
            Some(answered) => answered,
            None => self.probe_pooled(deadline).await,
        };
        if answered {
            self.reach.answered();
        }
        self.reach.end_probe();
    }

    /// `SELECT 1` on a pooled connection by `deadline`: whether it answered.
    async fn probe_pooled(&self, deadline: Instant) -> bool {
        let Ok(Ok(client)) = timeout_at(deadline, self.pool.get()).await else {
            return false;
        };
        match timeout_at(deadline, client.simple_query("SELECT 1")).await {
            Ok(Ok(_)) => true,
            _ => {
                drop(Object::take(client));
                false
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::PgStore;
    use std::time::Duration;
    use tokio_postgres::NoTls;

    /// The time the lock is held: past the time limit of one try.
    const HELD_FOR: Duration = Duration::from_secs(3);

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    #[cfg_attr(
        not(postgres_tests),
        ignore = "PostgreSQL tests skipped: set DEVMGR_TEST_POSTGRES_URL=postgres://USER@HOST:PORT/DB (a server where USER may create databases) and build again"
    )]
    async fn a_write_held_up_past_its_time_limit_waits_while_the_database_answers() {
        let database = tokio::task::spawn_blocking(scratch_postgres::TestDatabase::create)
            .await
            .unwrap();
        database.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, n INTEGER NOT NULL); INSERT INTO t VALUES (1, 0)");
        let store = PgStore::connect(database.url()).await.unwrap();
        let config: tokio_postgres::Config = database.url().parse().unwrap();
        let (holder, connection) = config.connect(NoTls).await.unwrap();
        tokio::spawn(connection);
        holder
            .batch_execute("BEGIN; UPDATE t SET n = n + 1 WHERE id = 1")
            .await
            .unwrap();

        let blocked = store.run("blocked update", |c| {
            Box::pin(async move {
                Ok(c.execute("UPDATE t SET n = n + 10 WHERE id = 1", &[])
                    .await?)
            })
        });
        let others = async {
            // Another unit answered early in the blocked one's window, then
            // nothing: only a probe can tell that the database still answers.
            tokio::time::sleep(Duration::from_millis(200)).await;
            let quick = store.run("quick read", |c| {
                Box::pin(async move { Ok(c.simple_query("SELECT 1").await.map(drop)?) })
            });
            quick.await.unwrap();
            tokio::time::sleep(HELD_FOR).await;
            holder.batch_execute("COMMIT").await.unwrap();
        };
        let (updated, ()) = tokio::join!(blocked, others);
        assert_eq!(updated.expect("a busy database is no outage"), 1);
        let n: i32 = store
            .run("read", |c| {
                Box::pin(async move {
                    Ok(c.query_one("SELECT n FROM t WHERE id = 1", &[])
                        .await?
                        .try_get(0)?)
                })
            })
            .await
            .unwrap();
        assert_eq!(n, 11, "both updates, once each");
    }
}
