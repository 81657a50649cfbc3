//! Reads of several statements that must agree: one read transaction, so
//! that every statement sees the same commit.

use rusqlite::Connection;

/// Runs `read` in one read transaction of `conn`: the one `conn` is in
/// (a view's: `store/readers.rs`), or else one of its
/// own, which ends whatever `read` answers, so the connection (a reader kept
/// between requests) is never left holding an old snapshot.
pub(crate) fn in_one_snapshot<T>(
    conn: &Connection,
    read: impl FnOnce() -> rusqlite::Result<T>,
) -> rusqlite::Result<T> {
    if !conn.is_autocommit() {
        return read();
    }
    conn.prepare_cached("BEGIN")?.execute([])?;
    let outcome = read();
    // An interrupted statement has already rolled the transaction back.
    if !conn.is_autocommit() {
        let ended = conn.prepare_cached("COMMIT")?.execute([]);
        if let Err(error) = ended {
            let _ = conn.execute_batch("ROLLBACK");
            return outcome.and(Err(error));
        }
    }
    outcome
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A WAL database with an empty table `t`, and a reader and a writer
    /// of it (the directory goes when dropped).
    fn database() -> (tempfile::TempDir, Connection, Connection) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("snapshot.db");
        let writer = Connection::open(&path).unwrap();
        writer
            .execute_batch("PRAGMA journal_mode = WAL; CREATE TABLE t (n INTEGER);")
            .unwrap();
        (dir, Connection::open(&path).unwrap(), writer)
    }

    fn count(conn: &Connection) -> rusqlite::Result<i64> {
        conn.query_row("SELECT COUNT(*) FROM t", [], |row| row.get(0))
    }

    #[test]
    fn its_statements_see_one_commit_and_the_next_read_sees_the_last() {
        let (_dir, reader, writer) = database();
        let (before, after) = in_one_snapshot(&reader, || {
            let before = count(&reader)?;
            writer.execute("INSERT INTO t VALUES (1)", []).unwrap();
            Ok((before, count(&reader)?))
        })
        .unwrap();
        assert_eq!((before, after), (0, 0));
        assert!(reader.is_autocommit());
        assert_eq!(count(&reader).unwrap(), 1);
    }

    #[test]
    fn a_failed_read_ends_the_transaction_too() {
        let (_dir, reader, writer) = database();
        let failed = in_one_snapshot(&reader, || {
            count(&reader)?;
            reader.query_row("SELECT n FROM missing", [], |row| row.get::<_, i64>(0))
        });
        assert!(failed.is_err());
        assert!(reader.is_autocommit());
        writer.execute("INSERT INTO t VALUES (1)", []).unwrap();
        assert_eq!(count(&reader).unwrap(), 1);
    }

    #[test]
    fn an_interrupted_read_leaves_no_transaction_open() {
        let (_dir, reader, _writer) = database();
        reader.progress_handler(1, Some(|| true)).unwrap();
        let stopped = in_one_snapshot(&reader, || count(&reader));
        assert_eq!(
            stopped.unwrap_err().sqlite_error_code(),
            Some(rusqlite::ErrorCode::OperationInterrupted)
        );
        reader.progress_handler(1, None::<fn() -> bool>).unwrap();
        assert!(reader.is_autocommit());
    }

    #[test]
    fn inside_an_open_transaction_it_reads_in_that_one_and_leaves_it_open() {
        let (_dir, reader, writer) = database();
        reader.execute_batch("BEGIN").unwrap();
        let before = count(&reader).unwrap();
        writer.execute("INSERT INTO t VALUES (1)", []).unwrap();
        let inside = in_one_snapshot(&reader, || count(&reader)).unwrap();
        assert_eq!((before, inside), (0, 0), "the open transaction's commit");
        assert!(!reader.is_autocommit(), "its owner ends it");
        reader.execute_batch("COMMIT").unwrap();
        assert_eq!(count(&reader).unwrap(), 1);
    }
}
