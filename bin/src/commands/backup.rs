//! `devmgr backup --to FILE` (docs/operations.md, "Backups").

use crate::CommandError;
use crate::cli::{BackupArgs, Cli};
use crate::database_url::DatabaseUrl;
use adapters_sqlite::SqliteStore;
use serde_json::{Value, json};
use std::path::Path;

/// Writes a consistent copy of the SQLite database to a new file, mode
/// 0600, while a server may be writing; prints where, its size and its
/// schema version. PostgreSQL has its own tools.
pub async fn run(cli: &Cli, args: &BackupArgs) -> Result<Value, CommandError> {
    let path = match DatabaseUrl::parse(&cli.database_url).map_err(CommandError)? {
        DatabaseUrl::Sqlite(path) => path,
        DatabaseUrl::Postgres(_) => {
            return Err(CommandError(
                "devmgr backup copies SQLite databases; for PostgreSQL use pg_dump \
                 (docs/operations.md, Backups)"
                    .into(),
            ));
        }
    };
    if !path.is_file() {
        return Err(CommandError(format!(
            "there is no database at {}",
            path.display()
        )));
    }
    let store = actix_web::rt::task::spawn_blocking(move || SqliteStore::open(&path))
        .await
        .map_err(CommandError::from_display)?
        .map_err(CommandError::from_display)?;
    let info = store
        .backup_to(&args.to)
        .await
        .map_err(CommandError::from_display)?;
    Ok(json!({
        "backup": absolute(&args.to),
        "bytes": info.bytes,
        "schema_version": info.schema_version,
    }))
}

/// `path` made absolute (it exists), for output.
pub(super) fn absolute(path: &Path) -> String {
    std::fs::canonicalize(path)
        .unwrap_or_else(|_| path.to_owned())
        .display()
        .to_string()
}
