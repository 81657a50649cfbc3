//! Checkpoints on a thread of their own, off the writers' path.
//!
//! SQLite's automatic checkpoint runs inside the commit that takes the
//! write-ahead log past 1,000 pages: that commit, and every write queued
//! behind it, waits while the log is copied into the database and synced
//! (5 % of a reboot's profile, on the one thread that commits grouped
//! writes). So the store's writers checkpoint only past a far larger log
//! ([`WRITER_PAGES`], a safety net), and this thread does the work instead:
//!
//! - every [`PASSIVE_PERIOD`], a passive checkpoint, which copies what it
//!   can without waiting for anyone and costs next to nothing when the log
//!   holds nothing new;
//! - every [`TRUNCATE_PERIOD`], `PRAGMA wal_checkpoint(TRUNCATE)`: automatic
//!   checkpoints never shrink the `-wal` file, and while readers keep
//!   arriving they cannot start it over either, so a burst of writes
//!   (enrolling 100,000 devices) left a 1.7 GB WAL for good
//!   (docs/performance.md, "100,000 connected devices"). It waits briefly
//!   for readers and writers, then truncates the log to nothing; when they
//!   are busy it tries again at the next period.

use rusqlite::{Connection, OpenFlags};
use std::path::{Path, PathBuf};
use std::sync::mpsc::{RecvTimeoutError, Sender, channel};
use std::time::{Duration, Instant};

/// How often the log is copied into the database (passively).
const PASSIVE_PERIOD: Duration = Duration::from_millis(100);
/// How often the WAL is truncated.
const TRUNCATE_PERIOD: Duration = Duration::from_secs(60);
/// How long one truncation waits for the writer's lock and for readers; a
/// waiting heartbeat write is held up at most this long.
const PATIENCE: Duration = Duration::from_millis(200);
/// The log's size, in pages, past which a writer checkpoints in its own
/// commit while this thread runs (SQLite's default is 1,000): about 40 MB,
/// which only a thread held up for seconds lets the writers reach.
pub(super) const WRITER_PAGES: u32 = 10_000;

/// The checkpoint thread of one store: it ends as soon as this is dropped
/// (with the last clone of the store), or when the file is gone.
pub(super) struct Checkpoints {
    _running: Sender<()>,
}

/// Starts the checkpoint thread for the database at `path`; `None` (and a
/// warning) when no thread can be started, and the writers then keep
/// SQLite's own automatic checkpoints.
pub(super) fn start(path: &Path) -> Option<Checkpoints> {
    let path: PathBuf = path.to_owned();
    let (running, stopped) = channel::<()>();
    let spawned = std::thread::Builder::new()
        .name("sqlite-checkpoint".into())
        .spawn(move || {
            let mut checkpointer = Checkpointer::new(path);
            while let Err(RecvTimeoutError::Timeout) = stopped.recv_timeout(PASSIVE_PERIOD) {
                if !checkpointer.path.exists() {
                    return;
                }
                checkpointer.run();
            }
        });
    match spawned {
        Ok(_) => Some(Checkpoints { _running: running }),
        Err(error) => {
            tracing::warn!(%error, "cannot start the WAL checkpoint thread");
            None
        }
    }
}

/// The thread's connection (opened again after an error) and when it last
/// truncated.
struct Checkpointer {
    path: PathBuf,
    conn: Option<Connection>,
    truncated: Instant,
}

impl Checkpointer {
    fn new(path: PathBuf) -> Self {
        Self {
            path,
            conn: None,
            truncated: Instant::now(),
        }
    }

    /// One passive checkpoint, or a truncation when its period is up.
    fn run(&mut self) {
        let truncate = self.truncated.elapsed() >= TRUNCATE_PERIOD;
        if truncate {
            self.truncated = Instant::now();
        }
        let outcome = self.connection().and_then(|conn| {
            let mode = if truncate { "TRUNCATE" } else { "PASSIVE" };
            checkpoint(conn, mode)
        });
        if let Err(error) = outcome {
            tracing::debug!(%error, "WAL checkpoint skipped");
            self.conn = None;
        }
    }

    fn connection(&mut self) -> rusqlite::Result<&Connection> {
        if self.conn.is_none() {
            self.conn = Some(open(&self.path)?);
        }
        Ok(self.conn.as_ref().expect("opened above"))
    }
}

fn open(path: &Path) -> rusqlite::Result<Connection> {
    let conn = Connection::open_with_flags(
        path,
        OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )?;
    conn.busy_timeout(PATIENCE)?;
    Ok(conn)
}

/// Runs `PRAGMA wal_checkpoint(mode)`; returns whether it finished (false:
/// readers or the writer were busy for longer than [`PATIENCE`]).
fn checkpoint(conn: &Connection, mode: &str) -> rusqlite::Result<bool> {
    let busy: i64 = conn.query_row(&format!("PRAGMA wal_checkpoint({mode})"), [], |row| {
        row.get(0)
    })?;
    Ok(busy == 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn truncate_empties_the_wal() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.db");
        let conn = Connection::open(&path).unwrap();
        conn.execute_batch(
            "PRAGMA journal_mode = WAL; CREATE TABLE t (n INTEGER PRIMARY KEY, s TEXT);",
        )
        .unwrap();
        for n in 0..200 {
            conn.execute(
                "INSERT INTO t (n, s) VALUES (?1, hex(randomblob(500)))",
                [n],
            )
            .unwrap();
        }
        let wal = dir.path().join("t.db-wal");
        assert!(std::fs::metadata(&wal).unwrap().len() > 0);
        assert!(checkpoint(&open(&path).unwrap(), "TRUNCATE").unwrap());
        assert_eq!(std::fs::metadata(&wal).unwrap().len(), 0);
        let rows: i64 = conn
            .query_row("SELECT COUNT(*) FROM t", [], |row| row.get(0))
            .unwrap();
        assert_eq!(rows, 200);
    }

    #[test]
    fn a_passive_run_copies_the_log_a_writer_left() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.db");
        let conn = Connection::open(&path).unwrap();
        conn.execute_batch(&format!(
            "PRAGMA journal_mode = WAL; PRAGMA wal_autocheckpoint = {WRITER_PAGES}; \
             CREATE TABLE t (n INTEGER PRIMARY KEY, s TEXT);"
        ))
        .unwrap();
        for n in 0..2_000 {
            conn.execute(
                "INSERT INTO t (n, s) VALUES (?1, hex(randomblob(500)))",
                [n],
            )
            .unwrap();
        }
        let frames = |conn: &Connection| -> (i64, i64) {
            conn.query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |row| {
                Ok((row.get(1)?, row.get(2)?))
            })
            .unwrap()
        };
        let mut checkpointer = Checkpointer::new(path.clone());
        checkpointer.run();
        let (log, copied) = frames(&open(&path).unwrap());
        assert!(log > 1_000, "the writer left its log to the thread: {log}");
        assert_eq!(copied, log, "the thread copied all of it");
    }
}
