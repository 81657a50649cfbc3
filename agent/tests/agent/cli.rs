//! The command line outside install and run's loop.

use crate::support::agent;

#[test]
fn facts_prints_one_heartbeat_body() {
    let output = agent(&["facts"]);
    assert!(output.status.success(), "{output:?}");
    let stdout = String::from_utf8(output.stdout).unwrap();
    assert_eq!(stdout.lines().count(), 1, "{stdout}");
    let facts: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    for key in [
        "agent_version",
        "uname",
        "operating_system",
        "machine_type",
        "disk_capacity",
        "disk_used",
        "ram_capacity",
        "processor_speed",
        "ports",
    ] {
        assert!(facts.get(key).is_some(), "{key} missing: {facts}");
    }
}

#[test]
fn run_without_a_configuration_says_how_to_install() {
    let directory = tempfile::tempdir().unwrap();
    let config = directory.path().join("missing.json");
    let output = agent(&["run", "--config", config.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(stderr.starts_with("error: "), "{stderr}");
    assert!(stderr.contains(config.to_str().unwrap()), "{stderr}");
    assert!(stderr.contains("devmgr-agent install"), "{stderr}");
}

#[test]
fn the_config_path_comes_from_the_environment() {
    let directory = tempfile::tempdir().unwrap();
    let config = directory.path().join("from-env.json");
    std::fs::write(&config, "{").unwrap();
    let output = std::process::Command::new(crate::support::AGENT)
        .arg("run")
        .env("DEVMGR_AGENT_CONFIG", &config)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(stderr.contains("malformed"), "{stderr}");
    assert!(stderr.contains(config.to_str().unwrap()), "{stderr}");
}

#[test]
fn a_usage_error_exits_1() {
    let output = agent(&["install", "--server", "http://127.0.0.1:1"]);
    assert_eq!(output.status.code(), Some(1));
    assert!(output.stdout.is_empty());
}
