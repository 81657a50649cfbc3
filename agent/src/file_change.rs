//! Noticing that a file changed, such as the configuration rewritten by
//! `devmgr-agent install` while `run` waits for a usable device token.

use std::os::unix::fs::MetadataExt;
use std::path::Path;
use std::time::{Duration, SystemTime};

/// How often [`sleep_until_changed`] looks at the file.
pub const CHECK_INTERVAL: Duration = Duration::from_secs(1);

/// What tells one version of a file from another: its inode (an atomic
/// replacement makes a new one), length and modification time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FileVersion {
    inode: u64,
    length: u64,
    modified: Option<SystemTime>,
}

impl FileVersion {
    /// The version of the file at `path`; `None` when it cannot be seen.
    pub fn of(path: &Path) -> Option<Self> {
        let metadata = std::fs::metadata(path).ok()?;
        Some(Self {
            inode: metadata.ino(),
            length: metadata.len(),
            modified: metadata.modified().ok(),
        })
    }
}

/// Sleeps for `delay`, or less: until the file at `path` changes (looked at
/// every [`CHECK_INTERVAL`]). Returns whether it changed.
pub async fn sleep_until_changed(path: &Path, delay: Duration) -> bool {
    let before = FileVersion::of(path);
    let deadline = tokio::time::Instant::now() + delay;
    loop {
        let now = tokio::time::Instant::now();
        if now >= deadline {
            return false;
        }
        tokio::time::sleep((deadline - now).min(CHECK_INTERVAL)).await;
        if FileVersion::of(path) != before {
            return true;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_replaced_file_is_another_version() {
        let directory = tempfile::tempdir().unwrap();
        let path = directory.path().join("config.json");
        assert_eq!(FileVersion::of(&path), None);
        std::fs::write(&path, "one").unwrap();
        let first = FileVersion::of(&path).unwrap();
        assert_eq!(FileVersion::of(&path), Some(first));
        let other = directory.path().join("new");
        std::fs::write(&other, "two").unwrap();
        std::fs::rename(&other, &path).unwrap();
        assert_ne!(FileVersion::of(&path), Some(first));
    }

    #[tokio::test]
    async fn the_sleep_lasts_its_delay_when_nothing_changes() {
        let directory = tempfile::tempdir().unwrap();
        let path = directory.path().join("config.json");
        std::fs::write(&path, "one").unwrap();
        let started = std::time::Instant::now();
        assert!(!sleep_until_changed(&path, Duration::from_millis(300)).await);
        assert!(started.elapsed() >= Duration::from_millis(300));
    }

    #[tokio::test]
    async fn the_sleep_ends_soon_after_the_file_changes() {
        let directory = tempfile::tempdir().unwrap();
        let path = directory.path().join("config.json");
        std::fs::write(&path, "one").unwrap();
        let writer = {
            let path = path.clone();
            tokio::spawn(async move {
                tokio::time::sleep(Duration::from_millis(200)).await;
                std::fs::write(&path, "longer").unwrap();
            })
        };
        let started = std::time::Instant::now();
        assert!(sleep_until_changed(&path, Duration::from_secs(60)).await);
        assert!(started.elapsed() < Duration::from_secs(3));
        writer.await.unwrap();
    }
}
