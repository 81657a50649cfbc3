//! The `devmgr` command.

fn main() -> std::process::ExitCode {
    devmgr::main()
}
