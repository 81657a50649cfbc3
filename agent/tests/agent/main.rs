//! Tests of the `devmgr-agent` binary against a stub server on 127.0.0.1,
//! in one test binary to keep link time down.

mod cli;
mod hostile_server;
mod hostile_support;
mod hostile_text;
mod install;
mod install_retries;
mod install_token;
mod redelivery;
mod run_loop;
mod signals;
mod stub_server;
mod support;
