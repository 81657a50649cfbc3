//! The `devmgr-agent` command.

fn main() -> std::process::ExitCode {
    devmgr_agent::main()
}
