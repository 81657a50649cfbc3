//! Helpers of the jobs API tests (docs/api.md, "Jobs"): creating and
//! reading jobs and their targets, waiting for the job engine without fixed
//! sleeps, and agents that carry a command out one acknowledgement at a time.

use crate::device_support::{Agent, ack_call, install, poll};
use crate::support::*;
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::time::{Duration, Instant};

/// `GET`/`POST /jobs/`.
pub const JOBS: &str = "/jobs/";
/// The keys of a job, sorted.
pub const JOB_KEYS: [&str; 12] = [
    "action",
    "counts",
    "created_time",
    "finished_time",
    "halt_failure_ratio",
    "id",
    "selector",
    "start_time",
    "status",
    "url",
    "wave_interval_seconds",
    "wave_size",
];
/// The keys of a target, sorted.
pub const TARGET_KEYS: [&str; 6] = ["command_id", "detail", "name", "serial", "status", "wave"];
/// The target statuses, in the order `counts` lists them.
pub const TARGET_STATUSES: [&str; 8] = [
    "waiting",
    "pending",
    "delivered",
    "received",
    "done",
    "failed",
    "lapsed",
    "skipped",
];
/// The 409 of a cancel of a finished job.
pub const ALREADY_FINISHED: &str = "This job has already finished.";
/// The 409 of a resume of a job that is not halted.
pub const NOT_HALTED: &str = "Only a halted job can be resumed.";
/// The message of a time in another form.
pub const WRONG_TIME: &str =
    "Datetime has wrong format. Use one of these formats instead: YYYY-MM-DDThh:mm:ss.";
/// How long the job engine may take to take a step (it ticks twice a second).
pub const ENGINE_WAIT: Duration = Duration::from_secs(3);

/// `/jobs/{id}/`.
pub fn job_path(id: &str) -> String {
    format!("/jobs/{id}/")
}

/// `/jobs/{id}/targets/`.
pub fn targets_path(id: &str) -> String {
    format!("/jobs/{id}/targets/")
}

/// `/jobs/{id}/cancel/`.
pub fn cancel_path(id: &str) -> String {
    format!("/jobs/{id}/cancel/")
}

/// `/jobs/{id}/resume/`.
pub fn resume_path(id: &str) -> String {
    format!("/jobs/{id}/resume/")
}

/// `POST /jobs/ body` by `token`.
pub fn create_call(server: &Server, token: &str, body: &Value) -> Reply {
    server.post(JOBS).token(token).json(body).send()
}

/// Asserts a job's shape: its twelve keys, its id and url, its times and
/// every count present.
#[track_caller]
pub fn assert_job_shape(server: &Server, job: &Value) {
    assert_eq!(keys(job), JOB_KEYS, "{job:#}");
    let id = string(job, "id");
    assert!(is_lowercase_uuid(&id), "{job:#}");
    assert_eq!(
        job["url"],
        format!("{}{}", server.expected_base(), job_path(&id)),
        "{job:#}"
    );
    assert_eq!(job["action"], "reboot", "{job:#}");
    assert!(is_timestamp(&string(job, "start_time")), "{job:#}");
    assert!(is_timestamp(&string(job, "created_time")), "{job:#}");
    let counts = job["counts"].as_object().expect("counts is an object");
    let listed: Vec<&str> = counts.keys().map(String::as_str).collect();
    let mut expected = TARGET_STATUSES.to_vec();
    expected.sort_unstable();
    assert_eq!(listed, expected, "{job:#}");
    assert!(counts.values().all(Value::is_u64), "{job:#}");
}

/// `POST /jobs/ body` by `token`, asserting a 201 job whose `Location` is
/// its url; the job.
#[track_caller]
pub fn create(server: &Server, token: &str, body: &Value) -> Value {
    let reply = create_call(server, token, body);
    reply.expect_status(201);
    let job = reply.json();
    assert_job_shape(server, &job);
    assert_eq!(reply.header("location"), job["url"].as_str(), "{reply}");
    job
}

/// `GET /jobs/{id}/` by `token`, asserting a 200 job.
#[track_caller]
pub fn job(server: &Server, token: &str, id: &str) -> Value {
    let reply = server.get(&job_path(id)).token(token).send();
    reply.expect_status(200);
    let job = reply.json();
    assert_job_shape(server, &job);
    job
}

/// Every target of a job (one page of 1000), asserting their shape and
/// that the page holds them all.
#[track_caller]
pub fn targets(server: &Server, token: &str, id: &str) -> Vec<Value> {
    let reply = server
        .get(&format!("{}?limit=1000", targets_path(id)))
        .token(token)
        .send();
    reply.expect_status(200);
    let page = reply.json();
    assert_eq!(
        keys(&page),
        ["count", "next", "previous", "results"],
        "{reply}"
    );
    let results = page["results"].as_array().expect("results").clone();
    assert_eq!(page["count"], results.len(), "{reply}");
    for target in &results {
        assert_eq!(keys(target), TARGET_KEYS, "{target:#}");
    }
    results
}

/// Each target's status, in the order listed.
pub fn statuses(targets: &[Value]) -> Vec<String> {
    targets.iter().map(|t| string(t, "status")).collect()
}

/// A job's counts that are not zero.
pub fn counts(job: &Value) -> BTreeMap<String, u64> {
    job["counts"]
        .as_object()
        .expect("counts")
        .iter()
        .filter_map(|(status, n)| n.as_u64().filter(|n| *n > 0).map(|n| (status.clone(), n)))
        .collect()
}

/// `[(status, n)]` as [`counts`] reads it.
pub fn counted(pairs: &[(&str, u64)]) -> BTreeMap<String, u64> {
    pairs.iter().map(|(s, n)| ((*s).to_owned(), *n)).collect()
}

/// Calls `probe` until it gives a value, for at most `within`; panics with
/// `what` and the last value seen otherwise.
#[track_caller]
pub fn wait_until<T: std::fmt::Debug>(
    what: &str,
    within: Duration,
    mut probe: impl FnMut() -> Result<T, String>,
) -> T {
    let deadline = Instant::now() + within;
    loop {
        match probe() {
            Ok(value) => return value,
            Err(last) if Instant::now() >= deadline => {
                panic!("{what}: not within {within:?}; last seen: {last}")
            }
            Err(_) => std::thread::sleep(Duration::from_millis(50)),
        }
    }
}

/// Waits until the job's status is `status`; the job.
#[track_caller]
pub fn wait_for_status(server: &Server, token: &str, id: &str, status: &str) -> Value {
    wait_until(&format!("job {id} {status}"), ENGINE_WAIT, || {
        let job = job(server, token, id);
        if job["status"] == status {
            Ok(job)
        } else {
            Err(job.to_string())
        }
    })
}

/// `n` devices of `owner` enrolled as agents (their serials in list order
/// are the job's targets).
pub fn agents(server: &Server, owner: &Account, n: usize) -> Vec<Agent> {
    (0..n)
        .map(|i| install(server, owner, &format!("Pi {i}")))
        .collect()
}

/// The agent of `serial`.
#[track_caller]
pub fn agent_of<'a>(agents: &'a [Agent], serial: &str) -> &'a Agent {
    agents
        .iter()
        .find(|agent| agent.serial == serial)
        .unwrap_or_else(|| panic!("no agent for {serial}"))
}

/// The ids of the commands handed to `agent` by a long poll that does not wait.
pub fn take_commands(server: &Server, agent: &Agent) -> Vec<String> {
    poll(server, &agent.token, 0)
        .iter()
        .map(|command| string(command, "id"))
        .collect()
}

/// Acknowledges a command of `agent` with `status` (and `detail`), asserting the 204.
#[track_caller]
pub fn ack(server: &Server, agent: &Agent, id: &str, status: &str, detail: &str) {
    ack_call(
        server,
        &agent.token,
        id,
        &json!({"status": status, "detail": detail}),
    )
    .expect_empty(204);
}

/// Carries out the command of each target of `targets`: the agent takes it
/// (`delivered`), acknowledges `received`, then `done` or, for the serials
/// in `failing`, `failed` with a detail.
#[track_caller]
pub fn carry_out(server: &Server, agents: &[Agent], targets: &[&Value], failing: &[&str]) {
    for target in targets {
        let serial = string(target, "serial");
        let agent = agent_of(agents, &serial);
        let command = string(target, "command_id");
        assert_eq!(
            take_commands(server, agent),
            std::slice::from_ref(&command),
            "{target}"
        );
        ack(server, agent, &command, "received", "");
        if failing.contains(&serial.as_str()) {
            ack(server, agent, &command, "failed", "disk full");
        } else {
            ack(server, agent, &command, "done", "");
        }
    }
}

/// The targets of `wave`.
pub fn in_wave(targets: &[Value], wave: u64) -> Vec<&Value> {
    targets.iter().filter(|t| t["wave"] == wave).collect()
}

/// The time `seconds` from the system's now, as the API writes times.
pub fn in_seconds(seconds: i64) -> String {
    (chrono::Utc::now() + chrono::Duration::seconds(seconds))
        .format("%Y-%m-%dT%H:%M:%S")
        .to_string()
}
