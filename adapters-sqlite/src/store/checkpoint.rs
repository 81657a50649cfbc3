//! A periodic `PRAGMA wal_checkpoint(TRUNCATE)`: SQLite's automatic
//! checkpoints copy the write-ahead log back into the database but never
//! shrink the `-wal` file, and while readers keep arriving they cannot start
//! it over either, so a burst of writes (enrolling 100,000 devices) left a
//! 1.7 GB WAL for good (docs/performance.md, "100,000 connected devices").
//! Once a minute this thread waits briefly for readers and writers, then
//! truncates the WAL to nothing; when they are busy it tries next minute.

use rusqlite::{Connection, OpenFlags};
use std::path::{Path, PathBuf};
use std::sync::mpsc::{RecvTimeoutError, Sender, channel};
use std::time::Duration;

/// How often the WAL is truncated.
const PERIOD: Duration = Duration::from_secs(60);
/// How long one checkpoint waits for the writer's lock and for readers; a
/// waiting heartbeat write is held up at most this long.
const PATIENCE: Duration = Duration::from_millis(200);

/// The checkpoint thread of one store: it ends as soon as this is dropped
/// (with the last clone of the store), or when the file is gone.
pub(super) struct Checkpoints {
    _running: Sender<()>,
}

/// Starts the checkpoint thread for the database at `path`; `None` (and a
/// warning) when no thread can be started.
pub(super) fn start(path: &Path) -> Option<Checkpoints> {
    let path: PathBuf = path.to_owned();
    let (running, stopped) = channel::<()>();
    let spawned = std::thread::Builder::new()
        .name("sqlite-checkpoint".into())
        .spawn(move || {
            while let Err(RecvTimeoutError::Timeout) = stopped.recv_timeout(PERIOD) {
                if !path.exists() {
                    return;
                }
                if let Err(error) = truncate(&path) {
                    tracing::debug!(%error, "WAL checkpoint skipped");
                }
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

/// Checkpoints the whole WAL and truncates it; returns whether it finished
/// (false: readers or the writer were busy for longer than [`PATIENCE`]).
fn truncate(path: &Path) -> rusqlite::Result<bool> {
    let conn = Connection::open_with_flags(
        path,
        OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )?;
    conn.busy_timeout(PATIENCE)?;
    let busy: i64 = conn.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |row| row.get(0))?;
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
        assert!(truncate(&path).unwrap());
        assert_eq!(std::fs::metadata(&wal).unwrap().len(), 0);
        let rows: i64 = conn
            .query_row("SELECT COUNT(*) FROM t", [], |row| row.get(0))
            .unwrap();
        assert_eq!(rows, 200);
    }
}
