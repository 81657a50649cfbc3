//! `--database-url`: which database, and so which adapter.

use std::path::PathBuf;

/// A parsed database URL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DatabaseUrl {
    /// An SQLite file: everything after `sqlite://` is its path.
    Sqlite(PathBuf),
}

impl DatabaseUrl {
    /// Parses `sqlite://PATH`.
    pub fn parse(url: &str) -> Result<Self, String> {
        match url.split_once("://") {
            Some(("sqlite", path)) if !path.is_empty() => Ok(Self::Sqlite(PathBuf::from(path))),
            Some(("sqlite", _)) => Err("the sqlite:// URL has no file path".into()),
            Some((scheme, _)) => Err(format!(
                "unsupported database URL scheme `{scheme}://` (supported: sqlite://PATH)"
            )),
            None => Err("the database URL must look like sqlite://PATH".into()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_relative_or_absolute() {
        assert_eq!(
            DatabaseUrl::parse("sqlite://devmgr.db"),
            Ok(DatabaseUrl::Sqlite("devmgr.db".into()))
        );
        assert_eq!(
            DatabaseUrl::parse("sqlite:///var/lib/devmgr/devmgr.db"),
            Ok(DatabaseUrl::Sqlite("/var/lib/devmgr/devmgr.db".into()))
        );
        assert!(DatabaseUrl::parse("mysql://x").is_err());
        assert!(DatabaseUrl::parse("devmgr.db").is_err());
        assert!(DatabaseUrl::parse("sqlite://").is_err());
    }
}
