//! `devmgr-agent` for the end-to-end tests: the agent library's entry point,
//! as in `agent/src/main.rs` (`CARGO_BIN_EXE_devmgr-agent-under-test`).

fn main() -> std::process::ExitCode {
    devmgr_agent::main()
}
