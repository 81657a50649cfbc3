//! Property-based contract testing: schemathesis, with every one of its
//! checks, against a live `devmgr serve` and its own `/openapi.json`, with
//! real credentials (`tests/schemathesis/devmgr_hooks.py` explains what the
//! hooks supply). Any problem it reports fails this test with its report.

use crate::api_description::contract_python;
use crate::support::*;
use std::path::Path;

#[test]
fn schemathesis_finds_nothing_with_all_checks_on_every_operation() {
    let server = Server::builder().throttle_off().start();
    let account = server.account("schemathesis@example.com");
    server.account("reset@example.com");
    let earlier = server.mails();
    server.register("unverified@example.com");
    let verify_key = verification_key(&server.wait_for_new_mail(&earlier));

    let hooks = Path::new(env!("CARGO_MANIFEST_DIR")).join("schemathesis");
    let work = tempfile::tempdir().expect("a temporary folder");
    let mut command = contract_python().command();
    command
        .current_dir(work.path())
        .args(["-m", "schemathesis.cli", "run"])
        .arg(server.url("/openapi.json"))
        .args(["--checks", "all"])
        .args(["--workers", "1"])
        .args(["--request-timeout", "70"])
        .args(["--generation-database", "none"])
        .arg("--no-color")
        .env("SCHEMATHESIS_HOOKS", "devmgr_hooks")
        .env("DEVMGR_URL", server.base())
        .env("DEVMGR_EMAIL", &account.email)
        .env("DEVMGR_PASSWORD", &account.password)
        .env("DEVMGR_INSTALL_TOKEN", &account.install_token)
        .env("DEVMGR_SERIAL", "5a0c1f3e-2b7d-4c9e-8f61-3d2a4b5c6d7e")
        .env("DEVMGR_VERIFY_KEY", &verify_key)
        .env("DEVMGR_RESET_EMAIL", "reset@example.com")
        .env("DEVMGR_MAIL_DIR", server.mail_dir());
    // The hooks' folder in front of wherever the packages are.
    let inherited = contract_python().pythonpath.clone().unwrap_or_default();
    let pythonpath =
        std::env::join_paths(std::iter::once(hooks).chain(std::env::split_paths(&inherited)))
            .expect("a PYTHONPATH");
    command.env("PYTHONPATH", pythonpath);
    let output = command.output().expect("schemathesis runs");
    let report = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success() && report.contains("No issues found"),
        "schemathesis found problems (exit {}):\n{report}\n{}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    // Every operation of the document was tested.
    assert!(report.contains("Tested: 24"), "{report}");
}
