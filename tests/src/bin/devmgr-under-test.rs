//! `devmgr` for the end-to-end tests: the same library entry point as the
//! `devmgr` binary (`bin/src/main.rs` is this one line too), under a name of
//! this package, so that cargo builds it for these tests and hands them its
//! path (`CARGO_BIN_EXE_devmgr-under-test`).

fn main() -> std::process::ExitCode {
    devmgr::main()
}
