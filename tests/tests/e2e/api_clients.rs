//! Clients generated from `/openapi.json` work: a Python client
//! (openapi-python-client, which must generate it without a warning) and a
//! TypeScript one (openapi-typescript's types for openapi-fetch, type-checked
//! with tsc and run with tsx) each log in, list the devices, reboot one,
//! follow the reboot's command from its `Location`, and log out against a
//! live server (`tests/clients/walkthrough.*`).

use crate::api_lint::api_tools;
use crate::support::*;
use python_tools::{Packages, Python};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::Output;
use std::sync::OnceLock;

/// openapi-python-client and what its clients import, pinned in
/// `tests/python/client-requirements.txt`.
const CLIENT_PACKAGES: Packages = Packages {
    name: "client",
    imports: &["openapi_python_client", "httpx", "attrs", "dateutil"],
    requirements: include_str!("../../python/client-requirements.txt"),
};

fn client_python() -> &'static Python {
    static PYTHON: OnceLock<Result<Python, String>> = OnceLock::new();
    match PYTHON.get_or_init(|| python_tools::prepare(CLIENT_PACKAGES)) {
        Ok(python) => python,
        Err(problem) => panic!("{problem}"),
    }
}

fn clients_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("clients")
}

#[track_caller]
fn succeeded(output: &Output, what: &str) -> String {
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(
        output.status.success(),
        "{what} failed ({}):\n{stdout}\n{}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    stdout
}

/// An account with two devices; the walk-through reboots the second.
struct Fixture {
    server: Server,
    account: Account,
    serial: String,
}

fn fixture() -> Fixture {
    let server = Server::start();
    let account = server.account("client@example.com");
    server.device(&account.email, "kitchen-pi", &[]);
    let serial = string(&server.device(&account.email, "garage-pi", &[]), "serial");
    Fixture {
        server,
        account,
        serial,
    }
}

/// What both walk-throughs must print, and what the server must have seen.
fn assert_walked(fixture: &Fixture, printed: &str) {
    let mut answers: Value = serde_json::from_str(printed.trim())
        .unwrap_or_else(|e| panic!("the walk-through printed no JSON ({e}): {printed}"));
    // Both devices were made in the same second: their order is not the point.
    if let Some(names) = answers["list"][1].as_array_mut() {
        names.sort_by_key(Value::to_string);
    }
    assert_eq!(
        answers,
        json!({
            "login": 201,
            "list": [200, ["garage-pi", "kitchen-pi"]],
            "reboot": [202, "Reboot signal dispatched."],
            "command": [200, "pending"],
            "logout": 204,
            "after_logout": [401, INVALID_TOKEN],
        })
    );
    let commands = fixture
        .server
        .get(&format!("/devices/{}/commands/", fixture.serial))
        .token(&fixture.account.token)
        .send()
        .json();
    assert_eq!(commands[0]["action"], "reboot", "{commands}");
    assert_eq!(commands.as_array().map(Vec::len), Some(1), "{commands}");
}

fn walkthrough_env(command: &mut std::process::Command, fixture: &Fixture) {
    command
        .env("DEVMGR_URL", fixture.server.base())
        .env("DEVMGR_EMAIL", &fixture.account.email)
        .env("DEVMGR_PASSWORD", &fixture.account.password)
        .env("DEVMGR_SERIAL", &fixture.serial);
}

e2e!(a_generated_python_client_logs_in_lists_reboots_and_logs_out: sqlite);
fn a_generated_python_client_logs_in_lists_reboots_and_logs_out() {
    let fixture = fixture();
    let work = tempfile::tempdir().expect("a temporary folder");
    let config = work.path().join("config.yaml");
    // No formatting hooks: they would need ruff on the PATH.
    std::fs::write(
        &config,
        "post_hooks: []\npackage_name_override: devmgr_client\n",
    )
    .expect("the configuration is written");
    let output = client_python()
        .command()
        .args(["-m", "openapi_python_client", "generate", "--meta", "none"])
        .arg("--fail-on-warning")
        .args(["--url", &fixture.server.url("/openapi.json")])
        .arg("--config")
        .arg(&config)
        .arg("--output-path")
        .arg(work.path().join("devmgr_client"))
        .output()
        .expect("openapi-python-client runs");
    succeeded(&output, "openapi-python-client");

    let pythonpath = std::env::join_paths(
        std::iter::once(work.path().to_path_buf())
            .chain(std::env::split_paths(&client_python().pythonpath)),
    )
    .expect("a PYTHONPATH");
    let mut command = client_python().command();
    command
        .arg(clients_dir().join("walkthrough.py"))
        .env("PYTHONPATH", pythonpath);
    walkthrough_env(&mut command, &fixture);
    let printed = succeeded(&command.output().expect("python3 runs"), "walkthrough.py");
    assert_walked(&fixture, &printed);
}

e2e!(a_generated_typescript_client_logs_in_lists_reboots_and_logs_out: sqlite);
fn a_generated_typescript_client_logs_in_lists_reboots_and_logs_out() {
    let fixture = fixture();
    let node = api_tools();
    let work = tempfile::tempdir().expect("a temporary folder");
    std::os::unix::fs::symlink(
        node.dir().join("node_modules"),
        work.path().join("node_modules"),
    )
    .expect("node_modules is linked");
    std::fs::copy(
        clients_dir().join("walkthrough.mts"),
        work.path().join("walkthrough.mts"),
    )
    .expect("the walk-through is copied");
    std::fs::write(
        work.path().join("tsconfig.json"),
        json!({
            "compilerOptions": {
                "strict": true,
                "noEmit": true,
                "target": "es2022",
                "module": "nodenext",
                "moduleResolution": "nodenext",
                "types": ["node"],
                "lib": ["es2022"],
            },
            "files": ["walkthrough.mts"],
        })
        .to_string(),
    )
    .expect("tsconfig.json is written");

    let generated = node
        .command("openapi-typescript")
        .arg(fixture.server.url("/openapi.json"))
        .args(["--output", "schema.ts"])
        .current_dir(work.path())
        .output()
        .expect("openapi-typescript runs");
    succeeded(&generated, "openapi-typescript");
    let checked = node
        .command("tsc")
        .args(["--project", "tsconfig.json"])
        .current_dir(work.path())
        .output()
        .expect("tsc runs");
    succeeded(
        &checked,
        "tsc (the walk-through against the generated types)",
    );

    let mut command = node.command("tsx");
    command.arg("walkthrough.mts").current_dir(work.path());
    walkthrough_env(&mut command, &fixture);
    let printed = succeeded(&command.output().expect("tsx runs"), "walkthrough.mts");
    assert_walked(&fixture, &printed);
}
