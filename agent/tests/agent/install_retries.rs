//! `devmgr-agent install` waits and tries again while the server is throttled or failing.

use crate::install::*;
use crate::support::{Reply, SERIAL, StubServer, agent};
use serde_json::json;
use std::path::Path;
use std::time::{Duration, Instant};

/// A server that answers `failures` in turn, then enrols.
fn server_failing_first(failures: Vec<Reply>) -> StubServer {
    StubServer::start(move |_, earlier| match failures.get(earlier.len()) {
        Some(failure) => failure.clone(),
        None => Reply::json(
            201,
            json!({
                "serial": SERIAL,
                "device_token": format!("{:040x}", 1),
                "url": format!("http://devmgr.test/devices/{SERIAL}/"),
            }),
        ),
    })
}

fn install_against(server: &StubServer, config: &Path, extra: &[&str]) -> std::process::Output {
    let config = config.to_str().unwrap();
    let install = [
        "install",
        "--server",
        server.url(),
        "--token",
        "good-token",
        "--config",
        config,
    ];
    agent(&joined(&install, extra))
}

#[test]
fn install_waits_as_retry_after_says_while_throttled_then_enrols() {
    let throttled = Reply::json(
        429,
        json!({"detail": "Request was throttled. Expected available in 1 seconds."}),
    )
    .header("Retry-After", "1");
    let server = server_failing_first(vec![throttled.clone(), throttled]);
    let directory = tempfile::tempdir().unwrap();
    let config = directory.path().join("config.json");
    let output = install_against(&server, &config, &[]);
    assert!(output.status.success(), "{output:?}");
    assert_eq!(stdout_json(&output)["serial"], SERIAL);
    assert!(config.exists());

    let arrivals: Vec<_> = server.requests().iter().map(|r| r.received).collect();
    assert_eq!(arrivals.len(), 3);
    for pair in arrivals.windows(2) {
        let gap = pair[1] - pair[0];
        // Retry-After: 1, plus at most half of the growing wait.
        assert!(
            gap >= Duration::from_secs(1) && gap < Duration::from_millis(2500),
            "{gap:?}"
        );
    }
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert_eq!(stderr.matches("trying again").count(), 2, "{stderr}");
    assert!(stderr.contains("429"), "{stderr}");
    assert!(stderr.contains("retry_in_seconds=1"), "{stderr}");
}

#[test]
fn install_tries_again_after_a_server_error() {
    let server = server_failing_first(vec![Reply::json(
        503,
        json!({"detail": "A server error occurred."}),
    )]);
    let directory = tempfile::tempdir().unwrap();
    let config = directory.path().join("config.json");
    let output = install_against(&server, &config, &[]);
    assert!(output.status.success(), "{output:?}");
    assert_eq!(server.requests().len(), 2);
    assert!(config.exists());
}

#[test]
fn install_gives_up_when_retry_for_runs_out() {
    let server =
        StubServer::start(|_, _| Reply::json(503, json!({"detail": "A server error occurred."})));
    let directory = tempfile::tempdir().unwrap();
    let config = directory.path().join("config.json");
    let started = Instant::now();
    let output = install_against(&server, &config, &["--retry-for", "2"]);
    let took = started.elapsed();
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    assert!(took < Duration::from_secs(5), "{took:?}");
    let attempts = server.requests().len();
    assert!((2..=3).contains(&attempts), "{attempts} attempts");
    let stderr = String::from_utf8(output.stderr).unwrap();
    let last_line = stderr.lines().last().unwrap();
    assert!(last_line.starts_with("error: "), "{stderr}");
    assert!(
        last_line.contains("503 Service Unavailable): A server error occurred."),
        "{stderr}"
    );
    assert!(
        last_line.contains(&format!("gave up after {attempts} attempts")),
        "{stderr}"
    );
    assert!(!config.exists());
}

#[test]
fn install_refused_with_another_4xx_fails_at_once() {
    let server = StubServer::start(|_, _| Reply::json(403, json!({"detail": "Forbidden."})));
    let directory = tempfile::tempdir().unwrap();
    let config = directory.path().join("config.json");
    let output = install_against(&server, &config, &[]);
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    assert_eq!(server.requests().len(), 1);
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(stderr.contains("Forbidden."), "{stderr}");
    assert!(!stderr.contains("trying again"), "{stderr}");
}
