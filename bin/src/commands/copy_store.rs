//! `devmgr copy-store --from URL --to URL` (docs/operations.md, "Moving
//! between stores").

use crate::CommandError;
use crate::cli::CopyStoreArgs;
use crate::database_url::DatabaseUrl;
use crate::store_marks::{self, shown};
use application::ports::TransferError;
use application::use_cases::copy_store;
use serde_json::{Map, Value, json};

/// Copies every row of one database into an empty other one, with no
/// server on either; prints how many rows each table had.
pub async fn run(args: &CopyStoreArgs) -> Result<Value, CommandError> {
    let from = DatabaseUrl::parse(&args.from).map_err(|e| CommandError(format!("--from: {e}")))?;
    let to = DatabaseUrl::parse(&args.to).map_err(|e| CommandError(format!("--to: {e}")))?;
    if same_database(&from, &to) {
        return Err(CommandError(
            "--from and --to name the same database".into(),
        ));
    }
    if let DatabaseUrl::Sqlite(path) = &from
        && !path.is_file()
    {
        return Err(CommandError(format!(
            "--from: there is no database at {}",
            path.display()
        )));
    }
    let source = store_marks::claim(
        &args.from,
        "copy-store copies a database no server is writing to",
    )
    .await?;
    let target = store_marks::claim(&args.to, "copy-store fills an empty database").await?;
    // Both are migrated to this build's schema; the stores number their
    // migrations apart, and each checks its columns against the transfer's.
    let counts = copy_store(source.transfer(), target.transfer())
        .await
        .map_err(|e| match e {
            TransferError::NotEmpty(_) => CommandError(format!("--to {}: {e}", shown(&args.to))),
            other => CommandError::from_display(other),
        })?;
    let copied: Map<String, Value> = counts
        .into_iter()
        .map(|(table, n)| (table.label().to_owned(), json!(n)))
        .collect();
    Ok(json!({ "copied": copied }))
}

/// Whether both URLs name one database: the same file (however its path is
/// written), or the same PostgreSQL URL.
fn same_database(from: &DatabaseUrl, to: &DatabaseUrl) -> bool {
    match (from, to) {
        (DatabaseUrl::Sqlite(a), DatabaseUrl::Sqlite(b)) => {
            let real = |p: &std::path::PathBuf| std::fs::canonicalize(p).unwrap_or(p.clone());
            real(a) == real(b)
        }
        (DatabaseUrl::Postgres(a), DatabaseUrl::Postgres(b)) => a == b,
        _ => false,
    }
}
