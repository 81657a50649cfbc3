//! `devmgr audit verify` and `devmgr audit export` (docs/audit.md).
//!
//! Both read the log as it is, beside a running server if there is one:
//! they open the database without migrating it (nor creating an SQLite
//! file), so a missing, unmigrated or unreadable database is a log that
//! cannot be read (exit status 2, the reason on stderr).

use crate::cli::{AuditCommand, AuditExportArgs, Cli};
use crate::database_url::DatabaseUrl;
use crate::store_marks::shown;
use crate::wiring::Database;
use crate::{CommandError, Failure};
use adapters_postgres::PgStore;
use adapters_sqlite::SqliteStore;
use application::Services;
use application::ports::StoreError;
use domain::audit::ChainVerdict;
use serde_json::{Value, json};
use std::io::{BufWriter, Write};
use std::process::ExitCode;

/// The exit status of a log that cannot be read.
const UNREADABLE: u8 = 2;

/// Runs an `audit` subcommand, printing its result: verify's verdict (exit
/// 0 intact, 1 broken) or export's lines.
pub async fn run(cli: &Cli, command: &AuditCommand) -> Result<ExitCode, Failure> {
    let app = open(cli).await?;
    match command {
        AuditCommand::Verify => {
            let verdict = verify(cli, &app).await?;
            print_line(&verdict_line(&verdict)).map_err(unreadable)?;
            Ok(if verdict.breach.is_none() {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(1)
            })
        }
        AuditCommand::Export(args) => {
            export(cli, &app, args).await?;
            Ok(ExitCode::SUCCESS)
        }
    }
}

/// `audit verify`'s verdict as a JSON object, for [`crate::run_once`].
pub async fn verdict(cli: &Cli) -> Result<Value, CommandError> {
    let app = open(cli).await.map_err(|failure| failure.error)?;
    let verdict = verify(cli, &app).await.map_err(|failure| failure.error)?;
    serde_json::from_str(&verdict_line(&verdict)).map_err(CommandError::from_display)
}

async fn verify(cli: &Cli, app: &Services) -> Result<ChainVerdict, Failure> {
    app.audit
        .verify()
        .await
        .map_err(|error| cannot_read(cli, &error))
}

/// Prints every entry above `--since` as a JSON line, in id order, as the
/// store hands them over a batch at a time.
async fn export(cli: &Cli, app: &Services, args: &AuditExportArgs) -> Result<(), Failure> {
    let mut out = BufWriter::new(std::io::stdout().lock());
    let mut written: std::io::Result<()> = Ok(());
    app.audit
        .export(args.since, |entry| {
            if written.is_ok() {
                written = writeln!(out, "{}", entry.to_json());
            }
        })
        .await
        .map_err(|error| cannot_read(cli, &error))?;
    written.and_then(|()| out.flush()).map_err(unreadable)
}

/// verify's line, spaced as Python's `json.dumps` spaces it:
/// `{"ok": true, "entries": N}`, or with `"broken"` and `"reason"`.
fn verdict_line(verdict: &ChainVerdict) -> String {
    match &verdict.breach {
        None => format!("{{\"ok\": true, \"entries\": {}}}", verdict.entries),
        Some(breach) => format!(
            "{{\"ok\": false, \"entries\": {}, \"broken\": {}, \"reason\": {}}}",
            verdict.entries,
            breach.id,
            json!(one_line(&breach.reason))
        ),
    }
}

/// Prints `line` and a newline on stdout.
fn print_line(line: &str) -> std::io::Result<()> {
    let mut stdout = std::io::stdout().lock();
    writeln!(stdout, "{line}").and_then(|()| stdout.flush())
}

/// `text` on one line.
fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The application over the database as it is: not migrated, an SQLite
/// file not created.
async fn open(cli: &Cli) -> Result<Services, Failure> {
    let url = &cli.database_url;
    let database = match DatabaseUrl::parse(url).map_err(failure)? {
        DatabaseUrl::Sqlite(path) => {
            if !path.is_file() {
                return Err(failure(format!(
                    "cannot read the audit log: there is no database at {}",
                    path.display()
                )));
            }
            let opened = actix_web::rt::task::spawn_blocking(move || SqliteStore::open(&path))
                .await
                .map_err(unreadable)?;
            Database::Sqlite(opened.map_err(|e| cannot_open(url, &e))?)
        }
        DatabaseUrl::Postgres(address) => Database::Postgres(
            PgStore::connect(&address)
                .await
                .map_err(|e| cannot_open(url, &e))?,
        ),
    };
    super::app_over(cli, database)
        .await
        .map_err(|error| Failure {
            status: UNREADABLE,
            error,
        })
}

fn cannot_open(url: &str, error: &dyn std::fmt::Display) -> Failure {
    failure(format!(
        "cannot read the audit log of {}: {error}",
        shown(url)
    ))
}

fn cannot_read(cli: &Cli, error: &StoreError) -> Failure {
    failure(format!(
        "cannot read the audit log of {} (is it a devmgr database, migrated by this version?): \
         {error}",
        shown(&cli.database_url)
    ))
}

fn unreadable(error: impl std::fmt::Display) -> Failure {
    failure(error.to_string())
}

fn failure(message: String) -> Failure {
    Failure {
        status: UNREADABLE,
        error: CommandError(message),
    }
}

#[cfg(test)]
mod tests {
    use super::verdict_line;
    use domain::audit::{Breach, ChainVerdict};

    #[test]
    fn the_verdict_is_spaced_as_python_prints_it() {
        let intact = ChainVerdict {
            entries: 3,
            breach: None,
        };
        assert_eq!(verdict_line(&intact), r#"{"ok": true, "entries": 3}"#);
        let broken = ChainVerdict {
            entries: 7,
            breach: Some(Breach {
                id: 4,
                reason: "its hash does not match\n its \"content\"".into(),
            }),
        };
        assert_eq!(
            verdict_line(&broken),
            r#"{"ok": false, "entries": 7, "broken": 4, "reason": "its hash does not match its \"content\""}"#
        );
    }
}
