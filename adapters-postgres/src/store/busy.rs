//! Telling a busy database from a lost one while a unit of work waits: the
//! answers other units got meanwhile, or a probe when there were none
//! ([`Reach`](super::outage::Reach)). A unit whose time runs out while the database answers
//! gets another window ([`BUSY_LIMIT`]); one that gets no answer fails as
//! unavailable ([`super::work`]).

use super::PgStore;
use super::work::WORK_TIMEOUT;
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
    /// runs out while the database answered other units in the last three
    /// quarters of the try's window (at least [`WORK_TIMEOUT`]), or a probe
    /// sent a quarter of the way in when none had, the database is busy
    /// rather than gone: the try gets another window, up to [`BUSY_LIMIT`]
    /// after `lent`. (The probe goes early so that a loaded machine has most
    /// of the window to answer it: CI once saw a lone PATCH answer 503.)
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
            let asking = due.checked_sub(window * 3 / 4).unwrap_or(due);
            if let Ok(output) = timeout_at(asking, &mut work).await {
                return Some(output);
            }
            if !self.answered_lately(asking, window / 4) {
                // No other unit to tell a busy database from a lost one:
                // ask it directly, while the work goes on.
                tokio::spawn(self.clone().probe(due));
            }
            match timeout_at(due, &mut work).await {
                Ok(output) => return Some(output),
                Err(_) if due < limit && self.answered_lately(due, window * 3 / 4) => {
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

    /// Whether the database answered some unit in the `span` before `until`.
    fn answered_lately(&self, until: Instant, span: Duration) -> bool {
        let from = until.checked_sub(span).unwrap_or(until);
        self.reach.answered_since(from)
    }
}
