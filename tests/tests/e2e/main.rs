//! devmgr's end-to-end tests: the real `devmgr` binary, a fresh SQLite file per
//! test, real HTTP on 127.0.0.1 and e-mails read back from a `--mail-dir`.
//! The `e2e_postgres` test binary runs the same tests on PostgreSQL.
//!
//! Every expectation comes from the documented API: `docs/api.md`,
//! `docs/agent-protocol.md`, `docs/security.md` and the README.

/// Every database of these tests is an SQLite file.
const BACKEND: support::Backend = support::Backend::Sqlite;

mod device_support;
mod support;

mod agent_api;
mod agent_process;
mod api_description;
mod auth;
mod cli;
mod cli_limits;
mod commands;
mod concurrency;
mod conventions;
mod device_edit;
mod devices;
mod input_rules;
mod outbox;
mod password;
mod password_reset;
mod profile;
mod register;
mod schemathesis;
mod security_accounts;
mod security_server;
mod setup;
mod sqlite_files;
mod throttling;
mod verification;
