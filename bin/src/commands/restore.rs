//! `devmgr restore --from FILE` (docs/operations.md, "Backups").

use super::backup::absolute;
use crate::CommandError;
use crate::cli::{Cli, RestoreArgs};
use crate::database_url::DatabaseUrl;
use crate::store_marks;
use serde_json::{Value, json};

/// Puts a backup in place of the SQLite database, which no server may be
/// using (and none may start meanwhile), and migrates it; prints the
/// database's path and schema version. PostgreSQL has its own tools.
pub async fn run(cli: &Cli, args: &RestoreArgs) -> Result<Value, CommandError> {
    let path = match DatabaseUrl::parse(&cli.database_url).map_err(CommandError)? {
        DatabaseUrl::Sqlite(path) => path,
        DatabaseUrl::Postgres(_) => {
            return Err(CommandError(
                "devmgr restore replaces SQLite databases; for PostgreSQL use pg_restore or \
                 psql with a pg_dump file (docs/operations.md, Backups)"
                    .into(),
            ));
        }
    };
    let claim = store_marks::claim_file(
        &path,
        &cli.database_url,
        "restore replaces the whole database",
    )?;
    let from = args.from.clone();
    let target = path.clone();
    let schema_version = actix_web::rt::task::spawn_blocking(move || {
        let restored = adapters_sqlite::restore(&from, &target);
        drop(claim);
        restored
    })
    .await
    .map_err(CommandError::from_display)?
    .map_err(CommandError::from_display)?;
    Ok(json!({
        "restored": absolute(&path),
        "from": absolute(&args.from),
        "schema_version": schema_version,
    }))
}
