//! Short reads on the thread that asks for them.
//!
//! Authenticating a token and reading a device are a few index lookups:
//! handing them to the blocking pool costs more (two thread wake-ups, a
//! semaphore, the pool's lock) than the reads themselves. So each thread
//! that reads keeps a connection of its own and reads on it at once, under
//! two bounds that keep an async worker from ever waiting long:
//!
//! - no waiting for locks: a reader never waits for another connection (its
//!   busy timeout is zero; in WAL mode readers do not block on writers, and
//!   the rare busy answer sends the read to the pool);
//! - a budget of SQLite's virtual-machine steps: a read that outgrows it
//!   (a large listing, a search over many devices) is stopped and done again
//!   on the blocking pool, like every write.
//!
//! Nothing read here is kept between requests (a listing answer is kept
//! only under the version the store reads afresh, docs/architecture.md,
//! "Listing answers"). A read outside a view
//! ([`application::view`]) is a transaction of its own; the reads of one
//! view (a request's token, then its device) share one read transaction,
//! begun at its first read and ended when the view ends, when the store
//! writes, or when another view reads on this thread. Each request so sees
//! the last commit at its start, and a deleted token or device is gone on
//! the very next request.

use application::view::{self, ViewId};
use rusqlite::{Connection, ErrorCode, OpenFlags};
use std::cell::RefCell;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
use thread_local::ThreadLocal;

/// How many virtual-machine steps pass between two checks of the budget.
const STEPS_PER_CHECK: i32 = 1_000;
/// Checks before a read is stopped: about 50,000 steps, some hundred
/// microseconds. A point read takes a few hundred steps, a listing of ten
/// devices a few thousand; a listing of a thousand is stopped early, so the
/// little done in vain before the pool does it whole stays small.
const CHECKS_ALLOWED: u32 = 50;
/// Statements each reader keeps prepared.
const STATEMENT_CACHE: usize = 64;

/// Per-thread reader connections to one database file.
pub(crate) struct Readers {
    path: PathBuf,
    connections: ThreadLocal<RefCell<Reader>>,
}

/// One thread's connection, the budget counter of its current read, and
/// the view whose read transaction it holds open.
struct Reader {
    conn: Connection,
    checks: Arc<AtomicU32>,
    view: Option<ViewId>,
}

impl Readers {
    /// Readers of the (already WAL-mode) database at `path`; connections
    /// open on each thread's first read.
    pub(crate) fn new(path: &Path) -> Self {
        Self {
            path: path.to_owned(),
            connections: ThreadLocal::new(),
        }
    }

    /// Runs `work` on this thread's reader, in the current view's read
    /// transaction if it runs in one, or answers `None` when it cannot be
    /// done here within the bounds (the connection could not be opened, the
    /// database was busy, or the read outgrew its budget): the caller then
    /// does it on the blocking pool.
    pub(crate) fn try_read<T>(
        self: &Arc<Self>,
        work: impl FnOnce(&Connection) -> rusqlite::Result<T>,
    ) -> Option<rusqlite::Result<T>> {
        let cell = self
            .connections
            .get_or_try(|| open(&self.path).map(RefCell::new))
            .ok()?;
        let mut reader = cell.try_borrow_mut().ok()?;
        reader.enter(view::current(), self).ok()?;
        reader.checks.store(0, Ordering::Relaxed);
        match work(&reader.conn) {
            Err(rusqlite::Error::SqliteFailure(e, _))
                if matches!(
                    e.code,
                    ErrorCode::OperationInterrupted
                        | ErrorCode::DatabaseBusy
                        | ErrorCode::DatabaseLocked
                ) =>
            {
                reader.leave();
                None
            }
            outcome => Some(outcome),
        }
    }

    /// Ends the read transaction this thread's reader holds for a view, so
    /// that what the store does next (a write, say) and the reads after it
    /// see the last commit.
    pub(crate) fn leave_view_here(&self) {
        self.leave_here(|_| true);
    }

    fn leave_here(&self, whose: impl FnOnce(ViewId) -> bool) {
        if let Some(cell) = self.connections.get()
            && let Ok(mut reader) = cell.try_borrow_mut()
            && reader.view.is_some_and(whose)
        {
            reader.leave();
        }
    }
}

impl Reader {
    /// Makes the reader read in `view`: its open transaction if it already
    /// holds it, else a new one (begun once an earlier view's is ended),
    /// which the view's end ends; outside a view, no transaction.
    fn enter(&mut self, view: Option<ViewId>, readers: &Arc<Readers>) -> rusqlite::Result<()> {
        if view.is_some() && view == self.view && !self.conn.is_autocommit() {
            return Ok(());
        }
        self.leave();
        let Some(view) = view else {
            return Ok(());
        };
        self.conn.prepare_cached("BEGIN")?.execute([])?;
        self.view = Some(view);
        let readers = Arc::downgrade(readers);
        view::when_it_ends(move || {
            if let Some(readers) = readers.upgrade() {
                readers.leave_here(|held| held == view);
            }
        });
        Ok(())
    }

    /// Ends the view's read transaction, if one is open.
    fn leave(&mut self) {
        self.view = None;
        if !self.conn.is_autocommit() {
            let ended = self
                .conn
                .prepare_cached("COMMIT")
                .and_then(|mut commit| commit.execute([]));
            if ended.is_err() {
                let _ = self.conn.execute_batch("ROLLBACK");
            }
        }
    }
}

/// A reader connection: read-only, never waiting, with the search
/// functions and the step budget.
fn open(path: &Path) -> rusqlite::Result<Reader> {
    let conn = Connection::open_with_flags(
        path,
        OpenFlags::SQLITE_OPEN_READ_WRITE
            | OpenFlags::SQLITE_OPEN_NO_MUTEX
            | OpenFlags::SQLITE_OPEN_URI,
    )?;
    conn.busy_timeout(std::time::Duration::ZERO)?;
    conn.execute_batch("PRAGMA query_only = ON;")?;
    super::keep_plans(&conn)?;
    crate::devices::register_functions(&conn)?;
    conn.set_prepared_statement_cache_capacity(STATEMENT_CACHE);
    let checks = Arc::new(AtomicU32::new(0));
    let counted = checks.clone();
    conn.progress_handler(
        STEPS_PER_CHECK,
        Some(move || counted.fetch_add(1, Ordering::Relaxed) >= CHECKS_ALLOWED),
    )?;
    Ok(Reader {
        conn,
        checks,
        view: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn database() -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("readers.db");
        let conn = Connection::open(&path).unwrap();
        conn.execute_batch(
            "PRAGMA journal_mode = WAL; CREATE TABLE t (n INTEGER PRIMARY KEY);
             WITH RECURSIVE s(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM s WHERE n < 100000)
             INSERT INTO t SELECT n FROM s;",
        )
        .unwrap();
        (dir, path)
    }

    #[test]
    fn a_point_read_is_done_here_and_sees_the_last_commit() {
        let (_dir, path) = database();
        let readers = Arc::new(Readers::new(&path));
        let read = |n: i64| {
            readers.try_read(|conn| {
                conn.prepare_cached("SELECT COUNT(*) FROM t WHERE n = ?1")?
                    .query_row([n], |row| row.get::<_, i64>(0))
            })
        };
        assert_eq!(read(7).unwrap().unwrap(), 1);
        Connection::open(&path)
            .unwrap()
            .execute("DELETE FROM t WHERE n = 7", [])
            .unwrap();
        assert_eq!(read(7).unwrap().unwrap(), 0, "no stale answer");
    }

    #[test]
    fn a_read_over_its_budget_is_handed_back() {
        let (_dir, path) = database();
        let readers = Arc::new(Readers::new(&path));
        let all = readers.try_read(|conn| {
            conn.query_row("SELECT SUM(n) FROM t", [], |row| row.get::<_, i64>(0))
        });
        assert!(all.is_none(), "100,000 rows are not read on the worker");
        let small = readers.try_read(|conn| {
            conn.query_row("SELECT SUM(n) FROM t WHERE n <= 10", [], |row| {
                row.get::<_, i64>(0)
            })
        });
        assert_eq!(small.unwrap().unwrap(), 55, "the budget starts anew");
    }

    #[test]
    fn readers_never_write() {
        let (_dir, path) = database();
        let readers = Arc::new(Readers::new(&path));
        let wrote = readers
            .try_read(|conn| conn.execute("DELETE FROM t", []))
            .unwrap();
        assert!(wrote.is_err());
    }

    fn count_of(readers: &Arc<Readers>, n: i64) -> i64 {
        let read = readers.try_read(|conn| {
            conn.prepare_cached("SELECT COUNT(*) FROM t WHERE n = ?1")?
                .query_row([n], |row| row.get(0))
        });
        read.unwrap().unwrap()
    }

    fn delete(path: &Path, n: i64) {
        Connection::open(path)
            .unwrap()
            .execute("DELETE FROM t WHERE n = ?1", [n])
            .unwrap();
    }

    #[tokio::test]
    async fn a_views_reads_see_one_commit_and_the_next_view_the_last() {
        let (_dir, path) = database();
        let readers = Arc::new(Readers::new(&path));
        let seen = view::in_one_view(async {
            let before = count_of(&readers, 7);
            delete(&path, 7);
            (before, count_of(&readers, 7))
        })
        .await;
        assert_eq!(seen, (1, 1), "one view, one commit");
        assert_eq!(count_of(&readers, 7), 0, "outside a view, the last commit");
        let next = view::in_one_view(async { count_of(&readers, 7) }).await;
        assert_eq!(next, 0, "the next view sees the last commit");
    }

    #[tokio::test]
    async fn a_views_snapshot_is_let_go_when_it_ends() {
        let (_dir, path) = database();
        let readers = Arc::new(Readers::new(&path));
        let writer = Connection::open(&path).unwrap();
        let truncate = || {
            writer
                .query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |row| {
                    row.get::<_, i64>(0)
                })
                .unwrap()
        };
        view::in_one_view(async {
            count_of(&readers, 1);
            writer.execute("DELETE FROM t WHERE n = 1", []).unwrap();
            assert_eq!(truncate(), 1, "busy while the view holds its snapshot");
        })
        .await;
        assert_eq!(truncate(), 0, "the whole log copied once the view ended");
    }

    #[tokio::test]
    async fn another_views_read_or_a_write_ends_a_views_snapshot() {
        let (_dir, path) = database();
        let readers = Arc::new(Readers::new(&path));
        view::in_one_view(async {
            assert_eq!(count_of(&readers, 7), 1);
            delete(&path, 7);
            let other = view::in_one_view(async { count_of(&readers, 7) }).await;
            assert_eq!(other, 0, "another request's view sees the last commit");
            assert_eq!(count_of(&readers, 7), 0, "and this view reads anew");
            delete(&path, 8);
            assert_eq!(count_of(&readers, 8), 1, "one commit again");
            readers.leave_view_here();
            assert_eq!(count_of(&readers, 8), 0, "a write here reads anew");
        })
        .await;
    }
}
