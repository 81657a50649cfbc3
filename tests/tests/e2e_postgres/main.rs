//! The end-to-end tests of `tests/e2e/` again, with every server and command
//! on a fresh PostgreSQL database (on the server of `DEVMGR_TEST_POSTGRES_URL`),
//! and the tests that only several instances on one database can show.
//!
//! Without `DEVMGR_TEST_POSTGRES_URL` at build time, the one test here is
//! reported as ignored, saying why; no PostgreSQL test passes without a server.

/// Every database of these tests is a PostgreSQL database.
#[cfg(postgres_tests)]
const BACKEND: support::Backend = support::Backend::Postgres;

#[cfg(postgres_tests)]
#[path = "../e2e/agent_api.rs"]
mod agent_api;
#[cfg(postgres_tests)]
#[path = "../e2e/agent_process.rs"]
mod agent_process;
#[cfg(postgres_tests)]
#[path = "../e2e/api_description.rs"]
mod api_description;
#[cfg(postgres_tests)]
#[path = "../e2e/auth.rs"]
mod auth;
#[cfg(postgres_tests)]
#[path = "../e2e/cli.rs"]
mod cli;
#[cfg(postgres_tests)]
#[path = "../e2e/cli_limits.rs"]
mod cli_limits;
#[cfg(postgres_tests)]
#[path = "../e2e/commands.rs"]
mod commands;
#[cfg(postgres_tests)]
#[path = "../e2e/concurrency.rs"]
mod concurrency;
#[cfg(postgres_tests)]
#[path = "../e2e/conventions.rs"]
mod conventions;
#[cfg(postgres_tests)]
#[path = "../e2e/device_edit.rs"]
mod device_edit;
#[cfg(postgres_tests)]
#[path = "../e2e/device_support.rs"]
mod device_support;
#[cfg(postgres_tests)]
#[path = "../e2e/devices.rs"]
mod devices;
#[cfg(postgres_tests)]
#[path = "../e2e/input_rules.rs"]
mod input_rules;
#[cfg(postgres_tests)]
#[path = "../e2e/outbox.rs"]
mod outbox;
#[cfg(postgres_tests)]
#[path = "../e2e/password.rs"]
mod password;
#[cfg(postgres_tests)]
#[path = "../e2e/password_reset.rs"]
mod password_reset;
#[cfg(postgres_tests)]
#[path = "../e2e/profile.rs"]
mod profile;
#[cfg(postgres_tests)]
#[path = "../e2e/register.rs"]
mod register;
#[cfg(postgres_tests)]
#[path = "../e2e/schemathesis.rs"]
mod schemathesis;
#[cfg(postgres_tests)]
#[path = "../e2e/security_accounts.rs"]
mod security_accounts;
#[cfg(postgres_tests)]
#[path = "../e2e/security_server.rs"]
mod security_server;
#[cfg(postgres_tests)]
#[path = "../e2e/setup.rs"]
mod setup;
#[cfg(postgres_tests)]
#[path = "../e2e/support.rs"]
mod support;
#[cfg(postgres_tests)]
#[path = "../e2e/throttling.rs"]
mod throttling;
#[cfg(postgres_tests)]
#[path = "../e2e/verification.rs"]
mod verification;

#[cfg(postgres_tests)]
mod instances;
#[cfg(postgres_tests)]
mod postgres_cli;

#[cfg(not(postgres_tests))]
#[test]
#[ignore = "PostgreSQL end-to-end tests skipped: set DEVMGR_TEST_POSTGRES_URL=postgres://USER@HOST:PORT/DB (a server where USER may create databases) and build again"]
fn postgres_end_to_end_tests() {
    panic!("DEVMGR_TEST_POSTGRES_URL was not set when these tests were built");
}
