//! `devmgr-agent run` stops cleanly and at once on SIGTERM and SIGINT.

use crate::support::{Reply, RunningAgent, StubServer, write_config};
use serde_json::json;
use std::time::Duration;

const PROMPTLY: Duration = Duration::from_secs(1);

#[test]
fn sigterm_during_a_long_poll_exits_0_at_once() {
    let server = StubServer::start(|request, _| {
        if request.is("POST", "/agent/heartbeat/") {
            Reply::json(200, json!({"commands": [], "heartbeat_interval": 30}))
        } else {
            // Hold the long poll for its whole wait.
            let wait: u64 = request.query("wait").unwrap().parse().unwrap();
            Reply::json(200, json!({"commands": []})).after(Duration::from_secs(wait))
        }
    });
    let directory = tempfile::tempdir().unwrap();
    let config = write_config(directory.path(), server.url());
    let mut agent = RunningAgent::start(directory.path(), &config, &[]);
    let requests = server.wait_for("a long poll", |requests| {
        requests
            .iter()
            .any(|request| request.is("GET", "/agent/commands/"))
    });
    let poll = requests.last().unwrap();
    let wait: u64 = poll.query("wait").unwrap().parse().unwrap();
    assert!((29..=30).contains(&wait), "{poll:?}");
    let (status, took) = agent.stop_with("TERM");
    assert_eq!(status.code(), Some(0), "{}", agent.log());
    assert!(took < PROMPTLY, "{took:?}");
}

#[test]
fn sigint_during_a_backoff_exits_0_at_once() {
    // A port nobody listens on: every attempt fails at once.
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", closed.local_addr().unwrap());
    drop(closed);
    let directory = tempfile::tempdir().unwrap();
    let config = write_config(directory.path(), &url);
    let mut agent = RunningAgent::start(directory.path(), &config, &["--max-backoff", "60"]);
    agent.wait_for_log("server unavailable");
    let (status, took) = agent.stop_with("INT");
    assert_eq!(status.code(), Some(0), "{}", agent.log());
    assert!(took < PROMPTLY, "{took:?}");
    assert!(
        agent.log().contains("cannot reach the server"),
        "{}",
        agent.log()
    );
}
