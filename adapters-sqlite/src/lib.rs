//! devmgr's repositories on an embedded SQLite database.
//!
//! One [`SqliteStore`] implements every repository port: it is a
//! [`Store`](application::ports::Store). Each call runs on
//! tokio's blocking pool, behind a semaphore sized like the connection pool,
//! so no SQLite call ever blocks an async worker and waiting never does
//! either; how long each waited for its connection goes to the
//! `devmgr_db_pool_wait_seconds` histogram (the `metrics` facade). Writes
//! use `BEGIN IMMEDIATE`, so a server and a CLI process can write the same
//! file at once: one waits for the other (busy timeout) instead of failing
//! half-way.

mod accounts;
mod audit;
mod commands;
mod console_sessions;
mod devices;
mod fleet_signals;
mod jobs;
mod keys;
mod login_attempts;
mod monitors;
mod outbox;
mod probe;
#[cfg(test)]
mod query_plans;
mod rows;
mod serving_lock;
mod snapshot;
mod store;
mod tokens;
mod webhooks;

pub use serving_lock::{LockError, ServingLock, lock_file};
pub use store::{BackupInfo, FileError, OpenError, SqliteStore, restore};
