//! Declares the `postgres_tests` cfg, and sets it when DEVMGR_TEST_POSTGRES_URL
//! names a server (as `tests/build.rs` does), so that a backend whose tests
//! need a server can mark them `#[cfg_attr(not(postgres_tests), ignore = "…")]`:
//! without a server they are reported as ignored, never as passed.

fn main() {
    println!("cargo::rustc-check-cfg=cfg(postgres_tests)");
    println!("cargo::rerun-if-env-changed=DEVMGR_TEST_POSTGRES_URL");
    if std::env::var_os("DEVMGR_TEST_POSTGRES_URL").is_some_and(|url| !url.is_empty()) {
        println!("cargo::rustc-cfg=postgres_tests");
    }
}
