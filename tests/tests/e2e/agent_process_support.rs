//! A `devmgr-agent` process for the tests of `agent_process.rs`: its home, its run, its log.

use crate::support::{Server, stdout_json, string};
use serde_json::Value;
use std::fs;
use std::path::PathBuf;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::thread;
use std::time::{Duration, Instant};
use tempfile::TempDir;

/// The agent under test, built by cargo from the real `agent/src/main.rs`.
pub const AGENT: &str = env!("CARGO_BIN_EXE_devmgr-agent-under-test");

/// A short online window, so that going offline is quick to see.
pub const WINDOW_SECS: u64 = 3;

/// How long anything the agent does may take to show (generous for a busy CI machine).
pub const PATIENCE: Duration = Duration::from_secs(30);

/// Where one device's agent keeps its configuration and leaves its traces.
pub struct Device {
    home: TempDir,
}

impl Device {
    pub fn new() -> Self {
        Device {
            home: tempfile::tempdir().expect("a temporary directory"),
        }
    }

    /// The config file, in a directory that does not exist before `install`.
    pub fn config(&self) -> PathBuf {
        self.home.path().join("etc/devmgr-agent/config.json")
    }

    /// The file the harmless reboot command appends a line to.
    pub fn reboots(&self) -> PathBuf {
        self.home.path().join("reboots")
    }

    /// The lines the reboot command has written so far.
    pub fn reboot_lines(&self) -> Vec<String> {
        fs::read_to_string(self.reboots())
            .unwrap_or_default()
            .lines()
            .map(str::to_owned)
            .collect()
    }

    /// `devmgr-agent <args…>` with this device's config file and no other
    /// `DEVMGR_AGENT_*` setting from the environment that runs the tests.
    pub fn command(&self, args: &[&str]) -> Command {
        let mut command = Command::new(AGENT);
        for (name, _) in std::env::vars_os() {
            if name.to_string_lossy().starts_with("DEVMGR_AGENT_") {
                command.env_remove(name);
            }
        }
        command
            .args(args)
            .env("DEVMGR_AGENT_CONFIG", self.config())
            .stdin(Stdio::null());
        command
    }

    /// Runs the profile's `install_command` exactly as printed (with this
    /// build of the agent in place of `devmgr-agent`); returns its JSON output.
    pub fn install_as_printed(&self, server: &Server, owner_token: &str) -> Value {
        let profile = server.get("/profile/").token(owner_token).send().json();
        let printed = string(&profile, "install_command");
        let words: Vec<&str> = printed.split_whitespace().collect();
        assert_eq!(words.first(), Some(&"devmgr-agent"), "{printed}");
        let output = self
            .command(&words[1..])
            .output()
            .expect("devmgr-agent can be started");
        stdout_json(&output, &printed)
    }

    /// Starts `devmgr-agent run` with a reboot command that only leaves a trace.
    pub fn run(&self, extra: &[&str]) -> RunningAgent {
        let reboot_command = format!("echo rebooted >> '{}'", self.reboots().display());
        self.run_with_reboot_command(&reboot_command, extra)
    }

    pub fn run_with_reboot_command(&self, reboot_command: &str, extra: &[&str]) -> RunningAgent {
        let log = self.home.path().join("agent.log");
        let child = self
            .command(&["run", "--reboot-command", reboot_command])
            .args(extra)
            .env("DEVMGR_AGENT_LOG", "info")
            .stdout(Stdio::null())
            .stderr(fs::File::create(&log).expect("the log file can be made"))
            .spawn()
            .expect("devmgr-agent run can be started");
        RunningAgent { child, log }
    }
}

/// A running `devmgr-agent run`, killed when dropped.
pub struct RunningAgent {
    pub child: Child,
    log: PathBuf,
}

impl RunningAgent {
    /// What the agent logged so far.
    pub fn log(&self) -> String {
        fs::read_to_string(&self.log).unwrap_or_default()
    }

    /// Sends SIGTERM and waits up to `timeout` for the agent to end.
    pub fn terminate(&mut self, timeout: Duration) -> Option<ExitStatus> {
        let sent = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status()
            .expect("kill can be run");
        assert!(sent.success(), "kill -TERM failed");
        let deadline = Instant::now() + timeout;
        while Instant::now() < deadline {
            if let Ok(Some(status)) = self.child.try_wait() {
                return Some(status);
            }
            thread::sleep(Duration::from_millis(20));
        }
        None
    }

    /// Whether the process is still running.
    pub fn is_running(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }
}

impl Drop for RunningAgent {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Checks `done` until it holds, for at most [`PATIENCE`].
#[track_caller]
pub fn wait_until(what: &str, mut done: impl FnMut() -> bool) {
    let deadline = Instant::now() + PATIENCE;
    while !done() {
        assert!(Instant::now() < deadline, "gave up waiting until {what}");
        thread::sleep(Duration::from_millis(100));
    }
}

/// `PRETTY_NAME` of the os-release file, as the agent should report it.
pub fn pretty_os_name() -> Option<String> {
    let text = fs::read_to_string("/etc/os-release")
        .or_else(|_| fs::read_to_string("/usr/lib/os-release"))
        .ok()?;
    text.lines().find_map(|line| {
        let value = line.strip_prefix("PRETTY_NAME=")?;
        Some(value.trim_matches(|c| c == '"' || c == '\'').to_owned())
    })
}

pub fn port_of(base: &str) -> u64 {
    base.rsplit(':')
        .next()
        .and_then(|port| port.parse().ok())
        .expect("the server's address has a port")
}
