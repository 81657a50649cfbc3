//! The server rides out a database outage: devmgr on PostgreSQL reached
//! through a TCP proxy (`tests/tcp-proxy`), under steady API and agent
//! traffic, while the test cuts the link (a database restarting: every
//! connection closed, new ones refused) and later blackholes it (a network
//! partition: nothing goes through, nothing is closed).
//!
//! While the database is away every answer is a success or 503
//! `{"detail": "The service is temporarily unavailable. Try again
//! shortly."}` with `Retry-After` (docs/api.md, "Errors"), never a 500 and
//! never later than 5 s; `GET /health/ready/` is 503 within 2 s and
//! `GET /health/live/` stays 200 (docs/api.md, "Health"). Within 5 s of its
//! return everything answers again, and nothing was lost: every reboot
//! answered 202 reaches its agent and is carried out, none is handed out
//! again once acknowledged (docs/agent-protocol.md), the tokens from before
//! still work, and a mail queued before the outage is delivered
//! (docs/mail.md).

use crate::support::*;
use adapters_mail::MemoryMailer;
use application::mail::Email;
use application::ports::{Clock, MailError, Mailer};
use chrono::SubsecRound;
use devmgr::cli::Cli;
use devmgr::server::InProcessServer;
use reqwest::Method;
use reqwest::blocking::Client;
use serde_json::{Value, json};
use std::collections::{BTreeMap, BTreeSet};
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};
use tcp_proxy::TcpProxy;

/// The answer of a request the database cannot serve now.
const UNAVAILABLE: &str = "The service is temporarily unavailable. Try again shortly.";
/// The longest any request may take (a long poll: this beyond its wait).
const CLIENT_TIMEOUT: Duration = Duration::from_secs(5);
/// How soon readiness must say 503 once the database is away.
const NOT_READY_WITHIN: Duration = Duration::from_secs(2);
/// How soon everything must work again once the database is back.
const BACK_WITHIN: Duration = Duration::from_secs(5);
/// The long poll's wait, in seconds.
const POLL_WAIT: u64 = 1;
/// Devices, each with its agent and an API client rebooting it.
const DEVICES: usize = 3;
/// Traffic before the first outage, the first outage (a cut), the second
/// (a blackhole), and the traffic after each return. Each outage outlasts
/// [`CLIENT_TIMEOUT`], so a request that waited for the database's return
/// instead of answering 503 shows; each stretch after a return is longer
/// than [`BACK_WITHIN`], and the rest of it must be all successes.
const WARM_UP: Duration = Duration::from_secs(4);
const CUT_FOR: Duration = Duration::from_secs(6);
const BLACKHOLE_FOR: Duration = Duration::from_secs(6);
const AFTER_RETURN: Duration = Duration::from_secs(8);
/// How much longer than [`AFTER_RETURN`] the owners may need, after the
/// second return, for a reboot answered 202: a command handed out again
/// 15 s after an answer the blackhole lost, then carried out.
const REDELIVERED_WITHIN: Duration = Duration::from_secs(12);
/// How long to wait, at the end, for every command to be carried out: a
/// command handed out while its answer was lost is handed out again 15 s
/// later (docs/agent-protocol.md).
const DRAIN_WITHIN: Duration = Duration::from_secs(25);

e2e!(the_server_rides_out_a_database_outage: postgres);
fn the_server_rides_out_a_database_outage() {
    let db = Db::new();
    let database = db.postgres();
    let proxy = TcpProxy::start_blocking(database.server_address()).expect("the proxy starts");
    let mailer = Arc::new(GatedMailer::default());
    let server = start_server(&database.url_via(proxy.address()), mailer.clone());
    let shared = Arc::new(Shared::new(format!("http://{}", server.address())));
    let http = Http::new(&shared);

    let account = db.account_with("ada@example.com", &["--verified"]);
    let token = login(&http, &account.email);
    let devices: Vec<(String, String)> = (0..DEVICES)
        .map(|n| install(&http, &account.install_token, &format!("Pi {n}")))
        .collect();

    let start = Instant::now();
    let (mut agents, mut clients) = (Vec::new(), Vec::new());
    for (index, (serial, device_token)) in devices.iter().cloned().enumerate() {
        let (for_agent, for_owner) = (shared.clone(), shared.clone());
        agents.push(thread::spawn(move || {
            run_agent(&Http::new(&for_agent), &for_agent, index, &device_token);
        }));
        let token = token.clone();
        clients.push(thread::spawn(move || {
            run_owner(&Http::new(&for_owner), &for_owner, index, &serial, &token);
        }));
    }
    let for_probes = shared.clone();
    clients.push(thread::spawn(move || {
        run_probes(&Http::new(&for_probes), &for_probes);
    }));

    // A reset link is asked for just before the cut, while the mail server
    // is away too: the mail waits in the outbox across the outage.
    thread::sleep(WARM_UP.saturating_sub(Duration::from_secs(1)));
    let reply = http.call(
        Route::Reset,
        Method::POST,
        "/reset-password/",
        None,
        Some(json!({"email": account.email})),
    );
    assert_eq!(reply.map(|r| r.0), Some(204), "the reset request");
    mailer.wait_for_attempts(1);
    // Its failure is recorded (a retry in 1 s) before the database goes.
    thread::sleep(Duration::from_millis(500));

    let cut = Instant::now();
    proxy.cut();
    mailer.open();
    thread::sleep(CUT_FOR);
    let back = Instant::now();
    proxy.restore();
    let mail = mailer
        .inner
        .wait_for_mail_to(&account.email, BACK_WITHIN.saturating_sub(back.elapsed()));
    let mail_delivered = mail.is_some();
    println!(
        "the reset mail: delivered {:?} after the return",
        mail.map(|_| back.elapsed())
    );
    thread::sleep(AFTER_RETURN.saturating_sub(back.elapsed()));

    let blackhole = Instant::now();
    proxy.blackhole();
    thread::sleep(BLACKHOLE_FOR);
    let healed = Instant::now();
    proxy.restore();
    thread::sleep(AFTER_RETURN);
    wait_for_a_reboot_after(&shared, healed);
    let end = Instant::now();
    shared.stop_owners.store(true, Ordering::SeqCst);
    for thread in clients {
        thread.join().expect("an API client panicked");
    }

    // Every reboot answered 202 is carried out; then the agents stop.
    let drained = drain(&http, &token, &devices);
    shared.stop_agents.store(true, Ordering::SeqCst);
    for thread in agents {
        thread.join().expect("an agent panicked");
    }
    let timeline = Timeline {
        start,
        outages: [(cut, back), (blackhole, healed)],
        end,
    };

    summarize(&shared, &timeline);
    let mut problems = Vec::new();
    if !mail_delivered {
        problems.push(format!(
            "the reset mail was not delivered within {BACK_WITHIN:?} of the database's return \
             ({} attempts)",
            mailer.attempts.load(Ordering::SeqCst)
        ));
    }
    check_answers(&shared.seen(), &timeline, &mut problems);
    check_commands(&shared, &devices, &drained, &timeline, &mut problems);
    // The tokens from before the outages still work.
    let profile = http.call(Route::Profile, Method::GET, "/profile/", Some(&token), None);
    if profile.map(|r| r.0) != Some(200) {
        problems.push("the API token from before the outages no longer works".to_owned());
    }
    for (serial, device_token) in &devices {
        let beat = http.call(
            Route::Heartbeat,
            Method::POST,
            "/agent/heartbeat/",
            Some(&format!("Device {device_token}")),
            Some(json!({})),
        );
        if beat.map(|r| r.0) != Some(200) {
            problems.push(format!("the device token of {serial} no longer works"));
        }
    }
    assert!(
        problems.is_empty(),
        "{} problem(s):\n{}",
        problems.len(),
        problems.join("\n")
    );
    drop(server);
}

/// `devmgr --database-url <url> serve --throttle off` in this process, on
/// the system clock, its mail going to `mailer`.
fn start_server(url: &str, mailer: Arc<GatedMailer>) -> InProcessServer {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("a free port");
    let args = [
        "devmgr",
        "--database-url",
        url,
        "serve",
        "--bind",
        "127.0.0.1:0",
    ];
    let cli = Cli::from_args(args.into_iter().chain(["--throttle", "off"]))
        .unwrap_or_else(|error| panic!("the serve options: {error}"));
    InProcessServer::start_with_mailer(cli, listener, Arc::new(SystemClock), mailer)
        .unwrap_or_else(|error| panic!("the server did not start: {error}"))
}

/// The system clock, in whole seconds as `devmgr serve`'s.
struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> domain::Timestamp {
        chrono::Utc::now().trunc_subsecs(0)
    }
}

/// A mail server that is away (every mail fails for now, so the outbox
/// tries it again later) until [`GatedMailer::open`]ed; then mail is kept
/// by a [`MemoryMailer`].
struct GatedMailer {
    open: AtomicBool,
    attempts: AtomicUsize,
    inner: MemoryMailer,
}

impl Default for GatedMailer {
    fn default() -> Self {
        Self {
            open: AtomicBool::new(false),
            attempts: AtomicUsize::new(0),
            inner: MemoryMailer::new("devmgr <devmgr@localhost>".parse().expect("an address")),
        }
    }
}

impl GatedMailer {
    fn open(&self) {
        self.open.store(true, Ordering::SeqCst);
    }

    /// Waits (up to 10 s) until the outbox has tried `count` mails.
    #[track_caller]
    fn wait_for_attempts(&self, count: usize) {
        let deadline = Instant::now() + Duration::from_secs(10);
        while self.attempts.load(Ordering::SeqCst) < count {
            assert!(Instant::now() < deadline, "the outbox never tried the mail");
            thread::sleep(Duration::from_millis(20));
        }
    }
}

// `Mailer` is an `async_trait`: its method spelled out as the macro writes it.
impl Mailer for GatedMailer {
    fn send<'life0, 'life1, 'async_trait>(
        &'life0 self,
        email: &'life1 Email,
    ) -> Pin<Box<dyn Future<Output = Result<(), MailError>> + Send + 'async_trait>>
    where
        'life0: 'async_trait,
        'life1: 'async_trait,
        Self: 'async_trait,
    {
        Box::pin(async move {
            self.attempts.fetch_add(1, Ordering::SeqCst);
            if !self.open.load(Ordering::SeqCst) {
                return Err(MailError::Transient("the mail server is away".to_owned()));
            }
            self.inner.send(email).await
        })
    }
}

/// What a request was, for its expected answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Route {
    Heartbeat,
    Poll,
    Ack,
    Devices,
    History,
    Reboot,
    Profile,
    Live,
    Ready,
    /// `POST /auth/`, `POST /install/`.
    Create,
    /// `POST /reset-password/`.
    Reset,
}

impl Route {
    /// The status of success.
    fn success(self) -> u16 {
        match self {
            Route::Create => 201,
            Route::Reboot => 202,
            Route::Ack | Route::Reset => 204,
            _ => 200,
        }
    }
}

/// One request and its answer (`Err`: none, the client gave up or the
/// connection failed).
struct Seen {
    route: Route,
    what: String,
    started: Instant,
    ended: Instant,
    answer: Result<Answer, String>,
}

/// An answer: status, `Retry-After`, body.
struct Answer {
    status: u16,
    retry_after: Option<String>,
    body: String,
}

/// What the traffic threads share.
struct Shared {
    base: String,
    stop_owners: AtomicBool,
    stop_agents: AtomicBool,
    seen: Mutex<Vec<Seen>>,
    devices: Vec<Mutex<DeviceLog>>,
}

impl Shared {
    fn new(base: String) -> Self {
        Self {
            base,
            stop_owners: AtomicBool::new(false),
            stop_agents: AtomicBool::new(false),
            seen: Mutex::new(Vec::new()),
            devices: (0..DEVICES).map(|_| Mutex::default()).collect(),
        }
    }

    fn device(&self, index: usize) -> std::sync::MutexGuard<'_, DeviceLog> {
        self.devices[index].lock().expect("a device log")
    }

    fn seen(&self) -> std::sync::MutexGuard<'_, Vec<Seen>> {
        self.seen.lock().expect("the request log")
    }
}

/// What became of one device's commands.
#[derive(Default)]
struct DeviceLog {
    /// When each reboot answered 202 was asked for.
    accepted: Vec<Instant>,
    /// Reboots asked for and not answered 202 (503, or no answer): each may
    /// or may not have queued a command.
    unsure: usize,
    /// Every command handed out, and how many times.
    handed: BTreeMap<String, usize>,
    /// When an acknowledgement of each command was first answered 204.
    acknowledged: BTreeMap<String, Instant>,
    /// Commands handed out again by a request sent after an
    /// acknowledgement of theirs was answered 204.
    handed_after_ack: Vec<String>,
}

/// An HTTP client of the test (one per thread) that records every request.
struct Http<'a> {
    client: Client,
    shared: &'a Shared,
}

impl<'a> Http<'a> {
    fn new(shared: &'a Shared) -> Self {
        let client = Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .timeout(CLIENT_TIMEOUT + Duration::from_secs(POLL_WAIT))
            .build()
            .expect("an HTTP client");
        Self { client, shared }
    }

    /// Sends a request (with `Authorization: <auth>`, `Token …` when
    /// `auth` is a bare token) and records it; the status and body, if it
    /// was answered in time.
    fn call(
        &self,
        route: Route,
        method: Method,
        path: &str,
        auth: Option<&str>,
        body: Option<Value>,
    ) -> Option<(u16, String)> {
        let mut request = self
            .client
            .request(method.clone(), format!("{}{path}", self.shared.base));
        let limit = if route == Route::Poll {
            CLIENT_TIMEOUT + Duration::from_secs(POLL_WAIT)
        } else {
            CLIENT_TIMEOUT
        };
        request = request.timeout(limit);
        if let Some(auth) = auth {
            let value = if auth.contains(' ') {
                auth.to_owned()
            } else {
                format!("Token {auth}")
            };
            request = request.header("Authorization", value);
        }
        if let Some(body) = body {
            request = request.json(&body);
        }
        let started = Instant::now();
        let answer = request
            .send()
            .and_then(|response| {
                let status = response.status().as_u16();
                let retry_after = response
                    .headers()
                    .get("retry-after")
                    .and_then(|value| value.to_str().ok())
                    .map(str::to_owned);
                response.text().map(|body| Answer {
                    status,
                    retry_after,
                    body,
                })
            })
            .map_err(|error| format!("{error:?}"));
        let result = answer.as_ref().ok().map(|a| (a.status, a.body.clone()));
        self.shared.seen().push(Seen {
            route,
            what: format!("{method} {path}"),
            started,
            ended: Instant::now(),
            answer,
        });
        result
    }
}

/// Logs in; the new token.
#[track_caller]
fn login(http: &Http, email: &str) -> String {
    let body = json!({"email": email, "password": PASSWORD});
    let (status, body) = http
        .call(Route::Create, Method::POST, "/auth/", None, Some(body))
        .expect("an answer to the login");
    assert_eq!(status, 201, "the login: {body}");
    string(&serde_json::from_str(&body).expect("JSON"), "token")
}

/// Enrols a device with the install token: its serial and device token.
#[track_caller]
fn install(http: &Http, install_token: &str, name: &str) -> (String, String) {
    let body = json!({"install_token": install_token, "name": name});
    let (status, body) = http
        .call(Route::Create, Method::POST, "/install/", None, Some(body))
        .expect("an answer to the install");
    assert_eq!(status, 201, "the install: {body}");
    let body: Value = serde_json::from_str(&body).expect("JSON");
    (string(&body, "serial"), string(&body, "device_token"))
}

/// An agent: heartbeats, long polls, and each command acknowledged
/// `received` then `done`, once (an id seen again is only acknowledged
/// again), the acknowledgements the server could not take sent again first.
fn run_agent(http: &Http, shared: &Shared, index: usize, device_token: &str) {
    let auth = format!("Device {device_token}");
    let mut carried_out = BTreeSet::new();
    let mut owed: Vec<(String, &str)> = Vec::new();
    while !shared.stop_agents.load(Ordering::SeqCst) {
        let mut refused = false;
        while let Some((id, status)) = owed.first().cloned() {
            let path = format!("/agent/commands/{id}/ack/");
            let body = json!({"status": status});
            let reply = http.call(Route::Ack, Method::POST, &path, Some(&auth), Some(body));
            if reply.map(|r| r.0) != Some(204) {
                refused = true;
                break;
            }
            shared
                .device(index)
                .acknowledged
                .entry(id)
                .or_insert_with(Instant::now);
            owed.remove(0);
        }
        let beat = json!({"agent_version": "outage-test"});
        let poll = format!("/agent/commands/?wait={POLL_WAIT}");
        let calls = [
            (
                Route::Heartbeat,
                Method::POST,
                "/agent/heartbeat/",
                Some(beat),
            ),
            (Route::Poll, Method::GET, poll.as_str(), None),
        ];
        for (route, method, path, body) in calls {
            let sent = Instant::now();
            let Some((200, body)) = http.call(route, method, path, Some(&auth), body) else {
                refused = true;
                continue;
            };
            let answer: Value = serde_json::from_str(&body).unwrap_or_default();
            let commands = answer["commands"].as_array().cloned().unwrap_or_default();
            let mut log = shared.device(index);
            for command in commands {
                let id = command["id"].as_str().unwrap_or_default().to_owned();
                *log.handed.entry(id.clone()).or_default() += 1;
                if log.acknowledged.get(&id).is_some_and(|at| *at < sent) {
                    log.handed_after_ack.push(id.clone());
                }
                if carried_out.insert(id.clone()) {
                    owed.push((id.clone(), "received"));
                    owed.push((id, "done"));
                } else if !owed.iter().any(|(owed_id, _)| *owed_id == id) {
                    owed.push((id, "done"));
                }
            }
        }
        if refused {
            thread::sleep(Duration::from_millis(100));
        }
    }
}

/// An API client of the device's owner: lists the devices, and reboots the
/// device whenever its earlier commands are all done (so that each reboot
/// answered 202 queues a command of its own), at most every half second.
fn run_owner(http: &Http, shared: &Shared, index: usize, serial: &str, token: &str) {
    let history = format!("/devices/{serial}/commands/");
    let reboot = format!("/devices/{serial}/reboot/");
    let mut last_reboot: Option<Instant> = None;
    while !shared.stop_owners.load(Ordering::SeqCst) {
        let listed = http.call(Route::Devices, Method::GET, "/devices/", Some(token), None);
        let mut refused = listed.map(|r| r.0) != Some(200);
        if last_reboot.is_none_or(|at| at.elapsed() >= Duration::from_millis(500)) {
            match http.call(Route::History, Method::GET, &history, Some(token), None) {
                Some((200, body)) if all_done(&body) => {
                    let asked = Instant::now();
                    last_reboot = Some(asked);
                    let reply = http.call(Route::Reboot, Method::POST, &reboot, Some(token), None);
                    let mut log = shared.device(index);
                    if reply.map(|r| r.0) == Some(202) {
                        log.accepted.push(asked);
                    } else {
                        log.unsure += 1;
                        refused = true;
                    }
                }
                Some((200, _)) => {}
                _ => refused = true,
            }
        }
        thread::sleep(Duration::from_millis(if refused { 100 } else { 150 }));
    }
}

/// Keeps the owners going (up to [`REDELIVERED_WITHIN`] more) until each
/// device has had a reboot answered 202 since `healed`. An owner reboots only
/// once the device's commands are all done, and a command handed out in the
/// blackhole whose answer was lost stays delivered until it is handed out
/// again 15 s later, longer than [`AFTER_RETURN`].
fn wait_for_a_reboot_after(shared: &Shared, healed: Instant) {
    let deadline = Instant::now() + REDELIVERED_WITHIN;
    let rebooted = |index| shared.device(index).accepted.iter().any(|at| *at > healed);
    while Instant::now() < deadline && !(0..DEVICES).all(rebooted) {
        thread::sleep(Duration::from_millis(100));
    }
}

/// Whether every command of a history answer is done.
fn all_done(history: &str) -> bool {
    let commands: Value = serde_json::from_str(history).unwrap_or_default();
    commands
        .as_array()
        .is_some_and(|commands| commands.iter().all(|c| c["status"] == "done"))
}

/// Liveness and readiness, over and over.
fn run_probes(http: &Http, shared: &Shared) {
    while !shared.stop_owners.load(Ordering::SeqCst) {
        http.call(Route::Live, Method::GET, "/health/live/", None, None);
        http.call(Route::Ready, Method::GET, "/health/ready/", None, None);
        thread::sleep(Duration::from_millis(100));
    }
}

/// Waits until every device's commands are all done; the last history of
/// each device (as JSON).
fn drain(http: &Http, token: &str, devices: &[(String, String)]) -> Vec<Value> {
    let deadline = Instant::now() + DRAIN_WITHIN;
    devices
        .iter()
        .map(|(serial, _)| {
            loop {
                let path = format!("/devices/{serial}/commands/");
                let reply = http.call(Route::History, Method::GET, &path, Some(token), None);
                if let Some((200, body)) = &reply
                    && (all_done(body) || Instant::now() >= deadline)
                {
                    return serde_json::from_str(body).unwrap_or_default();
                }
                if Instant::now() >= deadline {
                    return Value::Null;
                }
                thread::sleep(Duration::from_millis(200));
            }
        })
        .collect()
}

/// When the test took the database away and gave it back.
struct Timeline {
    start: Instant,
    /// Each outage: when it began, when the database came back.
    outages: [(Instant, Instant); 2],
    end: Instant,
}

impl Timeline {
    /// Whether a request from `started` to `ended` fell wholly where the
    /// database was there and had been back for [`BACK_WITHIN`] at least.
    fn quiet(&self, started: Instant, ended: Instant) -> bool {
        let [(cut, back), (blackhole, healed)] = self.outages;
        let within = |from: Instant, to: Instant| started >= from && ended <= to;
        within(self.start, cut)
            || within(back + BACK_WITHIN, blackhole)
            || within(healed + BACK_WITHIN, self.end)
    }

    /// Seconds from the start, for messages.
    fn at(&self, instant: Instant) -> f64 {
        instant.duration_since(self.start).as_secs_f64()
    }
}

/// Prints what the traffic met, for the log of a failed run (`--nocapture`
/// shows it always).
fn summarize(shared: &Shared, timeline: &Timeline) {
    let seen = shared.seen();
    let phases = [
        ("before", timeline.start, timeline.outages[0].0),
        ("cut", timeline.outages[0].0, timeline.outages[0].1),
        ("back", timeline.outages[0].1, timeline.outages[1].0),
        ("blackhole", timeline.outages[1].0, timeline.outages[1].1),
        ("healed", timeline.outages[1].1, timeline.end),
    ];
    for (name, from, to) in phases {
        let requests: Vec<&Seen> = seen
            .iter()
            .filter(|r| r.started >= from && r.started < to)
            .collect();
        let count = |status| {
            requests
                .iter()
                .filter(|r| r.answer.as_ref().is_ok_and(|a| a.status == status))
                .count()
        };
        let slowest = requests
            .iter()
            .filter(|r| r.route != Route::Poll)
            .map(|r| r.ended - r.started)
            .max()
            .unwrap_or_default();
        println!(
            "{name} ({:.1}–{:.1} s): {} requests, {} answered 503, slowest (not a long poll) {slowest:?}",
            timeline.at(from),
            timeline.at(to),
            requests.len(),
            count(503),
        );
    }
    for (index, log) in shared.devices.iter().enumerate() {
        let log = log.lock().expect("a device log");
        println!(
            "device {index}: {} reboots answered 202, {} not, {} commands handed out",
            log.accepted.len(),
            log.unsure,
            log.handed.len()
        );
    }
}

/// Every answer was in time and a success or the database's 503; readiness
/// followed the database; everything succeeded once it had been back 5 s.
fn check_answers(seen: &[Seen], timeline: &Timeline, problems: &mut Vec<String>) {
    let mut unavailable_during = [0, 0];
    for request in seen {
        let at = timeline.at(request.started);
        let took = request.ended - request.started;
        let Ok(answer) = &request.answer else {
            problems.push(format!(
                "{} at {at:.1} s: no answer after {took:?}: {}",
                request.what,
                request.answer.as_ref().err().map_or("", String::as_str)
            ));
            continue;
        };
        let success = answer.status == request.route.success();
        let unavailable = answer.status == 503 && is_unavailable(request.route, answer);
        if !success && !unavailable {
            problems.push(format!(
                "{} at {at:.1} s: {} {:?} {}",
                request.what, answer.status, answer.retry_after, answer.body
            ));
        } else if !success && timeline.quiet(request.started, request.ended) {
            problems.push(format!(
                "{} at {at:.1} s: 503 although the database had been back {BACK_WITHIN:?}",
                request.what
            ));
        }
        if request.route == Route::Live && !success {
            problems.push(format!("liveness at {at:.1} s: {}", answer.status));
        }
        for (n, (from, to)) in timeline.outages.iter().enumerate() {
            let during = request.started >= *from && request.started < *to;
            if unavailable && during && request.route != Route::Ready {
                unavailable_during[n] += 1;
            }
            let late = request.ended >= *from + NOT_READY_WITHIN && request.ended < *to;
            if request.route == Route::Ready && during && late && success {
                problems.push(format!(
                    "readiness at {at:.1} s: 200 more than {NOT_READY_WITHIN:?} into an outage"
                ));
            }
        }
    }
    for (n, (from, to)) in timeline.outages.iter().enumerate() {
        if unavailable_during[n] == 0 {
            problems.push(format!("no 503 at all during outage {}", n + 1));
        }
        // A probe sent just before the outage and left without an answer
        // counts: its 503 is what a prober sees first.
        let soon = seen.iter().any(|request| {
            request.route == Route::Ready
                && request.ended >= *from
                && request.ended < (*from + NOT_READY_WITHIN).min(*to)
                && request.answer.as_ref().is_ok_and(|a| a.status == 503)
        });
        if !soon {
            problems.push(format!(
                "readiness was not 503 within {NOT_READY_WITHIN:?} of outage {}",
                n + 1
            ));
        }
    }
}

/// Whether an answer is the database's 503: `{"detail": UNAVAILABLE}` with
/// `Retry-After`, or readiness's own body.
fn is_unavailable(route: Route, answer: &Answer) -> bool {
    let body: Value = serde_json::from_str(&answer.body).unwrap_or_default();
    if route == Route::Ready {
        return body == json!({"status": "unavailable", "database": "unavailable"});
    }
    body == json!({ "detail": UNAVAILABLE }) && answer.retry_after.is_some()
}

/// Every reboot answered 202 queued a command that reached its agent and was
/// carried out; none was handed out again once acknowledged; the server's
/// history holds exactly the commands the agent saw, all done.
fn check_commands(
    shared: &Shared,
    devices: &[(String, String)],
    histories: &[Value],
    timeline: &Timeline,
    problems: &mut Vec<String>,
) {
    for (index, ((serial, _), history)) in devices.iter().zip(histories).enumerate() {
        let log = shared.device(index);
        let Some(history) = history.as_array() else {
            problems.push(format!("{serial}: no history of its commands"));
            continue;
        };
        let listed: BTreeSet<String> = history.iter().map(|c| string(c, "id")).collect();
        let handed: BTreeSet<String> = log.handed.keys().cloned().collect();
        if listed != handed {
            problems.push(format!(
                "{serial}: the history lists {listed:?}, the agent was handed {handed:?}"
            ));
        }
        for command in history.iter().filter(|c| c["status"] != "done") {
            problems.push(format!(
                "{serial}: a command was never carried out: {command}"
            ));
        }
        let accepted = log.accepted.len();
        if listed.len() < accepted || listed.len() > accepted + log.unsure {
            problems.push(format!(
                "{serial}: {accepted} reboots answered 202 and {} unanswered, but {} commands",
                log.unsure,
                listed.len()
            ));
        }
        if !log.handed_after_ack.is_empty() {
            problems.push(format!(
                "{serial}: handed out again after an acknowledgement: {:?}",
                log.handed_after_ack
            ));
        }
        let [(cut, _), (_, healed)] = timeline.outages;
        let before = log.accepted.iter().filter(|at| **at < cut).count();
        let after = log.accepted.iter().filter(|at| **at > healed).count();
        if before == 0 || after == 0 {
            problems.push(format!(
                "{serial}: reboots answered 202: {before} before the outages, {after} after"
            ));
        }
    }
}
