//! Sets the `postgres_tests` cfg when DEVMGR_TEST_POSTGRES_URL names a
//! server, so the tests that need one (unit tests and the repository contract
//! in `tests/contract.rs`) run; without it they are reported as ignored.

fn main() {
    println!("cargo::rustc-check-cfg=cfg(postgres_tests)");
    println!("cargo::rerun-if-env-changed=DEVMGR_TEST_POSTGRES_URL");
    if std::env::var_os("DEVMGR_TEST_POSTGRES_URL").is_some_and(|url| !url.is_empty()) {
        println!("cargo::rustc-cfg=postgres_tests");
    }
}
