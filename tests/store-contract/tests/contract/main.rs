//! The repository contract, run against every storage adapter: each test is
//! a generic function of the ports alone, and `contract_tests!` runs it on a
//! fresh store of each backend (`<module>::<backend>::<test>`).

mod accounts;
mod commands;
mod devices;
mod keys_and_outbox;
mod login_attempts;
