//! Options of the commands that copy whole databases: `backup`, `restore`
//! and `copy-store` (docs/operations.md, "Backups").

use clap::Args;
use std::path::PathBuf;

/// Options of `backup`.
#[derive(Debug, Args)]
pub struct BackupArgs {
    /// The new file to write the copy to (mode 0600); an existing file is
    /// never replaced.
    #[arg(long, value_name = "FILE")]
    pub to: PathBuf,
}

/// Options of `restore`.
#[derive(Debug, Args)]
pub struct RestoreArgs {
    /// The backup to put in place of the database (a file `devmgr backup` wrote).
    #[arg(long, value_name = "FILE")]
    pub from: PathBuf,
}

/// Options of `copy-store`.
#[derive(Debug, Args)]
pub struct CopyStoreArgs {
    /// The database to copy: `sqlite://PATH` or `postgres://…` (no server may
    /// be using it).
    #[arg(long, value_name = "URL")]
    pub from: String,
    /// The empty database to fill: `sqlite://PATH` or `postgres://…`.
    #[arg(long, value_name = "URL")]
    pub to: String,
}
