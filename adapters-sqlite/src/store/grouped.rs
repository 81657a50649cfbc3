//! Writes committed together (group commit): a thread of the store's takes
//! every write waiting, runs each in a savepoint of one transaction, commits
//! once, and only then answers each, so a write's success still means it is
//! stored. A write that fails is rolled back to its savepoint and answered
//! with its error; the others commit. Nothing waits on purpose: a lone write
//! commits at once, a burst in as many transactions as it takes.
//!
//! A commit costs the same for one write as for fifty (the write-ahead log
//! gets each changed page once per commit, and the audit log's last page
//! changes with every entry), so under load most of that cost is shared.

use super::{Failure, POOL_WAIT, SqliteStore};
use application::StoreError;
use r2d2::Pool;
use r2d2_sqlite::SqliteConnectionManager;
use rusqlite::{Connection, TransactionBehavior};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;
use std::sync::mpsc::{Receiver, Sender, channel};
use std::time::Instant;
use tokio::sync::{Mutex, oneshot};

/// Writes in one transaction at most.
const MOST_IN_ONE_COMMIT: usize = 64;

/// How a write's caller learns its outcome, given whether its transaction
/// committed.
type Answer = Box<dyn FnOnce(Result<(), StoreError>) + Send>;

/// A write waiting for the writer.
trait Job: Send {
    /// Runs the write on the writer's connection, inside its own savepoint:
    /// whether it succeeded, and how to answer its caller.
    fn run(self: Box<Self>, conn: &Connection) -> (bool, Answer);
    /// Answers the caller with `error` without running the write.
    fn refuse(self: Box<Self>, error: StoreError);
}

/// A caller's write, and where its outcome goes.
struct Pending<T, E, F> {
    what: &'static str,
    work: F,
    answer: oneshot::Sender<Result<T, E>>,
    asked: Instant,
}

impl<T, E, F> Job for Pending<T, E, F>
where
    T: Send + 'static,
    E: From<StoreError> + Send + 'static,
    F: FnOnce(&Connection) -> Result<T, Failure<E>> + Send + 'static,
{
    fn run(self: Box<Self>, conn: &Connection) -> (bool, Answer) {
        let Pending {
            what,
            work,
            answer,
            asked,
        } = *self;
        metrics::histogram!(POOL_WAIT).record(asked.elapsed().as_secs_f64());
        let outcome = work(conn);
        let succeeded = outcome.is_ok();
        let reply: Answer = Box::new(move |committed| {
            let result = match (outcome, committed) {
                (Ok(value), Ok(())) => Ok(value),
                (Ok(_), Err(e)) => Err(e.into()),
                (Err(failure), _) => Err(failure.into_outcome(what)),
            };
            let _ = answer.send(result);
        });
        (succeeded, reply)
    }

    fn refuse(self: Box<Self>, error: StoreError) {
        let _ = self.answer.send(Err(error.into()));
    }
}

/// The way to the store's grouped writer; the writer thread ends once every
/// clone of this is dropped.
pub(crate) struct GroupedWriter {
    queue: Sender<Box<dyn Job>>,
}

impl GroupedWriter {
    /// Starts the writer thread on connections of `pool`; it takes the
    /// process's writers' turn (`writers`) for each transaction.
    pub(crate) fn start(
        pool: Pool<SqliteConnectionManager>,
        writers: Arc<Mutex<()>>,
    ) -> std::io::Result<Self> {
        let (queue, arrivals) = channel();
        std::thread::Builder::new()
            .name("sqlite-writes".into())
            .spawn(move || commit_as_they_come(&pool, &writers, &arrivals))?;
        Ok(Self { queue })
    }

    /// Runs `work` in the next transaction of the writer; answers once that
    /// transaction committed (or with the error that stopped it).
    pub(crate) async fn write<T, E, F>(&self, what: &'static str, work: F) -> Result<T, E>
    where
        T: Send + 'static,
        E: From<StoreError> + Send + 'static,
        F: FnOnce(&Connection) -> Result<T, Failure<E>> + Send + 'static,
    {
        let (answer, answered) = oneshot::channel();
        let job = Box::new(Pending {
            what,
            work,
            answer,
            asked: Instant::now(),
        });
        if self.queue.send(job).is_err() {
            return Err(StoreError::new(what, "the database writer has stopped").into());
        }
        // Dropped unanswered only if the write panicked.
        answered
            .await
            .unwrap_or_else(|_| Err(StoreError::new(what, "the write broke off").into()))
    }
}

impl SqliteStore {
    /// Like [`write_mapped`](Self::write_mapped), for a short write on a hot
    /// path (a reboot, say): `work` runs in a savepoint of a transaction it
    /// shares with the other writes waiting at the time, committed once for
    /// them all ([the grouped writer](self)); it must not begin a transaction of its own.
    /// Its caller hears of it once that transaction committed.
    pub(crate) async fn write_grouped<T, E, F>(&self, what: &'static str, work: F) -> Result<T, E>
    where
        T: Send + 'static,
        E: From<StoreError> + Send + 'static,
        F: FnOnce(&Connection) -> Result<T, Failure<E>> + Send + 'static,
    {
        self.readers.leave_view_here();
        let writer = self.grouped.get_or_init(|| {
            GroupedWriter::start(self.pool.clone(), Arc::clone(&self.writers)).ok()
        });
        match writer {
            Some(writer) => writer.write(what, work).await,
            None => {
                self.write_mapped(what, move |conn| {
                    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
                    let value = work(&tx)?;
                    tx.commit()?;
                    Ok(value)
                })
                .await
            }
        }
    }
}

/// The writer's loop: waits for a write, takes every other one waiting (up
/// to [`MOST_IN_ONE_COMMIT`]), runs them in one transaction, answers.
fn commit_as_they_come(
    pool: &Pool<SqliteConnectionManager>,
    writers: &Mutex<()>,
    arrivals: &Receiver<Box<dyn Job>>,
) {
    while let Ok(first) = arrivals.recv() {
        let mut batch = vec![first];
        while batch.len() < MOST_IN_ONE_COMMIT {
            match arrivals.try_recv() {
                Ok(next) => batch.push(next),
                Err(_) => break,
            }
        }
        let _turn = writers.blocking_lock();
        match pool.get() {
            Ok(conn) => commit_together(&conn, batch),
            Err(e) => refuse_all(batch, "write to the database", &e.to_string()),
        }
    }
}

/// Runs every write of `batch` in one transaction (or more, when SQLite
/// rolls one back whole) and answers each once its transaction ended.
fn commit_together(conn: &Connection, batch: Vec<Box<dyn Job>>) {
    let mut jobs = batch.into_iter();
    let mut done: Vec<Answer> = Vec::new();
    let mut open = false;
    while let Some(job) = jobs.next() {
        if !open {
            if let Err(e) = step(conn, "BEGIN IMMEDIATE") {
                refuse_all(
                    std::iter::once(job).chain(jobs),
                    "begin writes",
                    &e.to_string(),
                );
                return;
            }
            open = true;
        }
        if let Err(e) = step(conn, "SAVEPOINT write") {
            let _ = step(conn, "ROLLBACK");
            let cause = e.to_string();
            answer_all(done, "begin a write", &cause);
            refuse_all(std::iter::once(job).chain(jobs), "begin a write", &cause);
            return;
        }
        let ran = catch_unwind(AssertUnwindSafe(|| job.run(conn)));
        let succeeded = matches!(ran, Ok((true, _)));
        let closed = if succeeded {
            step(conn, "RELEASE write")
        } else {
            step(conn, "ROLLBACK TO write").and_then(|()| step(conn, "RELEASE write"))
        };
        if conn.is_autocommit() || closed.is_err() {
            // SQLite rolled the whole transaction back (a full disk, say):
            // the writes before this one are lost with it, and this one.
            let _ = step(conn, "ROLLBACK");
            let lost = ("write to the database", "the transaction was rolled back");
            answer_all(std::mem::take(&mut done), lost.0, lost.1);
            open = false;
            if let Ok((_, answer)) = ran {
                answer(Err(StoreError::new(lost.0, lost.1)));
            }
            continue;
        }
        // A write that panicked dropped its answer: its caller hears that
        // it broke off.
        match ran {
            Ok((true, answer)) => done.push(answer),
            Ok((false, answer)) => answer(Ok(())),
            Err(_) => {}
        }
    }
    if open {
        match step(conn, "COMMIT") {
            Ok(()) => done.into_iter().for_each(|answer| answer(Ok(()))),
            Err(e) => {
                let _ = step(conn, "ROLLBACK");
                answer_all(done, "commit writes", &e.to_string());
            }
        }
    }
}

/// Runs one statement of the writer's own (a transaction's or a
/// savepoint's), prepared once per connection.
fn step(conn: &Connection, statement: &str) -> rusqlite::Result<()> {
    conn.prepare_cached(statement)?.execute([]).map(drop)
}

/// Answers each write of `done` (which ran, and succeeded) that its
/// transaction did not commit: `cause` while doing `what`.
fn answer_all(done: Vec<Answer>, what: &'static str, cause: &str) {
    for answer in done {
        answer(Err(StoreError::new(what, cause.to_owned())));
    }
}

/// Answers each write of `jobs` (which did not run) with the error `cause`
/// while doing `what`.
fn refuse_all(jobs: impl IntoIterator<Item = Box<dyn Job>>, what: &'static str, cause: &str) {
    for job in jobs {
        job.refuse(StoreError::new(what, cause.to_owned()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rusqlite::params;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::time::Duration;

    /// A database with a table `t` of numbers, and a writer on it.
    fn writer() -> (tempfile::TempDir, std::path::PathBuf, GroupedWriter) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("grouped.db");
        Connection::open(&path)
            .unwrap()
            .execute_batch("PRAGMA journal_mode = WAL; CREATE TABLE t (n INTEGER PRIMARY KEY);")
            .unwrap();
        let pool = Pool::builder()
            .max_size(2)
            .build(SqliteConnectionManager::file(&path))
            .unwrap();
        let writer = GroupedWriter::start(pool, Arc::default()).unwrap();
        (dir, path, writer)
    }

    /// The numbers in `t`, as another connection sees them (committed).
    fn committed(path: &std::path::Path) -> Vec<i64> {
        let conn = Connection::open(path).unwrap();
        let mut statement = conn.prepare("SELECT n FROM t ORDER BY n").unwrap();
        statement
            .query_map([], |row| row.get(0))
            .unwrap()
            .collect::<rusqlite::Result<_>>()
            .unwrap()
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn writes_waiting_together_commit_together_and_each_hears_its_own_outcome() {
        let (_dir, path, writer) = writer();
        let writer = Arc::new(writer);
        // Holds the writer until the others queue up behind it.
        let queued = Arc::new(AtomicUsize::new(0));
        let first = {
            let (writer, queued) = (Arc::clone(&writer), Arc::clone(&queued));
            tokio::spawn(async move {
                writer
                    .write("hold", move |conn| {
                        let deadline = Instant::now() + Duration::from_secs(30);
                        while queued.load(Ordering::SeqCst) < 20 && Instant::now() < deadline {
                            std::thread::sleep(Duration::from_millis(10));
                        }
                        // The last one counted is sending now.
                        std::thread::sleep(Duration::from_millis(50));
                        conn.execute("INSERT INTO t VALUES (0)", [])?;
                        Ok::<_, Failure<StoreError>>(Vec::<i64>::new())
                    })
                    .await
            })
        };
        tokio::time::sleep(Duration::from_millis(100)).await;
        let others: Vec<_> = (1..=20_i64)
            .map(|n| {
                let (writer, path) = (Arc::clone(&writer), path.clone());
                let queued = Arc::clone(&queued);
                tokio::spawn(async move {
                    queued.fetch_add(1, Ordering::SeqCst);
                    writer
                        .write("insert", move |conn| {
                            conn.execute("INSERT INTO t VALUES (?1)", params![n])?;
                            match n {
                                // Refused by the domain after writing: undone.
                                7 => Err(Failure::Outcome(StoreError::new("refused", "no"))),
                                // A duplicate key (the first write's row,
                                // committed before this group whatever
                                // order the others queued in): undone, the
                                // error reported.
                                9 => conn
                                    .execute("INSERT INTO t VALUES (0)", [])
                                    .map(|_| vec![])
                                    .map_err(Failure::Sql),
                                11 => panic!("a write that breaks off"),
                                // What another connection sees meanwhile.
                                _ => Ok(committed(&path)),
                            }
                        })
                        .await
                })
            })
            .collect();
        assert_eq!(first.await.unwrap().unwrap(), Vec::<i64>::new());
        let mut seen_outside = Vec::new();
        for (n, other) in (1..=20_i64).zip(others) {
            let outcome = other.await.unwrap();
            match n {
                7 => assert_eq!(outcome.unwrap_err().to_string(), "refused"),
                9 => assert_eq!(outcome.unwrap_err().to_string(), "insert"),
                11 => assert_eq!(outcome.unwrap_err().to_string(), "insert"),
                _ => seen_outside.push(outcome.unwrap()),
            }
        }
        let expected: Vec<i64> = (0..=20).filter(|n| ![7, 9, 11].contains(n)).collect();
        assert_eq!(committed(&path), expected, "the failed writes left nothing");
        // Each ran before its transaction committed, and all of them in the
        // one after the first: none saw another's row from outside.
        assert!(
            seen_outside.iter().all(|seen| seen == &vec![0]),
            "{seen_outside:?}"
        );
    }
}
