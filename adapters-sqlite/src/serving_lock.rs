//! Whether a server is using a database file: `devmgr serve` holds a shared
//! lock on a file beside the database (`devmgr.db-lock`, named like
//! SQLite's own `-wal` and `-shm`) for as long as it runs; `devmgr restore`
//! and `devmgr copy-store` take it exclusively, without waiting, so they
//! refuse while a server runs and no server starts while they work
//! (docs/operations.md, "Backups").
//!
//! The lock is a `flock` on that separate file, never on the database:
//! SQLite's own POSIX locks on the database would be dropped by closing any
//! other descriptor of it in the process.

use rustix::fs::{FlockOperation, flock};
use rustix::io::Errno;
use std::fs::File;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use thiserror::Error;

/// The lock could not be taken.
#[derive(Debug, Error)]
pub enum LockError {
    /// Another process holds it in a way that excludes this one.
    #[error("the database is in use")]
    Busy,
    /// The lock file could not be opened or locked.
    #[error("cannot lock {path}: {source}")]
    Io {
        /// The lock file.
        path: PathBuf,
        /// Cause.
        source: std::io::Error,
    },
}

/// A lock on a database file, released when dropped (or when the process ends).
#[derive(Debug)]
pub struct ServingLock {
    _file: File,
}

impl ServingLock {
    /// Marks the database at `database` as used by a server; several servers
    /// may hold it at once. [`LockError::Busy`] while a restore or a copy works on it.
    pub fn shared(database: &Path) -> Result<Self, LockError> {
        Self::take(database, FlockOperation::NonBlockingLockShared)
    }

    /// Claims the database at `database` for a tool that must be alone with
    /// it. [`LockError::Busy`] while a server (or another such tool) holds it.
    pub fn exclusive(database: &Path) -> Result<Self, LockError> {
        Self::take(database, FlockOperation::NonBlockingLockExclusive)
    }

    fn take(database: &Path, operation: FlockOperation) -> Result<Self, LockError> {
        let path = lock_file(database);
        let io = |source| LockError::Io {
            path: path.clone(),
            source,
        };
        let file = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .mode(0o600)
            .open(&path)
            .map_err(io)?;
        match flock(&file, operation) {
            Ok(()) => Ok(Self { _file: file }),
            Err(Errno::WOULDBLOCK) => Err(LockError::Busy),
            Err(errno) => Err(io(errno.into())),
        }
    }
}

/// The lock file of a database: its path with `-lock` appended.
pub fn lock_file(database: &Path) -> PathBuf {
    let mut path = database.as_os_str().to_owned();
    path.push("-lock");
    PathBuf::from(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn servers_share_the_lock_and_a_tool_needs_it_alone() {
        let dir = tempfile::tempdir().unwrap();
        let database = dir.path().join("devmgr.db");
        let one = ServingLock::shared(&database).unwrap();
        let two = ServingLock::shared(&database).unwrap();
        assert!(matches!(
            ServingLock::exclusive(&database),
            Err(LockError::Busy)
        ));
        drop(one);
        assert!(matches!(
            ServingLock::exclusive(&database),
            Err(LockError::Busy)
        ));
        drop(two);
        let tool = ServingLock::exclusive(&database).unwrap();
        assert!(matches!(
            ServingLock::shared(&database),
            Err(LockError::Busy)
        ));
        drop(tool);
        ServingLock::shared(&database).unwrap();
        assert!(dir.path().join("devmgr.db-lock").exists());
    }
}
