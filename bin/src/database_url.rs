//! `--database-url`: which database, and so which adapter.

use std::path::PathBuf;

/// A parsed database URL.
#[derive(Clone, PartialEq, Eq)]
pub enum DatabaseUrl {
    /// An SQLite file: everything after `sqlite://` is its path.
    Sqlite(PathBuf),
    /// A PostgreSQL database: the whole `postgres://` or `postgresql://`
    /// URL, as libpq spells it (its own parser reads the rest).
    Postgres(String),
}

impl std::fmt::Debug for DatabaseUrl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Sqlite(path) => f.debug_tuple("Sqlite").field(path).finish(),
            // The URL may carry a password.
            Self::Postgres(_) => f.write_str("Postgres(..)"),
        }
    }
}

/// What the URL formats are, for error messages.
const SUPPORTED: &str = "sqlite://PATH or postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE";

impl DatabaseUrl {
    /// Parses `sqlite://PATH`, `postgres://…` or `postgresql://…`.
    pub fn parse(url: &str) -> Result<Self, String> {
        match url.split_once("://") {
            Some(("sqlite", path)) if !path.is_empty() => Ok(Self::Sqlite(PathBuf::from(path))),
            Some(("sqlite", _)) => Err("the sqlite:// URL has no file path".into()),
            Some(("postgres" | "postgresql", _)) => Ok(Self::Postgres(url.to_owned())),
            Some((scheme, _)) => Err(format!(
                "unsupported database URL scheme `{scheme}://` (supported: {SUPPORTED})"
            )),
            None => Err(format!("the database URL must look like {SUPPORTED}")),
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

    #[test]
    fn postgres_urls_are_kept_whole_and_never_shown() {
        let url = "postgres://devmgr:s3cret@db.internal:5432/devmgr?connect_timeout=5";
        assert_eq!(
            DatabaseUrl::parse(url),
            Ok(DatabaseUrl::Postgres(url.to_owned()))
        );
        assert_eq!(
            DatabaseUrl::parse("postgresql://localhost/devmgr"),
            Ok(DatabaseUrl::Postgres(
                "postgresql://localhost/devmgr".into()
            ))
        );
        assert!(!format!("{:?}", DatabaseUrl::parse(url)).contains("s3cret"));
    }
}
