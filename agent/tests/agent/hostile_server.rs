//! The agent trusts the server no more than it must (docs/agent-protocol.md, "What
//! `devmgr-agent` trusts of the server"): huge intervals, huge bodies, redirects, plain http.

use crate::hostile_support::*;
use crate::support::{
    Framing, Reply, RunningAgent, StubServer, agent, command, measure, write_config,
};
use serde_json::json;
use std::time::Duration;

const MIB: u64 = 1024 * 1024;
/// The largest answer the agent reads.
const LIMIT: u64 = MIB;
/// A body far beyond anything the agent may hold: it is made as it is sent.
const HUGE: u64 = 300 * MIB;

// --- heartbeat_interval ----------------------------------------------------

#[test]
fn huge_heartbeat_intervals_count_as_an_hour_and_the_agent_keeps_running() {
    // Each heartbeat answers the next of these; each long poll fails at once,
    // so that the agent backs off for a second and heartbeats again.
    const INTERVALS: [&str; 4] = [
        "18446744073709551615",
        "1e30",
        "123456789012345678901234567890",
        "-5",
    ];
    let server = StubServer::start(|request, earlier| {
        if request.is("POST", HEARTBEAT) {
            let index = count(earlier, "POST", HEARTBEAT).min(INTERVALS.len() - 1);
            Reply::raw_json(
                200,
                &format!(
                    r#"{{"commands": [], "heartbeat_interval": {}}}"#,
                    INTERVALS[index]
                ),
            )
        } else {
            Reply::json(503, json!({"detail": "A server error occurred."}))
        }
    });
    let directory = tempfile::tempdir().unwrap();
    let config = write_config(directory.path(), server.url());
    let mut agent = RunningAgent::start(directory.path(), &config, &["--max-backoff", "1"]);
    let requests = server.wait_for("a heartbeat after every interval", |requests| {
        count(requests, "POST", HEARTBEAT) > INTERVALS.len()
    });
    assert!(agent.is_running(), "{}", agent.log());
    let (status, _) = agent.stop_with("TERM");
    assert!(status.success(), "{status}:\n{}", agent.log());

    // After each heartbeat the agent long-polls until the next one is due:
    // 60 s (the longest poll) for an hour, 1 s for a second.
    let waits: Vec<&str> = requests
        .windows(2)
        .filter(|pair| pair[0].is("POST", HEARTBEAT))
        .map(|pair| {
            assert!(pair[1].is("GET", COMMANDS), "{requests:#?}");
            pair[1].query("wait").unwrap()
        })
        .take(INTERVALS.len())
        .collect();
    assert_eq!(waits, ["60", "60", "60", "1"], "{requests:#?}");
    let log = agent.log();
    assert_eq!(log.matches("heartbeat_interval=3600").count(), 3, "{log}");
    assert!(log.contains("heartbeat_interval=1 "), "{log}");
    assert!(!log.contains("panicked"), "{log}");
}

// --- answer size -------------------------------------------------------------

#[test]
fn a_huge_install_answer_fails_quickly_in_little_memory_whatever_its_framing() {
    for framing in [
        Framing::ContentLength,
        Framing::Chunked,
        Framing::CloseDelimited,
    ] {
        // A valid answer after 300 MB of spaces: only its size is wrong.
        let server =
            StubServer::start(move |_, _| Reply::json(201, install_answer()).padded(HUGE, framing));
        let directory = tempfile::tempdir().unwrap();
        let config = directory.path().join("config.json");
        let measured = measure(install_command(server.url(), &config));
        assert!(
            measured.took < Duration::from_secs(10),
            "{framing:?}: {measured:?}"
        );
        assert!(
            measured.peak_memory < 64 * MIB,
            "{framing:?}: peak memory {} MiB",
            measured.peak_memory / MIB
        );
        // What the stub could write before the agent hung up: socket buffers,
        // far from the whole body.
        let sent = server.body_bytes_sent();
        assert!(sent < 32 * MIB, "{framing:?}: {} MiB sent", sent / MIB);
        let stderr = stderr_of(&measured.output);
        assert_eq!(
            measured.output.status.code(),
            Some(1),
            "{framing:?}: {stderr}"
        );
        assert!(measured.output.stdout.is_empty(), "{framing:?}");
        assert!(
            stderr.contains("larger than 1 MiB"),
            "{framing:?}: {stderr}"
        );
        assert!(!config.exists(), "{framing:?}");
    }
}

#[test]
fn an_answer_of_exactly_1_mib_is_read_and_one_byte_more_is_not() {
    let answer = install_answer();
    let answer_length = answer.to_string().len() as u64;
    for framing in [Framing::ContentLength, Framing::Chunked] {
        for (padding, succeeds) in [
            (LIMIT - answer_length, true),
            (LIMIT - answer_length + 1, false),
        ] {
            let reply = Reply::json(201, answer.clone()).padded(padding, framing);
            let length = reply.body_len();
            let server = StubServer::start(move |_, _| reply.clone());
            let directory = tempfile::tempdir().unwrap();
            let config = directory.path().join("config.json");
            let output = install_command(server.url(), &config).output().unwrap();
            assert_eq!(
                output.status.success(),
                succeeds,
                "{framing:?}, {length} bytes: {}",
                stderr_of(&output)
            );
            assert_eq!(config.exists(), succeeds);
        }
    }
}

#[test]
fn a_huge_heartbeat_answer_is_a_failed_request_whose_commands_are_not_carried_out() {
    let server = StubServer::start(|request, _| {
        if request.is("POST", HEARTBEAT) {
            Reply::json(
                200,
                json!({"commands": [command("c1", "reboot")], "heartbeat_interval": 30}),
            )
            .padded(HUGE, Framing::Chunked)
        } else {
            Reply::empty(204)
        }
    });
    let directory = tempfile::tempdir().unwrap();
    let config = write_config(directory.path(), server.url());
    let marker = directory.path().join("rebooted");
    let reboot = format!("echo done >> '{}'", marker.display());
    let mut agent = RunningAgent::start(
        directory.path(),
        &config,
        &["--reboot-command", &reboot, "--max-backoff", "1"],
    );
    let requests = server.wait_for("three heartbeats", |requests| {
        count(requests, "POST", HEARTBEAT) >= 3
    });
    assert!(agent.is_running(), "{}", agent.log());
    let (status, _) = agent.stop_with("TERM");
    assert!(status.success(), "{}", agent.log());
    assert!(!marker.exists(), "the command was carried out");
    assert!(
        requests.iter().all(|request| request.is("POST", HEARTBEAT)),
        "{requests:#?}"
    );
    let log = agent.log();
    assert!(log.contains("larger than 1 MiB"), "{log}");
    let sent = server.body_bytes_sent();
    assert!(sent < 3 * 32 * MIB, "{} MiB sent", sent / MIB);
}

#[test]
fn install_follows_no_redirect() {
    for status in [301, 302, 303, 307, 308] {
        let elsewhere = StubServer::start(|_, _| Reply::json(201, install_answer()));
        let location = format!("{}/install/", elsewhere.url());
        let server = StubServer::start(move |_, _| {
            Reply::json(status, json!({})).header("Location", &location)
        });
        let directory = tempfile::tempdir().unwrap();
        let config = directory.path().join("config.json");
        let output = install_command(server.url(), &config).output().unwrap();
        let stderr = stderr_of(&output);
        assert_eq!(output.status.code(), Some(1), "{status}: {stderr}");
        assert!(stderr.contains("redirected"), "{stderr}");
        assert!(stderr.contains(&status.to_string()), "{stderr}");
        assert!(stderr.contains(elsewhere.url()), "{stderr}");
        assert!(!config.exists());
        assert_eq!(server.requests().len(), 1);
        // Anything the agent had started would have been accepted by now.
        std::thread::sleep(Duration::from_millis(100));
        assert_eq!(elsewhere.connections(), 0, "{status}: followed");
    }
}

#[test]
fn run_follows_no_redirect_and_keeps_trying_its_own_server() {
    let elsewhere = StubServer::start(|_, _| {
        Reply::json(200, json!({"commands": [], "heartbeat_interval": 30}))
    });
    let location = format!("{}{HEARTBEAT}\u{9b}31m", elsewhere.url());
    let server =
        StubServer::start(move |_, _| Reply::json(307, json!({})).header("Location", &location));
    let directory = tempfile::tempdir().unwrap();
    let config = write_config(directory.path(), server.url());
    let mut agent = RunningAgent::start(directory.path(), &config, &["--max-backoff", "1"]);
    server.wait_for("three heartbeats", |requests| {
        count(requests, "POST", HEARTBEAT) >= 3
    });
    assert!(agent.is_running());
    let (status, _) = agent.stop_with("TERM");
    assert!(status.success());
    assert_eq!(elsewhere.connections(), 0, "followed");
    let log = agent.log();
    assert!(log.contains("redirected the request (307"), "{log}");
    assert!(log.contains(r"\u{9b}31m"), "{log}");
    assert_no_forged_line(&log);
}

// --- plain http --------------------------------------------------------------------

#[test]
fn plain_http_to_another_machine_is_warned_about() {
    // No traffic may leave this machine: with no install token and a
    // configuration that cannot be written, install stops (twice over)
    // before it connects anywhere.
    let directory = tempfile::tempdir().unwrap();
    let blocker = directory.path().join("not-a-directory");
    std::fs::write(&blocker, "").unwrap();
    let config = blocker.join("config.json");
    let output = agent(&[
        "install",
        "--server",
        "http://192.0.2.1:9/",
        "--config",
        config.to_str().unwrap(),
    ]);
    assert_eq!(output.status.code(), Some(1));
    let stderr = stderr_of(&output);
    assert!(stderr.contains("WARN"), "{stderr}");
    assert!(stderr.contains("plain http://"), "{stderr}");
    assert!(stderr.contains("http://192.0.2.1:9/"), "{stderr}");
    assert!(stderr.contains("error: no install token"), "{stderr}");
}

#[test]
fn plain_http_to_this_machine_is_not_warned_about() {
    let server = StubServer::start(|request, _| {
        if request.is("POST", "/install/") {
            Reply::json(201, install_answer())
        } else if request.is("POST", HEARTBEAT) {
            Reply::json(200, json!({"commands": [], "heartbeat_interval": 30}))
        } else {
            Reply::json(200, json!({"commands": []})).after(Duration::from_secs(1))
        }
    });
    let directory = tempfile::tempdir().unwrap();
    let config = directory.path().join("config.json");
    let output = install_command(server.url(), &config).output().unwrap();
    assert!(output.status.success(), "{output:?}");
    assert_eq!(stderr_of(&output), "");
    let mut agent = RunningAgent::start(directory.path(), &config, &[]);
    agent.wait_for_log("connected to the server");
    agent.stop_with("TERM");
    assert!(!agent.log().contains("plain http"), "{}", agent.log());
}
