//! The OpenAPI document passes the two common linters with the
//! configurations shipped at the repository's root (`.spectral.yaml`,
//! `redocly.yaml`: their recommended rules, less the one against trailing
//! slashes): no error from either. Their warnings are printed.
//!
//! Also home to the pinned npm packages the API-description tests use
//! (`tests/node/api-tools/`), installed under `target/` by the first test
//! that needs them.

use crate::support::*;
use node_tools::{Node, Packages};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Output;
use std::sync::OnceLock;

/// The npm packages of the API-description tests: Spectral, Redocly,
/// openapi-typescript with openapi-fetch and tsx, playwright-core.
pub const API_TOOLS: Packages = Packages {
    name: "api-tools",
    manifest: include_str!("../../node/api-tools/package.json"),
    lock: include_str!("../../node/api-tools/package-lock.json"),
};

/// The installed [`API_TOOLS`].
pub fn api_tools() -> &'static Node {
    static NODE: OnceLock<Result<Node, String>> = OnceLock::new();
    match NODE.get_or_init(|| node_tools::prepare(API_TOOLS)) {
        Ok(node) => node,
        Err(problem) => panic!("{problem}"),
    }
}

/// The repository's root, where the linters' configurations are.
pub fn repository() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the tests package is in the repository")
        .to_path_buf()
}

fn report(output: &Output) -> String {
    format!(
        "exit {}\n{}\n{}",
        output.status,
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

e2e!(spectral_finds_no_error_in_the_document: sqlite);
fn spectral_finds_no_error_in_the_document() {
    let server = Server::start();
    let output = api_tools()
        .command("spectral")
        .args(["lint", "--format", "json", "--fail-severity", "error"])
        .arg("--ruleset")
        .arg(repository().join(".spectral.yaml"))
        .arg(server.url("/openapi.json"))
        .output()
        .expect("spectral runs");
    let report = report(&output);
    let problems: Vec<Value> = serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|e| panic!("spectral printed no JSON ({e}):\n{report}"));
    // Severity 0 is an error; 1 a warning, 2 information, 3 a hint.
    let errors: Vec<&Value> = problems.iter().filter(|p| p["severity"] == 0).collect();
    assert!(errors.is_empty(), "spectral found errors:\n{report}");
    assert!(output.status.success(), "{report}");
    for problem in &problems {
        println!("spectral: {} {}", problem["code"], problem["message"]);
    }
}

e2e!(redocly_finds_no_error_in_the_document: sqlite);
fn redocly_finds_no_error_in_the_document() {
    let server = Server::start();
    let output = api_tools()
        .command("redocly")
        .args(["lint", "--format", "json"])
        .arg("--config")
        .arg(repository().join("redocly.yaml"))
        .arg(server.url("/openapi.json"))
        .env("REDOCLY_TELEMETRY", "off")
        .env("REDOCLY_SUPPRESS_UPDATE_NOTICE", "true")
        .output()
        .expect("redocly runs");
    let report = report(&output);
    let result: Value = serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|e| panic!("redocly printed no JSON ({e}):\n{report}"));
    assert_eq!(
        result["totals"]["errors"], 0,
        "redocly found errors:\n{report}"
    );
    assert!(output.status.success(), "{report}");
    for problem in result["problems"].as_array().into_iter().flatten() {
        println!("redocly: {} {}", problem["ruleId"], problem["message"]);
    }
}

#[test]
fn the_linters_skip_only_the_trailing_slash_rules() {
    for (file, rule) in [
        (".spectral.yaml", "path-keys-no-trailing-slash: off"),
        ("redocly.yaml", "no-path-trailing-slash: off"),
    ] {
        let text = std::fs::read_to_string(repository().join(file)).expect("the configuration");
        let settings: Vec<&str> = text
            .lines()
            .map(str::trim)
            .filter(|line| !line.is_empty() && !line.starts_with('#'))
            .collect();
        let turned: Vec<&&str> = settings
            .iter()
            .filter(|line| line.ends_with(": off") || line.ends_with(": warn"))
            .collect();
        assert_eq!(turned, [&rule], "{file}");
    }
}
