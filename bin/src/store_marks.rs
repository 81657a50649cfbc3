//! Whether a server is using a database, as every command that must not
//! run beside one asks: `devmgr serve` marks its database for as long as
//! it runs; `restore` and `copy-store` claim theirs exclusively and refuse,
//! without waiting, while a server holds the mark (docs/operations.md,
//! "Backups"). SQLite: a lock on the file beside the database
//! ([`adapters_sqlite::ServingLock`]), taken before the database is opened;
//! PostgreSQL: an advisory lock ([`adapters_postgres::PgStore::hold_serving_mark`]).

use crate::CommandError;
use crate::database_url::DatabaseUrl;
use crate::wiring::{self, Database};
use adapters_postgres::{ExclusiveClaim, MarkError};
use adapters_sqlite::{LockError, ServingLock};
use application::ports::StoreTransfer;

/// Opens and migrates the database of `url` for `devmgr serve`, marked as
/// served until the current actix system stops (the mark is held by a task
/// of its own). Refused while a restore or copy-store works on it.
pub async fn open_served(url: &str) -> Result<(Database, i32), CommandError> {
    let busy = || {
        CommandError(format!(
            "a devmgr restore or copy-store is working on {}; start the server once it has \
             finished",
            shown(url)
        ))
    };
    let file_lock = match DatabaseUrl::parse(url).map_err(CommandError)? {
        DatabaseUrl::Sqlite(path) => Some(ServingLock::shared(&path).map_err(|e| match e {
            LockError::Busy => busy(),
            other => CommandError::from_display(other),
        })?),
        DatabaseUrl::Postgres(_) => None,
    };
    let (database, version) = wiring::open_store(url).await?;
    let advisory_lock = match &database {
        Database::Postgres(store) => {
            Some(store.hold_serving_mark().await.map_err(|e| match e {
                MarkError::Busy => busy(),
                other => CommandError::from_display(other),
            })?)
        }
        Database::Sqlite(_) => None,
    };
    actix_web::rt::spawn(async move {
        let _marks = (file_lock, advisory_lock);
        std::future::pending::<()>().await;
    });
    Ok((database, version))
}

/// A database a tool has to itself: no server runs on it, and none starts
/// until this is dropped.
pub struct Claimed {
    /// The database, opened and migrated.
    pub database: Database,
    _file_lock: Option<ServingLock>,
    _advisory_lock: Option<ExclusiveClaim>,
}

impl Claimed {
    /// The database as the transfer port.
    pub fn transfer(&self) -> &dyn StoreTransfer {
        match &self.database {
            Database::Sqlite(store) => store,
            Database::Postgres(store) => store,
        }
    }
}

/// Claims the SQLite file at `path` before anything opens it, or says that
/// a server uses it; `why` tells why that matters.
pub fn claim_file(
    path: &std::path::Path,
    url: &str,
    why: &str,
) -> Result<ServingLock, CommandError> {
    ServingLock::exclusive(path).map_err(|e| match e {
        LockError::Busy => in_use(url, why),
        other => CommandError::from_display(other),
    })
}

/// Claims the database of `url` (before opening it, for SQLite), then opens
/// and migrates it; `why` tells why a server must not be using it.
pub async fn claim(url: &str, why: &str) -> Result<Claimed, CommandError> {
    let file_lock = match DatabaseUrl::parse(url).map_err(CommandError)? {
        DatabaseUrl::Sqlite(path) => Some(claim_file(&path, url, why)?),
        DatabaseUrl::Postgres(_) => None,
    };
    let (database, _) = wiring::open_store(url).await?;
    let advisory_lock = match &database {
        Database::Postgres(store) => Some(store.claim_exclusive().await.map_err(|e| match e {
            MarkError::Busy => in_use(url, why),
            other => CommandError::from_display(other),
        })?),
        Database::Sqlite(_) => None,
    };
    Ok(Claimed {
        database,
        _file_lock: file_lock,
        _advisory_lock: advisory_lock,
    })
}

fn in_use(url: &str, why: &str) -> CommandError {
    CommandError(format!(
        "a devmgr server is using {}; stop it first ({why})",
        shown(url)
    ))
}

/// A database URL as messages show it: without a password.
pub fn shown(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_owned();
    };
    if scheme == "sqlite" {
        return url.to_owned();
    }
    let authority_end = rest.find('/').unwrap_or(rest.len());
    let (authority, tail) = rest.split_at(authority_end);
    match authority.rsplit_once('@') {
        Some((user_info, host)) => {
            let user = user_info
                .split_once(':')
                .map_or(user_info, |(user, _)| user);
            format!("{scheme}://{user}@{host}{tail}")
        }
        None => url.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::{open_served, shown};
    use adapters_sqlite::ServingLock;

    #[test]
    fn a_server_does_not_start_while_a_tool_has_the_database() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("devmgr.db");
        let url = format!("sqlite://{}", path.display());
        let tool = ServingLock::exclusive(&path).unwrap();
        let refused = actix_web::rt::System::new().block_on(open_served(&url));
        assert_eq!(
            refused.err().map(|e| e.0),
            Some(format!(
                "a devmgr restore or copy-store is working on {url}; start the server once it \
                 has finished"
            ))
        );
        assert!(!path.exists(), "the database was not even opened");
        drop(tool);
        actix_web::rt::System::new().block_on(async {
            open_served(&url).await.unwrap();
            // While it serves, a tool cannot have the database.
            assert!(ServingLock::exclusive(&path).is_err());
        });
        // The server's system is gone, and its mark with it.
        ServingLock::exclusive(&path).unwrap();
    }

    #[test]
    fn passwords_never_show() {
        assert_eq!(
            shown("postgres://devmgr:s3cret@db:5432/devmgr?sslmode=disable"),
            "postgres://devmgr@db:5432/devmgr?sslmode=disable"
        );
        assert_eq!(shown("postgres://db/devmgr"), "postgres://db/devmgr");
        assert_eq!(shown("sqlite://devmgr.db"), "sqlite://devmgr.db");
    }
}
