//! Test helpers: stub-server scripting shared by the tests, and the real
//! `devmgr-agent` binary run as a child process.

pub use crate::stub_server::{Framing, Reply, Request, StubServer};
use std::io::Write;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Output, Stdio};
use std::time::{Duration, Instant};

/// The agent binary under test.
pub const AGENT: &str = env!("CARGO_BIN_EXE_devmgr-agent");

/// A device token as the server makes them.
pub const DEVICE_TOKEN: &str = "0123456789abcdef0123456789abcdef01234567";
/// A serial as the server makes them.
pub const SERIAL: &str = "0f8fad5b-d9cb-469f-a165-70867728950e";

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
