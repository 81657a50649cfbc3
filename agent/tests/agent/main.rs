//! Tests of the `devmgr-agent` binary against a stub server on 127.0.0.1,
//! in one test binary to keep link time down.

mod cli;
mod hostile_server;
mod install;
mod redelivery;
mod run_loop;
mod signals;
mod support;
