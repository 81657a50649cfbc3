//! `devmgr-agent run` against a stub server: heartbeats, long polls,
//! commands, acknowledgements, backoff.

use crate::support::{
    COMMANDS, DEVICE_TOKEN, HEARTBEAT, Reply, Request, RunningAgent, SERIAL, StubServer, ack_path,
    acks_of, agent_command, command, count, heartbeat_answer, idle_poll, write_config,
};
use serde_json::json;
use std::time::Duration;

#[test]
fn heartbeats_carry_the_token_and_facts_and_commands_are_carried_out_once() {
    let server = StubServer::start(|request, earlier| {
        if request.is("POST", HEARTBEAT) {
            if count(earlier, "POST", HEARTBEAT) == 0 {
                heartbeat_answer(json!([
                    command("c1", "reboot"),
                    command("c2", "selfdestruct")
                ]))
            } else {
                heartbeat_answer(json!([]))
            }
        } else if request.is("GET", COMMANDS) {
            if count(earlier, "GET", COMMANDS) == 0 {
                // The same command again must not run twice.
                Reply::json(200, json!({"commands": [command("c1", "reboot")]}))
            } else {
                idle_poll(request)
            }
        } else {
            Reply::empty(204)
        }
    });
    let directory = tempfile::tempdir().unwrap();
    let config = write_config(directory.path(), &format!("{}/", server.url()));
    let marker = directory.path().join("rebooted");
    let reboot = format!("echo done >> '{}'", marker.display());
    let mut agent = RunningAgent::start(directory.path(), &config, &["--reboot-command", &reboot]);

    let requests = server.wait_for("two heartbeats after all acks", |requests| {
        count(requests, "POST", HEARTBEAT) >= 2
            && count(requests, "POST", &ack_path("c1")) == 3
            && count(requests, "POST", &ack_path("c2")) == 1
    });
    let (status, _) = agent.stop_with("TERM");
    assert!(status.success(), "{status}:\n{}", agent.log());

    assert_eq!(std::fs::read_to_string(&marker).unwrap(), "done\n");
    let authorization = format!("Device {DEVICE_TOKEN}");
    for request in &requests {
        assert_eq!(
            request.header("authorization"),
            Some(authorization.as_str()),
            "{request:?}"
        );
    }
    let heartbeat = requests
        .iter()
        .find(|request| request.is("POST", HEARTBEAT))
        .unwrap();
    assert_eq!(heartbeat.header("content-type"), Some("application/json"));
    let facts = heartbeat.json();
    assert_eq!(facts["agent_version"], env!("CARGO_PKG_VERSION"));
    assert!(
        facts["uname"].as_str().unwrap().starts_with("Linux "),
        "{facts}"
    );
    for key in ["operating_system", "machine_type"] {
        assert!(facts[key].is_string(), "{key}: {facts}");
    }
    for key in ["ram_capacity", "processor_speed"] {
        assert!(facts[key].is_u64(), "{key}: {facts}");
    }
    assert!(facts["ports"].is_array(), "{facts}");
    // Received before it runs, done after; the second delivery is
    // acknowledged again, not run.
    let done = json!({"status": "done", "detail": "reboot started"});
    assert_eq!(
        acks_of(&requests, "c1"),
        [json!({"status": "received"}), done.clone(), done]
    );
    // An unknown action is refused at once.
    assert_eq!(
        acks_of(&requests, "c2"),
        [json!({"status": "failed", "detail": "Unknown action \"selfdestruct\"."})]
    );
    // The long polls wait for the rest of the heartbeat interval: whole seconds, 1–60.
    for poll in requests
        .iter()
        .filter(|request| request.is("GET", COMMANDS))
    {
        assert_eq!(poll.query("wait"), Some("1"), "{poll:?}");
    }
}

#[test]
fn a_failing_reboot_from_a_long_poll_is_acknowledged_as_failed() {
    let server = StubServer::start(|request, earlier| {
        if request.is("POST", HEARTBEAT) {
            heartbeat_answer(json!([]))
        } else if request.is("GET", COMMANDS) && count(earlier, "GET", COMMANDS) == 0 {
            Reply::json(200, json!({"commands": [command("c9", "reboot")]}))
        } else if request.is("GET", COMMANDS) {
            idle_poll(request)
        } else {
            Reply::empty(204)
        }
    });
    let directory = tempfile::tempdir().unwrap();
    let config = write_config(directory.path(), server.url());
    let mut agent = RunningAgent::start(
        directory.path(),
        &config,
        &[
            "--reboot-command",
            "echo starting >&2; echo 'reboot: permission denied' >&2; exit 3",
        ],
    );
    let requests = server.wait_for("the acknowledgements", |requests| {
        count(requests, "POST", &ack_path("c9")) == 2
    });
    let (status, _) = agent.stop_with("TERM");
    assert!(status.success());
    assert_eq!(
        acks_of(&requests, "c9"),
        [
            json!({"status": "received"}),
            json!({
                "status": "failed",
                "detail": "reboot command exited with status 3: reboot: permission denied"
            })
        ]
    );
}

#[test]
fn an_acknowledgement_the_server_could_not_take_is_retried_before_the_next_heartbeat() {
    let server = StubServer::start(|request, earlier| {
        if request.is("POST", HEARTBEAT) {
            if count(earlier, "POST", HEARTBEAT) == 0 {
                heartbeat_answer(json!([command("c3", "reboot")]))
            } else {
                heartbeat_answer(json!([]))
            }
        } else if request.is("GET", COMMANDS) {
            idle_poll(request)
        } else if request.json()["status"] == "done" && acks_of(earlier, "c3").len() == 1 {
            // The first `done`: the server cannot take it now.
            Reply::json(503, json!({"detail": "A server error occurred."}))
        } else {
            Reply::empty(204)
        }
    });
    let directory = tempfile::tempdir().unwrap();
    let config = write_config(directory.path(), server.url());
    let mut agent = RunningAgent::start(directory.path(), &config, &["--reboot-command", "true"]);
    let requests = server.wait_for("a second heartbeat", |requests| {
        count(requests, "POST", HEARTBEAT) >= 2
    });
    let (status, _) = agent.stop_with("TERM");
    assert!(status.success());
    let sequence: Vec<&str> = requests
        .iter()
        .filter(|request| request.method == "POST")
        .map(|request| request.path())
        .collect();
    let ack = ack_path("c3");
    assert_eq!(
        sequence[..5],
        [HEARTBEAT, &ack, &ack, &ack, HEARTBEAT],
        "{sequence:?}"
    );
    let acks = acks_of(&requests, "c3");
    assert_eq!(acks[0], json!({"status": "received"}));
    assert_eq!(acks[1], acks[2]);
    assert_eq!(acks[2]["status"], "done");
}

#[test]
fn the_agent_backs_off_while_the_server_fails_then_recovers() {
    let server = StubServer::start(|request, earlier| {
        if request.is("POST", HEARTBEAT) {
            match count(earlier, "POST", HEARTBEAT) {
                0 => Reply::json(503, json!({"detail": "A server error occurred."})),
                1 => Reply::json(
                    429,
                    json!({"detail": "Request was throttled. Expected available in 1 seconds."}),
                )
                .header("Retry-After", "1"),
                _ => heartbeat_answer(json!([])),
            }
        } else {
            idle_poll(request)
        }
    });
    let directory = tempfile::tempdir().unwrap();
    let config = write_config(directory.path(), server.url());
    let mut agent = RunningAgent::start(directory.path(), &config, &["--max-backoff", "60"]);
    let requests = server.wait_for("a long poll after recovering", |requests| {
        count(requests, "GET", COMMANDS) >= 1
    });
    let (status, _) = agent.stop_with("TERM");
    assert!(status.success());
    let heartbeats: Vec<_> = requests
        .iter()
        .filter(|request| request.is("POST", HEARTBEAT))
        .map(|request| request.received)
        .collect();
    assert_eq!(heartbeats.len(), 3, "{requests:#?}");
    for pair in heartbeats.windows(2) {
        let gap = pair[1] - pair[0];
        assert!(
            gap >= Duration::from_millis(900) && gap < Duration::from_millis(1900),
            "{gap:?}"
        );
    }
    let log = agent.log();
    assert!(log.contains("503"), "{log}");
    assert!(log.contains("429"), "{log}");
}

#[test]
fn a_refused_device_token_is_reported_and_retried_after_growing_waits() {
    let server = StubServer::start(|_, _| {
        Reply::json(401, json!({"detail": "Invalid token."})).header("WWW-Authenticate", "Device")
    });
    let directory = tempfile::tempdir().unwrap();
    let config = write_config(directory.path(), server.url());
    // --max-backoff is for an absent server; 401 has waits of its own.
    let mut agent = RunningAgent::start(directory.path(), &config, &["--max-backoff", "1"]);
    let requests = server.wait_for("three heartbeats", |requests| {
        count(requests, "POST", HEARTBEAT) >= 3
    });
    assert!(agent.is_running());
    let (status, _) = agent.stop_with("TERM");
    assert!(status.success());
    let heartbeats: Vec<_> = requests
        .iter()
        .filter(|request| request.is("POST", HEARTBEAT))
        .map(|request| request.received)
        .collect();
    let gaps = [heartbeats[1] - heartbeats[0], heartbeats[2] - heartbeats[1]];
    assert!(
        gaps[0] >= Duration::from_millis(900) && gaps[0] < Duration::from_millis(1900),
        "{gaps:?}"
    );
    assert!(
        gaps[1] >= Duration::from_millis(1900) && gaps[1] < Duration::from_millis(2900),
        "{gaps:?}"
    );
    let log = agent.log();
    assert!(log.contains("Invalid token."), "{log}");
    assert!(log.contains("deleted"), "{log}");
    assert!(log.contains("devmgr-agent install"), "{log}");
}

#[test]
fn after_401_a_new_install_takes_effect_without_restarting_run() {
    const NEW_TOKEN: &str = "fedcba9876543210fedcba9876543210fedcba98";
    let server = StubServer::start(|request, _| {
        if request.is("POST", "/install/") {
            return Reply::json(
                201,
                json!({
                    "serial": SERIAL,
                    "device_token": NEW_TOKEN,
                    "url": format!("http://devmgr.test/devices/{SERIAL}/"),
                }),
            );
        }
        if request.header("authorization") != Some(&format!("Device {NEW_TOKEN}")) {
            return Reply::json(401, json!({"detail": "Invalid token."}))
                .header("WWW-Authenticate", "Device");
        }
        if request.is("POST", HEARTBEAT) {
            heartbeat_answer(json!([]))
        } else {
            idle_poll(request)
        }
    });
    let directory = tempfile::tempdir().unwrap();
    let config = write_config(directory.path(), server.url());
    let mut agent = RunningAgent::start(directory.path(), &config, &[]);
    server.wait_for("two refused heartbeats", |requests| {
        count(requests, "POST", HEARTBEAT) >= 2
    });

    let installed = agent_command(&[
        "install",
        "--server",
        server.url(),
        "--token",
        "good-token",
        "--config",
        config.to_str().unwrap(),
    ])
    .output()
    .unwrap();
    assert!(installed.status.success(), "{installed:?}");
    let installed_at = std::time::Instant::now();

    let accepted = |request: &Request| {
        request.is("POST", HEARTBEAT)
            && request.header("authorization") == Some(&format!("Device {NEW_TOKEN}"))
    };
    let requests = server.wait_for("a heartbeat with the new token", |requests| {
        requests.iter().any(accepted)
    });
    let heartbeat = requests.iter().find(|request| accepted(request)).unwrap();
    // The configuration is looked at every second while the token is refused.
    assert!(
        heartbeat.received - installed_at < Duration::from_secs(3),
        "{:?}",
        heartbeat.received - installed_at
    );
    assert!(agent.is_running(), "{}", agent.log());
    agent.wait_for_log("connected to the server");
    let (status, _) = agent.stop_with("TERM");
    assert!(status.success());
    assert!(
        agent.log().contains("the configuration changed"),
        "{}",
        agent.log()
    );
    assert!(!agent.log().contains(NEW_TOKEN), "{}", agent.log());
}
