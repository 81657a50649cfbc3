//! Property-based contract testing: schemathesis, with every one of its
//! checks, against a live `devmgr serve` and its own `/openapi.json`, with
//! real credentials (`tests/schemathesis-hooks/devmgr_hooks.py` explains what
//! the hooks supply). Any problem it reports fails this test with its report.
//!
//! The run is reproducible: schemathesis gets a fixed seed, and its Python
//! packages are pinned (`tests/python/contract-requirements.txt`). To try
//! other inputs, set `DEVMGR_SCHEMATHESIS_SEED` to another number.

use crate::api_description::contract_python;
use crate::device_support::install;
use crate::support::*;
use std::path::Path;

/// The seed of a run unless `DEVMGR_SCHEMATHESIS_SEED` names another.
const DEFAULT_SEED: u64 = 20261124;

fn seed() -> u64 {
    match std::env::var("DEVMGR_SCHEMATHESIS_SEED") {
        Ok(seed) => seed
            .trim()
            .parse()
            .unwrap_or_else(|_| panic!("DEVMGR_SCHEMATHESIS_SEED must be a number, not {seed:?}")),
        Err(_) => DEFAULT_SEED,
    }
}

e2e!(schemathesis_finds_nothing_with_all_checks_on_every_operation);
fn schemathesis_finds_nothing_with_all_checks_on_every_operation() {
    // The hooks read the reset mails from the mail directory.
    let server = Server::builder().throttle_off().mail_dir().start();
    let account = server.account("schemathesis@example.com");
    server.account("reset@example.com");
    // The device of the agent routes, in an account of its own that no
    // generated request can reach.
    let agent_owner = server.account("agent-owner@example.com");
    let agent = install(&server, &agent_owner, "schemathesis agent");
    // Logging out everywhere ends every token of an account: the generated
    // calls do it to an account of their own.
    let logout = server.account("logout@example.com");
    let earlier = server.mails();
    server.register("unverified@example.com");
    let verify_key = verification_key(&server.wait_for_new_mail(&earlier));

    let seed = seed();
    let hooks = Path::new(env!("CARGO_MANIFEST_DIR")).join("schemathesis-hooks");
    let work = tempfile::tempdir().expect("a temporary folder");
    let mut command = contract_python().command();
    command
        .current_dir(work.path())
        .args(["-m", "schemathesis.cli", "run"])
        .arg(server.url("/openapi.json"))
        .args(["--checks", "all"])
        .args(["--workers", "1"])
        .args(["--seed", &seed.to_string()])
        .args(["--request-timeout", "70"])
        .args(["--generation-database", "none"])
        .arg("--no-color")
        .env("SCHEMATHESIS_HOOKS", "devmgr_hooks")
        .env("DEVMGR_URL", server.base())
        .env("DEVMGR_EMAIL", &account.email)
        .env("DEVMGR_PASSWORD", &account.password)
        .env("DEVMGR_INSTALL_TOKEN", &account.install_token)
        .env("DEVMGR_LOGOUT_EMAIL", &logout.email)
        .env("DEVMGR_LOGOUT_PASSWORD", &logout.password)
        .env("DEVMGR_AGENT_SERIAL", &agent.serial)
        .env("DEVMGR_AGENT_DEVICE_TOKEN", &agent.token)
        .env("DEVMGR_AGENT_OWNER_TOKEN", &agent_owner.token)
        .env("DEVMGR_VERIFY_KEY", &verify_key)
        .env("DEVMGR_RESET_EMAIL", "reset@example.com")
        .env("DEVMGR_MAIL_DIR", server.mail_dir());
    // The hooks' folder in front of the pinned packages.
    let pythonpath = std::env::join_paths(
        std::iter::once(hooks).chain(std::env::split_paths(&contract_python().pythonpath)),
    )
    .expect("a PYTHONPATH");
    command.env("PYTHONPATH", pythonpath);
    let output = command.output().expect("schemathesis runs");
    let report = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success() && report.contains("No issues found"),
        "schemathesis found problems with seed {seed} (exit {}):\n{report}\n{}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    // Every operation of the document was tested.
    assert!(report.contains("Tested: 53"), "{report}");
}
