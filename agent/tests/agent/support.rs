//! Test helpers: a scripted HTTP server on 127.0.0.1 standing in for devmgr
//! (or for a hostile server: huge bodies, redirects, control characters),
//! and the real `devmgr-agent` binary run as a child process.

use std::io::{self, BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Output, Stdio};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The agent binary under test.
pub const AGENT: &str = env!("CARGO_BIN_EXE_devmgr-agent");

/// A device token as the server makes them.
pub const DEVICE_TOKEN: &str = "0123456789abcdef0123456789abcdef01234567";
/// A serial as the server makes them.
pub const SERIAL: &str = "0f8fad5b-d9cb-469f-a165-70867728950e";

/// A request the stub received.
#[derive(Debug, Clone)]
pub struct Request {
    /// `GET`, `POST`, …
    pub method: String,
    /// Path and query.
    pub target: String,
    /// Header names lowercased.
    pub headers: Vec<(String, String)>,
    /// The raw body.
    pub body: Vec<u8>,
    /// When it arrived.
    pub received: Instant,
}

impl Request {
    /// The path without the query.
    pub fn path(&self) -> &str {
        self.target.split('?').next().unwrap_or_default()
    }

    /// A query parameter.
    pub fn query(&self, name: &str) -> Option<&str> {
        let (_, query) = self.target.split_once('?')?;
        query
            .split('&')
            .filter_map(|pair| pair.split_once('='))
            .find(|(key, _)| *key == name)
            .map(|(_, value)| value)
    }

    /// A header's value.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(key, _)| key.eq_ignore_ascii_case(name))
            .map(|(_, value)| value.as_str())
    }

    /// The body as JSON.
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_slice(&self.body).unwrap_or_else(|error| {
            panic!(
                "body of {} {} is not JSON ({error}): {:?}",
                self.method,
                self.target,
                String::from_utf8_lossy(&self.body)
            )
        })
    }

    /// Whether this is `method` on `path`.
    pub fn is(&self, method: &str, path: &str) -> bool {
        self.method == method && self.path() == path
    }
}

/// How the stub marks the end of a body.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Framing {
    /// `Content-Length`.
    ContentLength,
    /// `Transfer-Encoding: chunked`.
    Chunked,
    /// Neither: the body ends when the stub closes the connection.
    CloseDelimited,
}

/// What the stub answers.
#[derive(Debug, Clone)]
pub struct Reply {
    status: u16,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
    /// Spaces sent before `body`, made as they are sent (never held whole).
    padding: u64,
    framing: Framing,
    delay: Duration,
}

impl Reply {
    /// A JSON answer.
    pub fn json(status: u16, body: serde_json::Value) -> Self {
        Self::raw_json(status, &body.to_string())
    }

    /// A JSON answer written as given (numbers `serde_json::Value` cannot hold).
    pub fn raw_json(status: u16, body: &str) -> Self {
        Self {
            status,
            headers: vec![("Content-Type".to_owned(), "application/json".to_owned())],
            body: body.as_bytes().to_vec(),
            padding: 0,
            framing: Framing::ContentLength,
            delay: Duration::ZERO,
        }
    }

    /// An answer without a body (204).
    pub fn empty(status: u16) -> Self {
        Self {
            status,
            headers: Vec::new(),
            body: Vec::new(),
            padding: 0,
            framing: Framing::ContentLength,
            delay: Duration::ZERO,
        }
    }

    /// The body's length in bytes, padding included.
    pub fn body_len(&self) -> u64 {
        self.padding + self.body.len() as u64
    }

    /// Sends `bytes` spaces (JSON whitespace: the body stays valid) before
    /// the body, framed with `framing`.
    pub fn padded(mut self, bytes: u64, framing: Framing) -> Self {
        self.padding = bytes;
        self.framing = framing;
        self
    }

    /// Adds a header.
    pub fn header(mut self, name: &str, value: &str) -> Self {
        self.headers.push((name.to_owned(), value.to_owned()));
        self
    }

    /// Answers only after `delay`, like a long poll with nothing to hand out.
    pub fn after(mut self, delay: Duration) -> Self {
        self.delay = delay;
        self
    }
}

type Handler = dyn Fn(&Request, &[Request]) -> Reply + Send + Sync;

/// A scripted HTTP/1.1 server. The handler sees each request and every
/// request received before it.
pub struct StubServer {
    url: String,
    log: Arc<Mutex<Vec<Request>>>,
    connections: Arc<AtomicUsize>,
    body_bytes_sent: Arc<AtomicU64>,
}

impl StubServer {
    /// Starts serving on a free port of 127.0.0.1.
    pub fn start(handler: impl Fn(&Request, &[Request]) -> Reply + Send + Sync + 'static) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let log = Arc::new(Mutex::new(Vec::new()));
        let connections = Arc::new(AtomicUsize::new(0));
        let body_bytes_sent = Arc::new(AtomicU64::new(0));
        let handler: Arc<Handler> = Arc::new(handler);
        let shared_log = Arc::clone(&log);
        let shared_connections = Arc::clone(&connections);
        let shared_sent = Arc::clone(&body_bytes_sent);
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                shared_connections.fetch_add(1, Ordering::SeqCst);
                let log = Arc::clone(&shared_log);
                let handler = Arc::clone(&handler);
                let sent = Arc::clone(&shared_sent);
                std::thread::spawn(move || serve_connection(stream, &log, &*handler, &sent));
            }
        });
        Self {
            url,
            log,
            connections,
            body_bytes_sent,
        }
    }

    /// How many connections it has accepted.
    pub fn connections(&self) -> usize {
        self.connections.load(Ordering::SeqCst)
    }

    /// How many body bytes (padding included) it has handed to the kernel:
    /// an upper bound on what a client can have read.
    pub fn body_bytes_sent(&self) -> u64 {
        self.body_bytes_sent.load(Ordering::SeqCst)
    }

    /// The server's base URL, without a trailing slash.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// Every request so far.
    pub fn requests(&self) -> Vec<Request> {
        self.log.lock().unwrap().clone()
    }

    /// Waits until the requests received satisfy `done`, then returns them.
    pub fn wait_for(&self, what: &str, done: impl Fn(&[Request]) -> bool) -> Vec<Request> {
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            let requests = self.requests();
            if done(&requests) {
                return requests;
            }
            if Instant::now() > deadline {
                panic!("timed out waiting for {what}; requests: {requests:#?}");
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}

fn serve_connection(
    stream: TcpStream,
    log: &Mutex<Vec<Request>>,
    handler: &Handler,
    body_bytes_sent: &AtomicU64,
) {
    let mut writer = stream.try_clone().unwrap();
    let mut reader = BufReader::new(stream);
    while let Some(request) = read_request(&mut reader) {
        let reply = {
            let mut log = log.lock().unwrap();
            let reply = handler(&request, &log);
            log.push(request);
            reply
        };
        std::thread::sleep(reply.delay);
        let sent = write_reply(&mut writer, &reply, body_bytes_sent);
        // A close-delimited body ends when the connection does.
        if sent.is_err() || reply.framing == Framing::CloseDelimited {
            return;
        }
    }
}

fn write_reply(
    writer: &mut TcpStream,
    reply: &Reply,
    body_bytes_sent: &AtomicU64,
) -> io::Result<()> {
    let mut head = format!("HTTP/1.1 {} Stub\r\n", reply.status);
    match reply.framing {
        Framing::ContentLength => {
            head.push_str(&format!("Content-Length: {}\r\n", reply.body_len()))
        }
        Framing::Chunked => head.push_str("Transfer-Encoding: chunked\r\n"),
        Framing::CloseDelimited => head.push_str("Connection: close\r\n"),
    }
    for (name, value) in &reply.headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str("\r\n");
    writer.write_all(head.as_bytes())?;
    let mut send = |data: &[u8]| -> io::Result<()> {
        if data.is_empty() {
            return Ok(());
        }
        if reply.framing == Framing::Chunked {
            write!(writer, "{:x}\r\n", data.len())?;
            writer.write_all(data)?;
            writer.write_all(b"\r\n")?;
        } else {
            writer.write_all(data)?;
        }
        body_bytes_sent.fetch_add(data.len() as u64, Ordering::SeqCst);
        Ok(())
    };
    let spaces = [b' '; 64 * 1024];
    let mut padding_left = reply.padding;
    while padding_left > 0 {
        let size = padding_left.min(spaces.len() as u64);
        send(&spaces[..size as usize])?;
        padding_left -= size;
    }
    send(&reply.body)?;
    if reply.framing == Framing::Chunked {
        writer.write_all(b"0\r\n\r\n")?;
    }
    writer.flush()
}

fn read_request(reader: &mut BufReader<TcpStream>) -> Option<Request> {
    let mut line = String::new();
    reader.read_line(&mut line).ok()?;
    let mut parts = line.split_whitespace();
    let method = parts.next()?.to_owned();
    let target = parts.next()?.to_owned();
    let mut headers = Vec::new();
    loop {
        let mut line = String::new();
        reader.read_line(&mut line).ok()?;
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        let (name, value) = line.split_once(':')?;
        headers.push((name.trim().to_ascii_lowercase(), value.trim().to_owned()));
    }
    let length = headers
        .iter()
        .find(|(name, _)| name == "content-length")
        .map_or(0, |(_, value)| value.parse().unwrap());
    let mut body = vec![0; length];
    reader.read_exact(&mut body).ok()?;
    Some(Request {
        method,
        target,
        headers,
        body,
        received: Instant::now(),
    })
}

/// A command as the server hands it out.
pub fn command(id: &str, action: &str) -> serde_json::Value {
    serde_json::json!({"id": id, "action": action, "issued_time": "2026-11-21T10:00:00"})
}

/// The heartbeat route.
pub const HEARTBEAT: &str = "/agent/heartbeat/";
/// The long-poll route.
pub const COMMANDS: &str = "/agent/commands/";

/// The acknowledgement route of command `id`.
pub fn ack_path(id: &str) -> String {
    format!("/agent/commands/{id}/ack/")
}

/// How many of `requests` are `method` on `path`.
pub fn count(requests: &[Request], method: &str, path: &str) -> usize {
    requests
        .iter()
        .filter(|request| request.is(method, path))
        .count()
}

/// The bodies of the acknowledgements of `id`, in the order they came.
pub fn acks_of(requests: &[Request], id: &str) -> Vec<serde_json::Value> {
    requests
        .iter()
        .filter(|request| request.is("POST", &ack_path(id)))
        .map(Request::json)
        .collect()
}

/// A heartbeat answer handing out `commands`, the next heartbeat due in a second.
pub fn heartbeat_answer(commands: serde_json::Value) -> Reply {
    Reply::json(
        200,
        serde_json::json!({"commands": commands, "heartbeat_interval": 1}),
    )
}

/// A long poll with nothing to hand out: an empty list after (at most a second of) `wait`.
pub fn idle_poll(request: &Request) -> Reply {
    let wait: u64 = request.query("wait").unwrap().parse().unwrap();
    Reply::json(200, serde_json::json!({"commands": []})).after(Duration::from_secs(wait.min(1)))
}

/// Writes an agent configuration for `server` into `directory`.
pub fn write_config(directory: &Path, server: &str) -> PathBuf {
    let path = directory.join("config.json");
    let config = serde_json::json!({
        "server": server,
        "serial": SERIAL,
        "device_token": DEVICE_TOKEN,
    });
    std::fs::write(&path, config.to_string()).unwrap();
    path
}

/// Waits until the file at `path` has a whole line in it, and returns its text.
pub fn wait_for_line_in(path: &Path) -> String {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let text = std::fs::read_to_string(path).unwrap_or_default();
        if text.ends_with('\n') {
            return text;
        }
        assert!(
            Instant::now() < deadline,
            "nothing was written to {}",
            path.display()
        );
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// The lines of `path`, none when it does not exist.
pub fn lines_of(path: &Path) -> Vec<String> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .map(str::to_owned)
        .collect()
}

/// A `devmgr-agent run` child process; killed if the test ends early.
pub struct RunningAgent {
    child: Child,
    stderr: PathBuf,
}

impl RunningAgent {
    /// Starts `devmgr-agent run --config <config> <extra…>`, logging to a
    /// file in `directory` (after what earlier agents logged there).
    pub fn start(directory: &Path, config: &Path, extra: &[&str]) -> Self {
        let stderr = directory.join("agent.log");
        let log = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&stderr)
            .unwrap();
        let child = Command::new(AGENT)
            .arg("run")
            .arg("--config")
            .arg(config)
            .args(extra)
            .env_remove("DEVMGR_AGENT_REBOOT_COMMAND")
            .env_remove("DEVMGR_AGENT_MAX_BACKOFF")
            .env("DEVMGR_AGENT_LOG", "debug")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .unwrap();
        Self { child, stderr }
    }

    /// What the agent logged so far.
    pub fn log(&self) -> String {
        std::fs::read_to_string(&self.stderr).unwrap_or_default()
    }

    /// Waits until the log contains `text`.
    pub fn wait_for_log(&self, text: &str) {
        let deadline = Instant::now() + Duration::from_secs(10);
        while !self.log().contains(text) {
            assert!(
                Instant::now() < deadline,
                "the agent never logged {text:?}:\n{}",
                self.log()
            );
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    /// Whether it is still running.
    pub fn is_running(&mut self) -> bool {
        self.child.try_wait().unwrap().is_none()
    }

    /// Kills it with SIGKILL, as a power cut or the OOM killer would, and
    /// waits for its end.
    pub fn kill(&mut self) {
        self.child.kill().unwrap();
        let status = self.child.wait().unwrap();
        assert_eq!(status.signal(), Some(9), "{status}");
    }

    /// Sends `signal` (`TERM`, `INT`) and returns the exit status and how long the exit took.
    pub fn stop_with(&mut self, signal: &str) -> (ExitStatus, Duration) {
        let sent = Instant::now();
        let status = Command::new("kill")
            .arg(format!("-{signal}"))
            .arg(self.child.id().to_string())
            .status()
            .unwrap();
        assert!(status.success(), "kill -{signal} failed");
        let deadline = sent + Duration::from_secs(5);
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return (status, sent.elapsed());
            }
            assert!(
                Instant::now() < deadline,
                "the agent did not stop on SIG{signal}:\n{}",
                self.log()
            );
            std::thread::sleep(Duration::from_millis(5));
        }
    }
}

impl Drop for RunningAgent {
    fn drop(&mut self) {
        if self.is_running() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// `devmgr-agent <args…>` with no `DEVMGR_AGENT_*` setting of the
/// environment running the tests, logging warnings only, stdin empty.
pub fn agent_command(args: &[&str]) -> Command {
    let mut command = Command::new(AGENT);
    for (name, _) in std::env::vars_os() {
        if name.to_string_lossy().starts_with("DEVMGR_AGENT_") {
            command.env_remove(name);
        }
    }
    command
        .args(args)
        .env("DEVMGR_AGENT_LOG", "warn")
        .stdin(Stdio::null());
    command
}

/// Runs the agent with `args` to its end.
pub fn agent(args: &[&str]) -> Output {
    agent_command(args).output().unwrap()
}

/// Runs the agent with `args` to its end, `stdin` as its standard input.
pub fn agent_with_stdin(args: &[&str], stdin: &[u8]) -> Output {
    let mut child = agent_command(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(stdin).unwrap();
    child.wait_with_output().unwrap()
}

/// How a run measured by [`measure`] went.
#[derive(Debug)]
pub struct Measured {
    /// Exit status and output.
    pub output: Output,
    /// The highest peak resident memory (`VmHWM`) seen while it ran, in bytes.
    pub peak_memory: u64,
    /// From start to exit.
    pub took: Duration,
}

/// Runs `command` to its end, reading its peak resident memory (`VmHWM` of
/// `/proc/<pid>/status`, which only grows) every millisecond meanwhile.
pub fn measure(mut command: Command) -> Measured {
    let started = Instant::now();
    let mut child = command
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let status_file = format!("/proc/{}/status", child.id());
    let mut peak_memory = 0;
    // Its output is a line or two: the pipes cannot fill up meanwhile.
    while child.try_wait().unwrap().is_none() {
        if let Some(peak) = peak_resident_memory(&status_file) {
            peak_memory = peak_memory.max(peak);
        }
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "the agent is still running after a minute"
        );
        std::thread::sleep(Duration::from_millis(1));
    }
    let took = started.elapsed();
    let output = child.wait_with_output().unwrap();
    Measured {
        output,
        peak_memory,
        took,
    }
}

/// `VmHWM` in bytes, while the process is alive.
fn peak_resident_memory(status_file: &str) -> Option<u64> {
    let status = std::fs::read_to_string(status_file).ok()?;
    let line = status.lines().find(|line| line.starts_with("VmHWM:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// Whether `text` has a C0 or C1 control character or DEL in it.
pub fn has_control_characters(text: &str) -> bool {
    text.contains(char::is_control)
}
