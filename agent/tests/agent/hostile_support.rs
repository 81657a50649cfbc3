//! Helpers shared by the tests of a hostile server: its routes, its answers, the agent's traces.

use crate::support::{Request, SERIAL, agent_command, has_control_characters};
use serde_json::json;

pub const HEARTBEAT: &str = "/agent/heartbeat/";
pub const COMMANDS: &str = "/agent/commands/";

/// How many of `requests` are `method` on `path`.
pub fn count(requests: &[Request], method: &str, path: &str) -> usize {
    requests
        .iter()
        .filter(|request| request.is(method, path))
        .count()
}

/// A successful install answer.
pub fn install_answer() -> serde_json::Value {
    json!({
        "serial": SERIAL,
        "device_token": "0123456789abcdef0123456789abcdef01234567",
        "url": format!("http://devmgr.test/devices/{SERIAL}/"),
    })
}

/// `install --server <server> --token good-token --config <config>`.
pub fn install_command(server: &str, config: &std::path::Path) -> std::process::Command {
    agent_command(&[
        "install",
        "--server",
        server,
        "--token",
        "good-token",
        "--config",
        config.to_str().unwrap(),
    ])
}

/// The standard error of `output`, as text.
pub fn stderr_of(output: &std::process::Output) -> String {
    String::from_utf8(output.stderr.clone()).unwrap()
}

/// Fails when `log` has a raw control character or a line forged by the server.
pub fn assert_no_forged_line(log: &str) {
    for line in log.lines() {
        assert!(!has_control_characters(line), "raw control in {line:?}");
        assert!(
            !line
                .trim_start()
                .starts_with("2026-11-21T10:00:00.000000Z ERROR forged"),
            "forged line {line:?} in:\n{log}"
        );
    }
}
