//! Metrics and logs of a real `devmgr serve` process (`docs/operations.md`,
//! "Health, metrics and logs"): Prometheus text on a listener of its own,
//! read with a real Prometheus parser, and JSON log lines that carry each
//! request's id, with agents' routine calls at debug only.

use crate::device_support::*;
use crate::support::metrics::{Scrape, scrape};
use crate::support::*;
use serde_json::{Value, json};
use std::thread;
use std::time::{Duration, Instant};

e2e!(metrics_count_requests_and_read_the_fleet_on_their_own_listener);
fn metrics_count_requests_and_read_the_fleet_on_their_own_listener() {
    let (server, metrics_url) = serving_metrics();
    let alice = server.account("alice@example.com");
    let agent = install(&server, &alice, "Kitchen Pi");
    install(&server, &alice, "Garage Pi");

    let before = scrape(&metrics_url);
    let listed = |scrape: &Scrape| {
        counter(
            scrape,
            "devmgr_http_requests_total",
            &[("route", "/devices/"), ("method", "GET"), ("status", "200")],
        )
    };
    for _ in 0..5 {
        server
            .get("/devices/")
            .token(&alice.token)
            .send()
            .expect_status(200);
    }
    server.get("/devices/").send().expect_status(401);
    heartbeat(&server, &agent.token, &json!({}));
    reboot(&server, &alice.token, &agent.serial);

    let after = scrape(&metrics_url);
    assert_eq!(
        listed(&after) - listed(&before),
        5.0,
        "five lists answered 200"
    );
    assert_eq!(
        counter(
            &after,
            "devmgr_http_requests_total",
            &[("route", "/devices/"), ("method", "GET"), ("status", "401")],
        ),
        1.0
    );
    assert_eq!(
        counter(
            &after,
            "devmgr_http_requests_total",
            &[
                ("route", "/devices/{serial}/reboot/"),
                ("method", "POST"),
                ("status", "202")
            ],
        ),
        1.0,
        "requests are counted by route pattern, not by path"
    );
    let timed = histogram_count(
        &after,
        "devmgr_http_request_duration_seconds",
        &[("route", "/devices/"), ("method", "GET")],
    );
    assert_eq!(timed, 6.0, "every list is timed, the 401 included");

    assert_eq!(gauge(&after, "devmgr_devices", &[]), 2.0);
    assert_eq!(gauge(&after, "devmgr_devices_online", &[]), 1.0);
    assert_eq!(
        gauge(&after, "devmgr_commands", &[("state", "pending")]),
        1.0
    );
    assert_eq!(gauge(&after, "devmgr_commands", &[("state", "done")]), 0.0);
    assert_eq!(gauge(&after, "devmgr_database_up", &[]), 1.0);
    assert_eq!(gauge(&after, "devmgr_password_hash_queue", &[]), 0.0);
    assert!(gauge(&after, "process_resident_memory_bytes", &[]) > 0.0);

    // Handed out, the reboot is delivered.
    assert_eq!(poll(&server, &agent.token, 0).len(), 1);
    let handed_out = scrape(&metrics_url);
    assert_eq!(
        gauge(&handed_out, "devmgr_commands", &[("state", "pending")]),
        0.0
    );
    assert_eq!(
        gauge(&handed_out, "devmgr_commands", &[("state", "delivered")]),
        1.0
    );

    // The metrics listener serves metrics only; the API does not serve them.
    let stray = reqwest::blocking::get(metrics_url.replace("/metrics", "/devices/")).unwrap();
    assert_eq!(stray.status().as_u16(), 404);
    server.get("/metrics").send().expect_status(404);
}

e2e!(an_open_long_poll_is_a_gauge: sqlite);
fn an_open_long_poll_is_a_gauge() {
    let (server, metrics_url) = serving_metrics();
    let alice = server.account("alice@example.com");
    let agent = install(&server, &alice, "Kitchen Pi");
    let open_polls = || gauge(&scrape(&metrics_url), "devmgr_long_polls_open", &[]);
    assert_eq!(open_polls(), 0.0);
    // A poll that waits longer than this test looks for it: the reboot
    // below ends it.
    let polling = {
        let (base, token) = (server.base().to_owned(), agent.token.clone());
        thread::spawn(move || {
            reqwest::blocking::Client::new()
                .get(format!("{base}/agent/commands/?wait=30"))
                .header("Authorization", format!("Device {token}"))
                .send()
                .and_then(|reply| Ok((reply.status().as_u16(), reply.json::<Value>()?)))
        })
    };
    let open = wait_for(Duration::from_secs(20), || open_polls() == 1.0);
    reboot(&server, &alice.token, &agent.serial);
    let (status, answer) = polling.join().unwrap().unwrap();
    assert!(open, "the open poll is counted");
    assert_eq!(status, 200);
    assert_eq!(answer["commands"].as_array().map(Vec::len), Some(1));
    assert!(
        wait_for(Duration::from_secs(10), || open_polls() == 0.0),
        "the answered poll is no longer counted"
    );
}

e2e!(json_logs_carry_each_requests_id_and_leave_routine_agent_calls_to_debug: sqlite);
fn json_logs_carry_each_requests_id_and_leave_routine_agent_calls_to_debug() {
    let server = Server::builder()
        .process()
        .args(&["--log-format", "json"])
        .start();
    let alice = server.account("alice@example.com");
    let agent = install(&server, &alice, "Kitchen Pi");
    let listed = server
        .get("/devices/")
        .token(&alice.token)
        .header("X-Request-Id", "trace-42")
        .send();
    listed.expect_status(200);
    assert_eq!(listed.header("x-request-id"), Some("trace-42"));
    server
        .post("/agent/heartbeat/")
        .device(&agent.token)
        .header("X-Request-Id", "beat-1")
        .json(&json!({}))
        .send()
        .expect_status(200);
    server
        .get("/agent/commands/?wait=0")
        .device(&agent.token)
        .header("X-Request-Id", "poll-1")
        .send()
        .expect_status(200);
    server
        .post("/agent/heartbeat/")
        .device("0000000000000000000000000000000000000000")
        .header("X-Request-Id", "beat-refused")
        .json(&json!({}))
        .send()
        .expect_status(401);
    server
        .get("/health/ready/")
        .header("X-Request-Id", "probe-1")
        .send()
        .expect_status(200);

    let lines = log_lines(&server, "trace-42");
    let line = by_request(&lines, "trace-42").unwrap_or_else(|| panic!("{}", server.log()));
    assert_eq!(line["level"], "INFO");
    assert_eq!(line["message"], "request");
    assert_eq!(line["method"], "GET");
    assert_eq!(line["route"], "/devices/");
    assert_eq!(line["status"], 200);
    assert!(
        line["duration_ms"].as_f64().is_some_and(|ms| ms >= 0.0),
        "{line}"
    );
    assert!(
        line["timestamp"].as_str().is_some_and(|t| t.ends_with('Z')),
        "{line}"
    );
    for routine in ["beat-1", "poll-1", "probe-1"] {
        assert!(
            by_request(&lines, routine).is_none(),
            "{routine} succeeded and is logged at debug only\n{}",
            server.log()
        );
    }
    let refused = by_request(&lines, "beat-refused").expect("a refused heartbeat is logged");
    assert_eq!(refused["status"], 401);
    assert_eq!(refused["route"], "/agent/heartbeat/");
}

e2e!(at_debug_every_line_of_a_request_carries_its_id: sqlite);
fn at_debug_every_line_of_a_request_carries_its_id() {
    let server = Server::builder()
        .process()
        .args(&[
            "--log-format",
            "json",
            "--log-level",
            "debug",
            "--throttle-rate",
            "1/hour",
        ])
        .start();
    let alice = server.account("alice@example.com");
    let agent = install(&server, &alice, "Kitchen Pi");
    server
        .post("/agent/heartbeat/")
        .device(&agent.token)
        .header("X-Request-Id", "beat-2")
        .json(&json!({}))
        .send()
        .expect_status(200);
    // The one request of the hour was the install: this login is throttled,
    // and the throttle says so at debug, inside the request.
    server
        .post("/auth/")
        .header("X-Request-Id", "login-2")
        .json(&json!({"email": alice.email, "password": alice.password}))
        .send()
        .expect_status(429);

    let lines = log_lines(&server, "login-2");
    let beat = by_request(&lines, "beat-2").unwrap_or_else(|| panic!("{}", server.log()));
    assert_eq!(beat["level"], "DEBUG");
    assert_eq!(beat["status"], 200);
    let inside: Vec<&Value> = lines
        .iter()
        .filter(|line| line["span"]["request_id"] == "login-2")
        .collect();
    assert!(
        inside.iter().any(|line| line["message"] == "throttled"),
        "the throttle's line carries the request id\n{}",
        server.log()
    );
}

e2e!(a_usable_request_id_is_echoed_by_the_process: sqlite);
fn a_usable_request_id_is_echoed_by_the_process() {
    let server = Server::builder().process().start();
    let id = "a".repeat(64);
    let reply = server
        .get("/health/live/")
        .header("X-Request-Id", &id)
        .send();
    assert_eq!(reply.header("x-request-id"), Some(id.as_str()));
    let too_long = "a".repeat(65);
    let reply = server
        .get("/health/live/")
        .header("X-Request-Id", &too_long)
        .send();
    let replaced = reply.header("x-request-id").expect("an id").to_owned();
    assert!(replaced != too_long && !replaced.is_empty() && replaced.len() <= 64);
}

/// A `devmgr serve` process with metrics on a free port, and their URL.
fn serving_metrics() -> (Server, String) {
    let server = Server::builder()
        .process()
        .args(&["--metrics-bind", "127.0.0.1:0"])
        .start();
    let url = metrics_url(&server);
    (server, url)
}

/// The metrics URL `serve` printed on its first line.
#[track_caller]
fn metrics_url(server: &Server) -> String {
    let first: Value = serde_json::from_str(server.first_stdout_line()).expect("a JSON line");
    let url = first["metrics"]
        .as_str()
        .expect("the metrics URL is printed");
    assert!(
        url.starts_with("http://127.0.0.1:") && url.ends_with("/metrics"),
        "{url}"
    );
    url.to_owned()
}

/// A counter's value (0 when the series does not exist yet).
fn counter(scrape: &Scrape, name: &str, labels: &[(&str, &str)]) -> f64 {
    assert_eq!(
        scrape.kind(name.trim_end_matches("_total")),
        Some("counter")
    );
    scrape.value(name, labels).unwrap_or(0.0)
}

/// A gauge's value.
#[track_caller]
fn gauge(scrape: &Scrape, name: &str, labels: &[(&str, &str)]) -> f64 {
    assert_eq!(scrape.kind(name), Some("gauge"), "{name}");
    scrape
        .value(name, labels)
        .unwrap_or_else(|| panic!("{name} {labels:?} is exported"))
}

/// How many observations a histogram holds.
#[track_caller]
fn histogram_count(scrape: &Scrape, name: &str, labels: &[(&str, &str)]) -> f64 {
    assert_eq!(scrape.kind(name), Some("histogram"), "{name}");
    let count = scrape
        .value(&format!("{name}_count"), labels)
        .unwrap_or(0.0);
    let infinite = [labels, &[("le", "+Inf")]].concat();
    assert_eq!(
        scrape.value(&format!("{name}_bucket"), &infinite),
        Some(count),
        "the +Inf bucket holds every observation"
    );
    count
}

/// Polls `done` every 50 ms until it holds or `limit` passes.
fn wait_for(limit: Duration, mut done: impl FnMut() -> bool) -> bool {
    let started = Instant::now();
    while started.elapsed() < limit {
        if done() {
            return true;
        }
        thread::sleep(Duration::from_millis(50));
    }
    done()
}

/// The server's log lines, each parsed as JSON, once the line of request
/// `last` is written.
#[track_caller]
fn log_lines(server: &Server, last: &str) -> Vec<Value> {
    let mut lines = Vec::new();
    wait_for(Duration::from_secs(5), || {
        lines = server
            .stderr()
            .lines()
            .map(|line| {
                serde_json::from_str(line)
                    .unwrap_or_else(|_| panic!("a log line that is not JSON: {line}"))
            })
            .collect();
        by_request(&lines, last).is_some()
            || lines.iter().any(|line| line["span"]["request_id"] == last)
    });
    lines
}

/// The request log line of the request with this id.
fn by_request<'a>(lines: &'a [Value], id: &str) -> Option<&'a Value> {
    lines
        .iter()
        .find(|line| line["message"] == "request" && line["request_id"] == id)
}
