//! The database file: private to its owner, and in WAL mode.

use super::BUSY_TIMEOUT;
use rusqlite::Connection;
use std::path::Path;
use std::time::Duration;

/// Creates the database file with mode 0600 when it is missing, and sets
/// 0600 on it and its `-wal` and `-shm` files when they exist.
pub(super) fn make_private(path: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
    std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(false)
        .mode(0o600)
        .open(path)?;
    for suffix in ["", "-wal", "-shm"] {
        let mut file = path.as_os_str().to_owned();
        file.push(suffix);
        match std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o600)) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(e),
            _ => {}
        }
    }
    Ok(())
}

/// Switches the file to WAL mode (a lasting property of the file). Another
/// process opening the same new file at the same moment can make this fail
/// with SQLITE_BUSY without the busy handler ever running, so retry a while.
pub(super) fn enable_wal(path: &Path) -> rusqlite::Result<()> {
    let conn = Connection::open(path)?;
    conn.busy_timeout(BUSY_TIMEOUT)?;
    let mut attempt = 0;
    loop {
        let mode = conn.query_row("PRAGMA journal_mode = WAL", [], |row| {
            row.get::<_, String>(0)
        });
        match mode {
            Ok(_) => return Ok(()),
            Err(rusqlite::Error::SqliteFailure(e, _))
                if e.code == rusqlite::ErrorCode::DatabaseBusy && attempt < 50 =>
            {
                attempt += 1;
                std::thread::sleep(Duration::from_millis(20));
            }
            Err(e) => return Err(e),
        }
    }
}

#[cfg(test)]
mod tests {
    use rusqlite::Connection;

    /// `.cargo/config.toml` builds the bundled SQLite without the page
    /// cache's shared lock and without counting allocations.
    #[test]
    fn sqlite_is_built_without_process_wide_locks_on_reads() {
        let conn = Connection::open_in_memory().unwrap();
        let options: Vec<String> = conn
            .prepare("PRAGMA compile_options")
            .unwrap()
            .query_map([], |row| row.get(0))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        assert!(
            options.iter().any(|o| o == "DEFAULT_MEMSTATUS=0"),
            "{options:?}"
        );
        assert!(
            !options.iter().any(|o| o == "ENABLE_MEMORY_MANAGEMENT"),
            "{options:?}"
        );
    }
}
