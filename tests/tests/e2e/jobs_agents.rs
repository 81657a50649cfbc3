//! Simulated agents for the fleet-job tests that stop or double the server
//! (`jobs_restart.rs`, `jobs_instances.rs`), and the job calls they make.
//!
//! Each agent runs on its own thread and does what devmgr-agent does with a
//! command (docs/agent-protocol.md): it polls `GET /agent/commands/?wait=0`,
//! records every id it is handed, and carries each id out once: it
//! acknowledges `received`, then `done`, each sent again until it is
//! answered 204 (the server may be down for a moment). The agents talk to a
//! list of servers that the test may change; each request goes to the next
//! one, so with two instances every agent alternates between them.

use crate::support::*;
use reqwest::blocking::Client;
use serde_json::{Value, json};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, RwLock};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

/// The pause between two polls of one agent.
const POLL_EVERY: Duration = Duration::from_millis(100);
/// How long an agent keeps sending one acknowledgement before it gives up
/// (and records a problem).
const ACK_FOR: Duration = Duration::from_secs(30);

/// What one agent saw and did.
#[derive(Debug, Clone, Default)]
pub struct AgentLog {
    /// Every command id it was handed, in order, repeats included.
    pub given: Vec<String>,
    /// The ids it carried out (each once), in order.
    pub carried_out: Vec<String>,
    /// The ids whose `done` was answered 204.
    pub done: Vec<String>,
    /// Acknowledgements that were never answered 204.
    pub problems: Vec<String>,
}

impl AgentLog {
    /// The distinct ids it was handed, in the order first handed.
    pub fn distinct_given(&self) -> Vec<String> {
        let mut ids: Vec<String> = Vec::new();
        for id in &self.given {
            if !ids.contains(id) {
                ids.push(id.clone());
            }
        }
        ids
    }
}

/// The state of one agent, shared with its thread.
#[derive(Default)]
struct AgentState {
    log: AgentLog,
    /// While set, a newly handed command is recorded but not acknowledged.
    held: bool,
}

struct Shared {
    bases: RwLock<Vec<String>>,
    stop: AtomicBool,
    agents: Vec<Mutex<AgentState>>,
}

impl Shared {
    fn agent(&self, index: usize) -> MutexGuard<'_, AgentState> {
        self.agents[index]
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// The server of the `turn`-th request.
    fn base(&self, turn: usize) -> String {
        let bases = self.bases.read().unwrap_or_else(PoisonError::into_inner);
        bases[turn % bases.len()].clone()
    }

    fn stopped(&self) -> bool {
        self.stop.load(Ordering::SeqCst)
    }
}

/// A fleet of simulated agents, one thread each; stopped when dropped.
pub struct SimulatedAgents {
    shared: Arc<Shared>,
    threads: Vec<JoinHandle<()>>,
}

impl SimulatedAgents {
    /// Starts an agent for each device (its index in `devices` is its
    /// index here), polling the servers at `bases` in turn.
    pub fn start(bases: &[&str], devices: &[crate::device_support::Agent]) -> Self {
        let shared = Arc::new(Shared {
            bases: RwLock::new(bases.iter().map(|b| (*b).to_owned()).collect()),
            stop: AtomicBool::new(false),
            agents: devices.iter().map(|_| Mutex::default()).collect(),
        });
        let threads = devices
            .iter()
            .enumerate()
            .map(|(index, device)| {
                let (shared, token) = (shared.clone(), device.token.clone());
                thread::spawn(move || run_agent(&shared, index, &token))
            })
            .collect();
        Self { shared, threads }
    }

    /// From now on the agents talk to these servers (a restarted one).
    pub fn talk_to(&self, bases: &[&str]) {
        *self
            .shared
            .bases
            .write()
            .unwrap_or_else(PoisonError::into_inner) =
            bases.iter().map(|b| (*b).to_owned()).collect();
    }

    /// Agent `index` records the commands it is handed from now on but
    /// acknowledges none until [`release`](Self::release)d.
    pub fn hold(&self, index: usize) {
        self.shared.agent(index).held = true;
    }

    /// Agent `index` carries out what it holds, and what comes.
    pub fn release(&self, index: usize) {
        self.shared.agent(index).held = false;
    }

    /// What the agents saw and did so far, by index.
    pub fn logs(&self) -> Vec<AgentLog> {
        (0..self.shared.agents.len())
            .map(|index| self.shared.agent(index).log.clone())
            .collect()
    }

    /// Waits (up to `timeout`) until `done` holds of the agents' logs;
    /// panics saying `what` did not happen, with the logs.
    #[track_caller]
    pub fn wait_until(&self, what: &str, timeout: Duration, done: impl Fn(&[AgentLog]) -> bool) {
        let deadline = Instant::now() + timeout;
        loop {
            let logs = self.logs();
            if done(&logs) {
                return;
            }
            assert!(
                Instant::now() < deadline,
                "{what}: not within {timeout:?}; the agents: {logs:#?}"
            );
            thread::sleep(Duration::from_millis(20));
        }
    }

    /// Stops the agents and returns their logs.
    pub fn stop(mut self) -> Vec<AgentLog> {
        self.shared.stop.store(true, Ordering::SeqCst);
        for thread in self.threads.drain(..) {
            thread.join().expect("an agent thread panicked");
        }
        self.logs()
    }
}

impl Drop for SimulatedAgents {
    fn drop(&mut self) {
        self.shared.stop.store(true, Ordering::SeqCst);
    }
}

fn client() -> Client {
    Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .timeout(Duration::from_secs(5))
        .pool_idle_timeout(Duration::from_secs(3))
        .build()
        .expect("an HTTP client")
}

/// One agent: polls until stopped, carrying out each new id once.
fn run_agent(shared: &Shared, index: usize, token: &str) {
    let client = client();
    let mut turn = 0;
    while !shared.stopped() {
        let base = shared.base(turn);
        turn += 1;
        let answer = client
            .get(format!("{base}/agent/commands/?wait=0"))
            .header("Authorization", format!("Device {token}"))
            .send()
            .ok()
            .filter(|response| response.status().as_u16() == 200)
            .and_then(|response| response.json::<Value>().ok());
        let ids: Vec<String> = answer
            .as_ref()
            .and_then(|answer| answer["commands"].as_array())
            .map(|commands| {
                commands
                    .iter()
                    .filter_map(|command| command["id"].as_str().map(str::to_owned))
                    .collect()
            })
            .unwrap_or_default();
        for id in ids {
            let new = {
                let mut agent = shared.agent(index);
                agent.log.given.push(id.clone());
                let new = !agent.log.carried_out.contains(&id);
                if new {
                    agent.log.carried_out.push(id.clone());
                }
                new
            };
            if new {
                carry_out(shared, &client, index, token, &id, &mut turn);
            }
        }
        thread::sleep(POLL_EVERY);
    }
}

/// Waits while the agent is held, then acknowledges `received` and `done`.
fn carry_out(
    shared: &Shared,
    client: &Client,
    index: usize,
    token: &str,
    id: &str,
    turn: &mut usize,
) {
    while shared.agent(index).held {
        if shared.stopped() {
            return;
        }
        thread::sleep(Duration::from_millis(20));
    }
    for status in ["received", "done"] {
        let deadline = Instant::now() + ACK_FOR;
        loop {
            let base = shared.base(*turn);
            *turn += 1;
            let answered = client
                .post(format!("{base}/agent/commands/{id}/ack/"))
                .header("Authorization", format!("Device {token}"))
                .json(&json!({ "status": status }))
                .send()
                .is_ok_and(|response| response.status().as_u16() == 204);
            if answered {
                break;
            }
            if Instant::now() >= deadline || shared.stopped() {
                shared
                    .agent(index)
                    .log
                    .problems
                    .push(format!("{status} of {id} was never answered 204"));
                return;
            }
            thread::sleep(Duration::from_millis(50));
        }
    }
    shared.agent(index).log.done.push(id.to_owned());
}

/// `POST /jobs/` with this body by the owner; asserts the 201 and returns the job.
#[track_caller]
pub fn create_job(server: &Server, token: &str, body: &Value) -> Value {
    let reply = server.post("/jobs/").token(token).json(body).send();
    assert_eq!(reply.status, 201, "{reply}\nserver log:\n{}", server.log());
    reply.json()
}

/// `GET /jobs/{id}/` by the owner; asserts the 200 and returns the job.
#[track_caller]
pub fn job(server: &Server, token: &str, id: &str) -> Value {
    let reply = server.get(&format!("/jobs/{id}/")).token(token).send();
    reply.expect_status(200);
    reply.json()
}

/// Every target of a job (`GET /jobs/{id}/targets/`, page after page).
#[track_caller]
pub fn job_targets(server: &Server, token: &str, id: &str) -> Vec<Value> {
    let mut targets = Vec::new();
    loop {
        let path = format!("/jobs/{id}/targets/?limit=1000&offset={}", targets.len());
        let reply = server.get(&path).token(token).send();
        reply.expect_status(200);
        let page = reply.json();
        let results = page["results"]
            .as_array()
            .unwrap_or_else(|| panic!("a page has results\n{reply}"))
            .clone();
        let count = page["count"].as_u64().expect("a page has a count");
        targets.extend(results);
        if targets.len() as u64 >= count || page["next"].is_null() {
            return targets;
        }
    }
}

/// Waits (up to `timeout`) until the job has `status`; returns it then.
#[track_caller]
pub fn wait_for_job(
    server: &Server,
    token: &str,
    id: &str,
    status: &str,
    timeout: Duration,
) -> Value {
    let deadline = Instant::now() + timeout;
    loop {
        let job = job(server, token, id);
        if job["status"] == status {
            return job;
        }
        assert!(
            Instant::now() < deadline,
            "the job is not {status} within {timeout:?}: {job:#}\nserver log:\n{}",
            server.log()
        );
        thread::sleep(Duration::from_millis(100));
    }
}

/// `GET /devices/{serial}/commands/` by the owner: the device's commands,
/// newest first.
#[track_caller]
pub fn device_commands(server: &Server, token: &str, serial: &str) -> Vec<Value> {
    let reply = server
        .get(&format!("/devices/{serial}/commands/"))
        .token(token)
        .send();
    reply.expect_status(200);
    reply
        .json()
        .as_array()
        .unwrap_or_else(|| panic!("the commands are a list\n{reply}"))
        .clone()
}

/// The server's JSON log lines (a process started with
/// `DEVMGR_LOG_FORMAT=json`) whose message is `message`.
pub fn log_events(server: &Server, message: &str) -> Vec<Value> {
    server
        .stderr()
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .filter(|event| event["message"] == message)
        .collect()
}

/// The seconds since 1970 of a `YYYY-MM-DDThh:mm:ss` time.
#[track_caller]
pub fn seconds_of(time: &Value) -> i64 {
    let text = time
        .as_str()
        .unwrap_or_else(|| panic!("a time, not {time}"));
    chrono::NaiveDateTime::parse_from_str(text, "%Y-%m-%dT%H:%M:%S")
        .unwrap_or_else(|error| panic!("the time {text:?}: {error}"))
        .and_utc()
        .timestamp()
}

/// The counts of a job whose `targets` targets are all `done`.
pub fn counts_all_done(targets: usize) -> Value {
    json!({
        "waiting": 0, "pending": 0, "delivered": 0, "received": 0,
        "done": targets, "failed": 0, "lapsed": 0, "skipped": 0,
    })
}
