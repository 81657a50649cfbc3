//! Files only their owner may read, replaced atomically: the configuration
//! (with the device token) and the record of commands carried out.
//!
//! A file is written as a 0600 temporary file in the same directory, fsynced,
//! renamed over the target, and the directory fsynced: a crash leaves the old
//! file or the new one, never a half-written one.

use std::fs::{self, DirBuilder, File, OpenOptions};
use std::io::{self, Write};
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

/// Permissions of the files: readable and writable by their owner only.
pub const FILE_MODE: u32 = 0o600;
/// Permissions of a directory the agent creates for them.
pub const DIRECTORY_MODE: u32 = 0o700;

/// A file or directory that could not be written.
#[derive(Debug, thiserror::Error)]
#[error("cannot write {}: {source}", path.display())]
pub struct WriteError {
    /// The file or directory.
    pub path: PathBuf,
    /// What went wrong.
    pub source: io::Error,
}

/// Replaces `path` with `contents` atomically, with mode 0600, creating its
/// directory (mode 0700) when it is missing.
pub fn write_atomically(path: &Path, contents: &[u8]) -> Result<(), WriteError> {
    let directory = parent_directory(path);
    create_directory(directory)?;
    let temporary = temporary_path(path);
    let written = create_private_file(&temporary).and_then(|mut file| {
        let failed = |source| WriteError {
            path: temporary.clone(),
            source,
        };
        file.write_all(contents).map_err(failed)?;
        file.sync_all().map_err(failed)?;
        fs::rename(&temporary, path).map_err(|source| WriteError {
            path: path.to_path_buf(),
            source,
        })
    });
    if written.is_err() {
        let _ = fs::remove_file(&temporary);
        return written;
    }
    // Make the rename itself durable; not every file system allows fsync on a
    // directory, and the file is complete either way.
    if let Ok(directory) = File::open(directory) {
        let _ = directory.sync_all();
    }
    Ok(())
}

/// Checks that `path` can be written: creates its directory if needed and
/// creates (then removes) a temporary file next to it.
pub fn check_writable(path: &Path) -> Result<(), WriteError> {
    let directory = parent_directory(path);
    create_directory(directory)?;
    let temporary = temporary_path(path);
    let file = create_private_file(&temporary)?;
    drop(file);
    fs::remove_file(&temporary).map_err(|source| WriteError {
        path: temporary,
        source,
    })
}

/// The directory `path` is in (`.` for a bare file name).
pub fn parent_directory(path: &Path) -> &Path {
    match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    }
}

fn create_directory(directory: &Path) -> Result<(), WriteError> {
    DirBuilder::new()
        .recursive(true)
        .mode(DIRECTORY_MODE)
        .create(directory)
        .map_err(|source| WriteError {
            path: directory.to_path_buf(),
            source,
        })
}

/// `<dir>/.<name>.<pid>.tmp`: in the same directory, so the rename is atomic.
fn temporary_path(path: &Path) -> PathBuf {
    let name = path
        .file_name()
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_else(|| "file".to_owned());
    parent_directory(path).join(format!(".{name}.{}.tmp", std::process::id()))
}

fn create_private_file(path: &Path) -> Result<File, WriteError> {
    let failed = |source| WriteError {
        path: path.to_path_buf(),
        source,
    };
    // A leftover of an earlier attempt by a process with the same id.
    match fs::remove_file(path) {
        Ok(()) => {}
        Err(error) if error.kind() == io::ErrorKind::NotFound => {}
        Err(error) => return Err(failed(error)),
    }
    let file = OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(FILE_MODE)
        .open(path)
        .map_err(failed)?;
    // The umask can only remove bits; make sure of the exact mode anyway.
    file.set_permissions(fs::Permissions::from_mode(FILE_MODE))
        .map_err(failed)?;
    Ok(file)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mode_of(path: &Path) -> u32 {
        fs::metadata(path).unwrap().permissions().mode() & 0o777
    }

    fn names_in(directory: &Path) -> Vec<String> {
        let mut names: Vec<_> = fs::read_dir(directory)
            .unwrap()
            .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    #[test]
    fn a_write_replaces_the_file_with_a_private_one_and_leaves_nothing_else() {
        let directory = tempfile::tempdir().unwrap();
        let path = directory.path().join("state.json");
        fs::write(&path, "old").unwrap();
        fs::set_permissions(&path, fs::Permissions::from_mode(0o644)).unwrap();
        write_atomically(&path, b"new").unwrap();
        assert_eq!(fs::read_to_string(&path).unwrap(), "new");
        assert_eq!(mode_of(&path), 0o600);
        assert_eq!(names_in(directory.path()), ["state.json"]);
    }

    #[test]
    fn a_failed_write_leaves_no_temporary_file() {
        let directory = tempfile::tempdir().unwrap();
        // A directory where the file should be: the rename fails.
        let path = directory.path().join("taken");
        fs::create_dir(&path).unwrap();
        fs::write(path.join("inside"), "").unwrap();
        let error = write_atomically(&path, b"new").unwrap_err();
        assert_eq!(error.path, path);
        assert_eq!(names_in(directory.path()), ["taken"]);
    }

    #[test]
    fn a_missing_directory_is_created_private() {
        let directory = tempfile::tempdir().unwrap();
        let nested = directory.path().join("a").join("b");
        write_atomically(&nested.join("state.json"), b"{}").unwrap();
        assert_eq!(mode_of(&nested), 0o700);
        assert_eq!(names_in(&nested), ["state.json"]);
    }
}
