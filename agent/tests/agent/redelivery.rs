//! The server hands a command out again until it is acknowledged: the agent
//! carries each one out once, even across a crash or a reboot
//! (docs/agent-protocol.md, "Carrying out a command once").

use crate::support::{
    COMMANDS, HEARTBEAT, Reply, RunningAgent, StubServer, ack_path, acks_of, command, count,
    heartbeat_answer, idle_poll, lines_of, wait_for_line_in, write_config,
};
use serde_json::json;
use std::path::Path;

/// The record of commands beside `config`.
fn record_of(config: &Path) -> serde_json::Value {
    let path = config.with_file_name("config.json.commands.json");
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn a_command_handed_out_three_times_runs_once_and_each_repeat_is_acknowledged() {
    // Handed out by the first heartbeat, the first long poll and the second
    // heartbeat: three times in a row.
    let server = StubServer::start(|request, earlier| {
        if request.is("POST", HEARTBEAT) {
            if count(earlier, "POST", HEARTBEAT) < 2 {
                heartbeat_answer(json!([command("c1", "reboot")]))
            } else {
                heartbeat_answer(json!([]))
            }
        } else if request.is("GET", COMMANDS) {
            if count(earlier, "GET", COMMANDS) == 0 {
                Reply::json(200, json!({"commands": [command("c1", "reboot")]}))
            } else {
                idle_poll(request)
            }
        } else {
            Reply::empty(204)
        }
    });
    let directory = tempfile::tempdir().unwrap();
    let config = write_config(directory.path(), server.url());
    let marker = directory.path().join("rebooted");
    let reboot = format!("echo rebooted >> '{}'", marker.display());
    let mut agent = RunningAgent::start(directory.path(), &config, &["--reboot-command", &reboot]);
    let requests = server.wait_for("the third heartbeat", |requests| {
        count(requests, "POST", HEARTBEAT) >= 3
    });
    let (status, _) = agent.stop_with("TERM");
    assert!(status.success(), "{}", agent.log());

    assert_eq!(lines_of(&marker), ["rebooted"], "{}", agent.log());
    let done = json!({"status": "done", "detail": "reboot started"});
    assert_eq!(
        acks_of(&requests, "c1"),
        [
            json!({"status": "received"}),
            done.clone(),
            done.clone(),
            done
        ],
        "{requests:#?}"
    );
    assert_eq!(
        record_of(&config),
        json!({"commands": [
            {"id": "c1", "action": "reboot", "state": "done", "detail": "reboot started", "reported": true}
        ]})
    );
}

#[test]
fn a_command_under_way_when_the_agent_is_killed_is_not_run_again_but_acknowledged_done() {
    // Like a server that never got an acknowledgement: every heartbeat hands c1 out.
    let server = StubServer::start(|request, _| {
        if request.is("POST", HEARTBEAT) {
            heartbeat_answer(json!([command("c1", "reboot")]))
        } else if request.is("GET", COMMANDS) {
            idle_poll(request)
        } else {
            Reply::empty(204)
        }
    });
    let directory = tempfile::tempdir().unwrap();
    let config = write_config(directory.path(), server.url());
    let marker = directory.path().join("rebooted");
    let sleeper = directory.path().join("sleeper.pid");
    // A reboot that takes its time: the agent dies before it ends.
    let reboot = format!(
        "echo rebooting >> '{}'; echo $$ > '{}'; exec sleep 30",
        marker.display(),
        sleeper.display()
    );
    let extra = ["--reboot-command", reboot.as_str()];

    let mut first = RunningAgent::start(directory.path(), &config, &extra);
    server.wait_for("the receipt", |requests| {
        acks_of(requests, "c1") == [json!({"status": "received"})]
    });
    let sleeper_pid = wait_for_line_in(&sleeper);
    assert_eq!(
        record_of(&config),
        json!({"commands": [{"id": "c1", "action": "reboot", "state": "started", "reported": false}]})
    );
    first.kill();
    // The reboot command outlives a SIGKILLed agent: end it too.
    let _ = std::process::Command::new("kill")
        .arg(sleeper_pid.trim())
        .status();
    let heartbeats_before = count(&server.requests(), "POST", HEARTBEAT);

    let mut second = RunningAgent::start(directory.path(), &config, &extra);
    let requests = server.wait_for("two more heartbeats", |requests| {
        count(requests, "POST", HEARTBEAT) >= heartbeats_before + 2
    });
    let (status, _) = second.stop_with("TERM");
    assert!(status.success(), "{}", second.log());

    assert_eq!(lines_of(&marker), ["rebooting"], "{}", second.log());
    let restarted = json!({"status": "done", "detail": "The device restarted."});
    let acks = acks_of(&requests, "c1");
    assert_eq!(acks[0], json!({"status": "received"}));
    assert!(acks.len() >= 3, "{acks:?}");
    assert!(acks[1..].iter().all(|ack| *ack == restarted), "{acks:?}");
    // The done came before the second agent's first heartbeat.
    let first_done = requests
        .iter()
        .position(|request| request.is("POST", &ack_path("c1")) && request.json() == restarted)
        .unwrap();
    let heartbeats_until_done = count(&requests[..first_done], "POST", HEARTBEAT);
    assert_eq!(heartbeats_until_done, heartbeats_before, "{requests:#?}");
    assert_eq!(
        record_of(&config),
        json!({"commands": [
            {"id": "c1", "action": "reboot", "state": "done", "detail": "The device restarted.", "reported": true}
        ]})
    );
}
