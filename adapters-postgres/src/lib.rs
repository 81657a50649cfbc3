//! devmgr's repositories on a shared PostgreSQL database.
//!
//! One [`PgStore`] implements every repository port (it is a
//! [`Store`](application::ports::Store)), so several devmgr
//! processes on one database behave as one server: they share accounts,
//! tokens, lockouts and the outbox, and a command queued through one wakes
//! a device's long poll on another, as a fleet change announced through one
//! wakes the consoles watching it on another (LISTEN/NOTIFY). Work that must
//! be atomic runs in a transaction that locks what it reads; when PostgreSQL
//! aborts one (a deadlock, a serialization failure), it runs again from the
//! start.

mod accounts;
mod audit;
mod commands;
mod console_sessions;
mod devices;
mod fleet_signals;
mod jobs;
mod keys;
mod limits;
mod login_attempts;
mod long_polls;
mod monitors;
mod notifications;
mod outbox;
mod prepared;
mod probe;
mod rows;
mod store;
mod tls;
mod tokens;
mod webhooks;

pub use long_polls::PgLongPolls;
pub use store::{ExclusiveClaim, MarkError, OpenError, PgStore, ServingMark};
