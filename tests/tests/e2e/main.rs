//! devmgr's end-to-end tests: the real app on a fresh database per test,
//! real HTTP on 127.0.0.1 and e-mails read back from the app's mailer (kept
//! in memory, or in a mail directory). The server runs inside the test
//! process unless the process is the subject (see `support`). Every test runs on SQLite and on PostgreSQL, the backend
//! chosen at run time (`name::sqlite`, `name::postgres`), unless it is about
//! one of them.
//!
//! Every expectation comes from the documented API: `docs/api.md`,
//! `docs/agent-protocol.md`, `docs/security.md` and the README.

/// Declares the test `fn $name()` (defined beside the call) once per
/// backend, as `$name::sqlite` and `$name::postgres`, or on the backends
/// named after a colon. A test that runs several servers on one database at
/// once says how many after a semicolon (`; instances 2`): on PostgreSQL it
/// takes as many turns ([`support::on_backend`]). Without
/// `DEVMGR_TEST_POSTGRES_URL` at build time, the PostgreSQL tests are
/// reported as ignored, saying why.
macro_rules! e2e {
    ($name:ident) => {
        e2e!($name: sqlite, postgres);
    };
    ($name:ident: $($backend:ident),+) => {
        e2e!($name: $($backend),+; instances 1);
    };
    ($name:ident: $($backend:ident),+; instances $instances:literal) => {
        mod $name {
            $(e2e!(@on $backend $name $instances);)+
        }
    };
    (@on sqlite $name:ident $instances:literal) => {
        #[test]
        fn sqlite() {
            crate::support::on_backend(crate::support::Backend::Sqlite, super::$name, $instances);
        }
    };
    (@on postgres $name:ident $instances:literal) => {
        #[test]
        #[cfg_attr(
            not(postgres_tests),
            ignore = "PostgreSQL end-to-end tests skipped: set DEVMGR_TEST_POSTGRES_URL=postgres://USER@HOST:PORT/DB (a server where USER may create databases) and build again"
        )]
        fn postgres() {
            crate::support::on_backend(crate::support::Backend::Postgres, super::$name, $instances);
        }
    };
}

mod agent_process_support;
mod agent_support;
mod alerting_support;
mod alerts_support;
mod audit_log_support;
mod audit_support;
mod console_runner;
mod device_edit_support;
mod device_support;
mod fleet_listing_support;
mod fleet_select_support;
mod jobs_agents;
mod jobs_support;
mod support;

mod agent_commands;
mod agent_credentials;
mod agent_heartbeat;
mod agent_install;
mod agent_ports;
mod agent_process;
mod alerts_api;
mod alerts_engine;
mod alerts_mail;
mod api_clients;
mod api_description;
mod api_description_options;
mod api_docs_browser;
mod api_examples;
mod api_fuzzing;
mod api_lint;
mod audit_actions;
mod audit_actions_devices;
mod audit_actions_fleet;
mod audit_api;
mod audit_chain;
mod audit_cli;
mod auth;
mod backups;
mod cli;
mod cli_limits;
mod commands;
mod concurrency;
mod configuration;
mod console_alerts;
mod console_audit;
mod console_browser;
mod console_csrf;
mod console_doors;
mod console_instances;
mod console_jobs;
mod console_limits;
mod console_rules;
mod console_security;
mod console_sessions;
mod conventions;
mod conventions_requests;
mod copy_store;
mod database_outage;
mod device_edit;
mod device_edit_validation;
mod device_routes;
mod devices;
mod fleet_bulk_tags;
mod fleet_device_tags;
mod fleet_listing;
mod fleet_listing_kept;
mod fleet_listing_pages;
mod fleet_select;
mod fleet_select_routes;
mod input_rules;
mod instances;
mod jobs_api;
mod jobs_api_routes;
mod jobs_api_validation;
mod jobs_instances;
mod jobs_restart;
mod login_storm;
mod metrics_dashboard;
mod monitors_api;
mod monitors_api_validation;
mod observability;
mod outbox;
mod password;
mod password_reset;
mod postgres_cli;
mod postgres_tls;
mod profile;
mod readme;
mod reboot_command;
mod register;
mod registration;
mod security_accounts;
mod security_passwords;
mod security_server;
mod setup;
mod shared_limits;
mod sqlite_files;
mod swagger_ui;
mod throttling;
mod throttling_lockout;
mod verification;
mod webhooks_api;
mod webhooks_api_validation;
mod webhooks_delivery;
mod webhooks_instances;
mod webhooks_receivers;
mod webhooks_restart;
