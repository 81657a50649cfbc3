//! The repository contract, run against every storage adapter: each test is
//! a generic function of the ports alone, and `contract_tests!` runs it on a
//! fresh store of each backend (`<module>::<backend>::<test>`).

mod accounts;
mod command_listeners;
mod command_outcomes;
mod commands;
mod device_enrolment;
mod device_reports;
mod devices;
mod keys;
mod login_attempts;
mod outbox;
