//! Control characters in a hostile server's text never reach the agent's output raw.

use crate::hostile_support::*;
use crate::support::{
    Reply, RunningAgent, SERIAL, StubServer, agent_command, has_control_characters, write_config,
};
use serde_json::json;

/// Text with a forged log line, terminal escapes, C1 controls and DEL.
const FORGED: &str =
    "bad\n2026-11-21T10:00:00.000000Z ERROR forged line\u{1b}[2J\r\u{85}\u{9b}31m\u{7f}";
/// [`FORGED`] as the agent must write it.
const ESCAPED: &str =
    r"bad\n2026-11-21T10:00:00.000000Z ERROR forged line\u{1b}[2J\r\u{85}\u{9b}31m\u{7f}";

#[test]
fn server_text_in_an_install_error_is_escaped() {
    let server = StubServer::start(|_, _| Reply::json(400, json!({"install_token": [FORGED]})));
    let directory = tempfile::tempdir().unwrap();
    let output = install_command(server.url(), &directory.path().join("config.json"))
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    let stderr = stderr_of(&output);
    assert_no_forged_line(&stderr);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.starts_with("error: "), "{stderr}");
    assert!(
        stderr.contains(&format!("install_token: {ESCAPED}")),
        "{stderr}"
    );
}

#[test]
fn server_text_in_an_install_answer_is_printed_without_raw_controls() {
    let serial = format!("{SERIAL}{FORGED}");
    let answer = json!({
        "serial": serial,
        "device_token": "0123456789abcdef0123456789abcdef01234567",
        "url": format!("http://devmgr.test/{FORGED}"),
    });
    let server = StubServer::start(move |_, _| Reply::json(201, answer.clone()));
    let directory = tempfile::tempdir().unwrap();
    let output = agent_command(&[
        "install",
        "--server",
        server.url(),
        "--token",
        "good-token",
        "--config",
        directory.path().join("config.json").to_str().unwrap(),
    ])
    .env("DEVMGR_AGENT_LOG", "info")
    .output()
    .unwrap();
    assert!(output.status.success(), "{output:?}");
    let stdout = String::from_utf8(output.stdout).unwrap();
    assert_eq!(stdout.lines().count(), 1, "{stdout}");
    assert!(!has_control_characters(stdout.trim_end()), "{stdout:?}");
    let printed: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(printed["serial"], serial);
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(stderr.contains("enrolled"), "{stderr}");
    assert!(stderr.contains(ESCAPED), "{stderr}");
    assert_no_forged_line(&stderr);
}

#[test]
fn server_text_in_the_run_log_is_escaped() {
    let id = format!("c1{FORGED}");
    let command_id = id.clone();
    let server = StubServer::start(move |request, earlier| {
        if request.is("POST", HEARTBEAT) {
            let commands = if count(earlier, "POST", HEARTBEAT) == 0 {
                json!([{"id": command_id, "action": FORGED, "issued_time": FORGED}])
            } else {
                json!([])
            };
            Reply::json(200, json!({"commands": commands, "heartbeat_interval": 1}))
        } else if request.is("GET", COMMANDS) {
            Reply::json(503, json!({"detail": FORGED}))
        } else {
            Reply::empty(204)
        }
    });
    let directory = tempfile::tempdir().unwrap();
    let config = write_config(directory.path(), server.url());
    let mut agent = RunningAgent::start(
        directory.path(),
        &config,
        &["--reboot-command", "true", "--max-backoff", "1"],
    );
    server.wait_for("the acknowledgement and another heartbeat", |requests| {
        count(requests, "POST", HEARTBEAT) >= 2
            && requests
                .iter()
                .any(|request| request.method == "POST" && request.path().ends_with("/ack/"))
    });
    let (status, _) = agent.stop_with("TERM");
    assert!(status.success(), "{}", agent.log());
    let log = agent.log();
    assert_no_forged_line(&log);
    // The id, action and issued time of the command, the acknowledgement's
    // detail, and the long poll's error detail.
    assert!(log.contains(&format!("id=c1{ESCAPED}")), "{log}");
    assert!(log.contains(&format!("action={ESCAPED}")), "{log}");
    assert!(log.contains(&format!("issued_time={ESCAPED}")), "{log}");
    assert!(
        log.contains(&format!("detail=Unknown action \"{ESCAPED}\".")),
        "{log}"
    );
    assert!(
        log.contains(&format!("(503 Service Unavailable): {ESCAPED}")),
        "{log}"
    );
}
