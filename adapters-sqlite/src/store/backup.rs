//! `devmgr backup` and `devmgr restore` (docs/operations.md, "Backups"): a
//! consistent copy of a database a server may be writing, and a database
//! put back from such a copy. Both copy with `VACUUM INTO`, which reads one
//! snapshot (a single read transaction, so writers go on meanwhile) and
//! writes a compact file, then make the copy durable (fsync) and put it in
//! place with one rename.

use super::{OpenError, SqliteStore, embedded};
use rusqlite::{Connection, ErrorCode, OpenFlags};
use std::fs::{File, OpenOptions};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use thiserror::Error;

/// What a backup wrote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BackupInfo {
    /// The copy's size in bytes.
    pub bytes: u64,
    /// The schema version of the copied database.
    pub schema_version: i32,
}

/// Why a backup or a restore did not happen (nothing was changed).
#[derive(Debug, Error)]
pub enum FileError {
    /// The database to copy does not exist.
    #[error("there is no database at {0}")]
    Missing(PathBuf),
    /// A backup never replaces a file.
    #[error("{0} already exists: choose another file name, or remove it first")]
    Exists(PathBuf),
    /// The file is not an SQLite database at all.
    #[error("{0} is not an SQLite database")]
    NotSqlite(PathBuf),
    /// An SQLite database, but not one devmgr wrote.
    #[error("{0} is not a devmgr database (it has no devmgr schema history)")]
    NotDevmgr(PathBuf),
    /// SQLite's integrity check found damage.
    #[error("{path} is damaged (SQLite's integrity check says: {problem})")]
    Damaged {
        /// The file.
        path: PathBuf,
        /// The first problem found.
        problem: String,
    },
    /// Written by a newer devmgr, with migrations this one does not know.
    #[error(
        "{path} has schema version {version}, newer than this devmgr knows ({known}): \
         restore it with a newer devmgr"
    )]
    Newer {
        /// The file.
        path: PathBuf,
        /// Its schema version.
        version: i32,
        /// The newest this build knows.
        known: i32,
    },
    /// A file could not be read or written.
    #[error("cannot {what} {path}: {source}")]
    Io {
        /// What failed.
        what: &'static str,
        /// The file.
        path: PathBuf,
        /// Cause.
        source: std::io::Error,
    },
    /// SQLite failed.
    #[error("cannot {what} {path}: {source}")]
    Sql {
        /// What failed.
        what: &'static str,
        /// The file.
        path: PathBuf,
        /// Cause.
        source: rusqlite::Error,
    },
    /// The restored database could not be opened or migrated.
    #[error(transparent)]
    Open(#[from] OpenError),
}

impl SqliteStore {
    /// Writes a consistent copy of the database to the new file `target`
    /// (mode 0600), while other connections and processes go on writing.
    /// `target` must not exist; until the copy is complete and on disk it
    /// is written under a temporary name in the same folder.
    pub async fn backup_to(&self, target: &Path) -> Result<BackupInfo, FileError> {
        if target.exists() {
            return Err(FileError::Exists(target.to_owned()));
        }
        let partial = Partial::create(target, "backup")?;
        let into = utf8(partial.path())?.to_owned();
        self.run("back up the database", move |conn| {
            conn.execute("VACUUM INTO ?1", [into])
        })
        .await
        .map_err(|e| FileError::Io {
            what: "write the backup",
            path: target.to_owned(),
            source: std::io::Error::other(e.to_string()),
        })?;
        let target = target.to_owned();
        tokio::task::spawn_blocking(move || {
            let (schema_version, bytes) = partial.seal()?;
            partial.link_as(&target)?;
            Ok(BackupInfo {
                bytes,
                schema_version,
            })
        })
        .await
        .map_err(|e| FileError::Io {
            what: "finish the backup",
            path: PathBuf::new(),
            source: std::io::Error::other(e.to_string()),
        })?
    }
}

/// Puts the devmgr database `from` (a backup) in place of the database at
/// `target`, which no server may be using (the caller holds
/// [`ServingLock::exclusive`](crate::ServingLock::exclusive)), and migrates
/// it; returns its schema version. `from` is checked first (an SQLite
/// database of devmgr, intact, not newer than this build); the target is
/// replaced in one rename, and its old `-wal` and `-shm` files go.
pub fn restore(from: &Path, target: &Path) -> Result<i32, FileError> {
    if !from.is_file() {
        return Err(FileError::Missing(from.to_owned()));
    }
    let source = Connection::open_with_flags(from, OpenFlags::SQLITE_OPEN_READ_ONLY)
        .map_err(|e| sql_error(from, "open", e))?;
    check_devmgr_database(&source, from)?;
    let partial = Partial::create(target, "restore")?;
    source
        .execute("VACUUM INTO ?1", [utf8(partial.path())?])
        .map_err(|e| sql_error(from, "copy", e))?;
    drop(source);
    partial.seal()?;
    for suffix in ["-wal", "-shm"] {
        let mut stale = target.as_os_str().to_owned();
        stale.push(suffix);
        match std::fs::remove_file(&stale) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                return Err(FileError::Io {
                    what: "remove",
                    path: stale.into(),
                    source: e,
                });
            }
            _ => {}
        }
    }
    partial.rename_as(target)?;
    let store = SqliteStore::open(target)?;
    Ok(store.migrate()?)
}

/// Checks that `conn` holds an intact devmgr database this build can migrate.
fn check_devmgr_database(conn: &Connection, path: &Path) -> Result<(), FileError> {
    let problem: String = conn
        .query_row("PRAGMA integrity_check(1)", [], |row| row.get(0))
        .map_err(|e| sql_error(path, "check", e))?;
    if problem != "ok" {
        return Err(FileError::Damaged {
            path: path.to_owned(),
            problem,
        });
    }
    let applied: Vec<(i32, String)> = conn
        .prepare("SELECT version, name FROM refinery_schema_history ORDER BY version")
        .and_then(|mut statement| {
            statement
                .query_map([], |row| Ok((row.get(0)?, row.get(1)?)))?
                .collect()
        })
        .map_err(|_| FileError::NotDevmgr(path.to_owned()))?;
    let runner = embedded::migrations::runner();
    let known = runner.get_migrations();
    let newest = known.iter().map(|m| m.version()).max().unwrap_or(0);
    if applied.is_empty() {
        return Err(FileError::NotDevmgr(path.to_owned()));
    }
    for (version, name) in applied {
        match known.iter().find(|m| m.version() == version) {
            Some(migration) if migration.name() == name => {}
            Some(_) => return Err(FileError::NotDevmgr(path.to_owned())),
            None if version > newest => {
                return Err(FileError::Newer {
                    path: path.to_owned(),
                    version,
                    known: newest,
                });
            }
            None => return Err(FileError::NotDevmgr(path.to_owned())),
        }
    }
    Ok(())
}

/// A copy being written under a temporary name beside its final place
/// (mode 0600 from its creation); removed if it never gets there.
struct Partial {
    path: PathBuf,
    placed: bool,
}

impl Partial {
    /// An empty file beside `target`, which `VACUUM INTO` may fill.
    fn create(target: &Path, purpose: &str) -> Result<Self, FileError> {
        let name = target
            .file_name()
            .ok_or_else(|| FileError::Io {
                what: "write",
                path: target.to_owned(),
                source: std::io::Error::other("the path names no file"),
            })?
            .to_string_lossy();
        let path = target.with_file_name(format!(".{name}.{purpose}-{}", std::process::id()));
        OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(&path)
            .map_err(|source| FileError::Io {
                what: "create",
                path: path.clone(),
                source,
            })?;
        Ok(Self {
            path,
            placed: false,
        })
    }

    fn path(&self) -> &Path {
        &self.path
    }

    /// Makes the written copy durable; returns its schema version and size.
    fn seal(&self) -> Result<(i32, u64), FileError> {
        let io = |what| {
            let path = self.path.clone();
            move |source| FileError::Io { what, path, source }
        };
        let file = File::open(&self.path).map_err(io("read"))?;
        file.sync_all().map_err(io("sync"))?;
        let bytes = file.metadata().map_err(io("read"))?.len();
        let copy = Connection::open_with_flags(&self.path, OpenFlags::SQLITE_OPEN_READ_ONLY)
            .map_err(|e| sql_error(&self.path, "open", e))?;
        let version = copy
            .query_row(
                "SELECT COALESCE(MAX(version), 0) FROM refinery_schema_history",
                [],
                |row| row.get(0),
            )
            .unwrap_or(0);
        Ok((version, bytes))
    }

    /// Gives the copy its final name, which must be free (a hard link
    /// never replaces a file), and syncs the folder.
    fn link_as(mut self, target: &Path) -> Result<(), FileError> {
        std::fs::hard_link(&self.path, target).map_err(|source| {
            if source.kind() == std::io::ErrorKind::AlreadyExists {
                FileError::Exists(target.to_owned())
            } else {
                FileError::Io {
                    what: "write",
                    path: target.to_owned(),
                    source,
                }
            }
        })?;
        self.placed = true;
        let _ = std::fs::remove_file(&self.path);
        sync_folder(target)
    }

    /// Puts the copy in place of `target` (replacing it), and syncs the folder.
    fn rename_as(mut self, target: &Path) -> Result<(), FileError> {
        std::fs::rename(&self.path, target).map_err(|source| FileError::Io {
            what: "replace",
            path: target.to_owned(),
            source,
        })?;
        self.placed = true;
        sync_folder(target)
    }
}

impl Drop for Partial {
    fn drop(&mut self) {
        if !self.placed {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}

/// Makes a new name in the folder of `file` durable.
fn sync_folder(file: &Path) -> Result<(), FileError> {
    let folder = match file.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    };
    File::open(folder)
        .and_then(|dir| dir.sync_all())
        .map_err(|source| FileError::Io {
            what: "sync",
            path: folder.to_owned(),
            source,
        })
}

fn utf8(path: &Path) -> Result<&str, FileError> {
    path.to_str().ok_or_else(|| FileError::Io {
        what: "write",
        path: path.to_owned(),
        source: std::io::Error::other("SQLite needs a path in UTF-8"),
    })
}

fn sql_error(path: &Path, what: &'static str, source: rusqlite::Error) -> FileError {
    match source.sqlite_error_code() {
        Some(ErrorCode::NotADatabase) => FileError::NotSqlite(path.to_owned()),
        Some(ErrorCode::DatabaseCorrupt) => FileError::Damaged {
            path: path.to_owned(),
            problem: source.to_string(),
        },
        _ => FileError::Sql {
            what,
            path: path.to_owned(),
            source,
        },
    }
}
