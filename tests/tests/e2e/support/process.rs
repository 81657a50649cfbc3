//! Real `devmgr` processes: the command line, and `devmgr serve` for the
//! tests whose subject is the process (its output, signals, limits).

use serde_json::Value;
use std::fs;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, ExitStatus, Output, Stdio};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

/// The binary under test, built by cargo from the `devmgr` library's entry point.
pub const BIN: &str = env!("CARGO_BIN_EXE_devmgr-under-test");

/// How long a server may take to print its `{"listening": …}` line.
const START_TIMEOUT: Duration = Duration::from_secs(30);

/// A `devmgr` command run in `dir`, with no `DEVMGR_*` variable inherited
/// from the environment that runs the tests.
pub fn devmgr(dir: &Path) -> Command {
    let mut command = Command::new(BIN);
    command.current_dir(dir).stdin(Stdio::null());
    for (name, _) in std::env::vars_os() {
        if name.to_string_lossy().starts_with("DEVMGR_") {
            command.env_remove(name);
        }
    }
    command
}

/// Runs a command to completion.
pub fn run(command: &mut Command) -> Output {
    command.output().expect("the devmgr binary can be started")
}

fn describe(output: &Output) -> String {
    format!(
        "exit status: {}\nstdout: {}\nstderr: {}",
        output.status,
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

/// Asserts that a command succeeded and printed one JSON object on stdout.
#[track_caller]
pub fn stdout_json(output: &Output, what: &str) -> Value {
    assert!(
        output.status.success(),
        "`{what}` failed\n{}",
        describe(output)
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    let value: Value = serde_json::from_str(stdout.trim()).unwrap_or_else(|error| {
        panic!(
            "`{what}` did not print one JSON value ({error})\n{}",
            describe(output)
        )
    });
    assert!(
        value.is_object(),
        "`{what}` printed JSON that is not an object\n{}",
        describe(output)
    );
    value
}

/// Asserts that a command was refused: exit status 1, a message on stderr and
/// nothing on stdout that a program could take for a result.
#[track_caller]
pub fn assert_refused(output: &Output, what: &str) {
    assert_eq!(
        output.status.code(),
        Some(1),
        "`{what}` should exit with 1\n{}",
        describe(output)
    );
    assert!(
        !String::from_utf8_lossy(&output.stderr).trim().is_empty(),
        "`{what}` should explain itself on stderr\n{}",
        describe(output)
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        serde_json::from_str::<Value>(stdout.trim()).is_err(),
        "`{what}` should print no JSON result on stdout\n{}",
        describe(output)
    );
}

pub(super) fn device_add<'a>(owner: &'a str, name: &'a str, extra: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec!["device", "add", "--owner", owner, "--name", name];
    args.extend_from_slice(extra);
    args
}

/// A `devmgr serve` process started by `command` (which must print its
/// `{"listening": …}` line), with stderr going to `stderr_path`; returns it
/// with its base URL and the first line it printed.
pub(super) fn spawn_serve(mut command: Command, stderr_path: &Path) -> (Child, String, String) {
    let stderr = fs::File::create(stderr_path).expect("the stderr file can be made");
    let mut child = command
        .stdout(Stdio::piped())
        .stderr(Stdio::from(stderr))
        .spawn()
        .expect("devmgr serve can be spawned");

    let stdout = child.stdout.take().expect("stdout is piped");
    let (sender, receiver) = mpsc::channel();
    thread::spawn(move || {
        let mut lines = BufReader::new(stdout).lines();
        let mut seen = Vec::new();
        for line in lines.by_ref() {
            let Ok(line) = line else { break };
            if let Some(url) = listening_url(&line) {
                let _ = sender.send(Ok((url, seen.first().cloned().unwrap_or(line))));
                // Keep draining so that the server never blocks on a full pipe.
                for _ in lines.by_ref() {}
                return;
            }
            seen.push(line);
        }
        let _ = sender.send(Err(seen));
    });

    let started = receiver.recv_timeout(START_TIMEOUT);
    let (base, first_stdout_line) = match started {
        Ok(Ok(found)) => found,
        Ok(Err(lines)) => {
            let status = wait_with_timeout(&mut child, Duration::from_secs(5));
            panic!(
                "devmgr serve ended its stdout without a {{\"listening\": …}} line \
                     (status {status:?})\nstdout: {lines:?}\nstderr:\n{}",
                fs::read_to_string(stderr_path).unwrap_or_default()
            );
        }
        Err(_) => {
            let _ = child.kill();
            let _ = child.wait();
            panic!(
                "devmgr serve did not print {{\"listening\": …}} within {START_TIMEOUT:?}\nstderr:\n{}",
                fs::read_to_string(stderr_path).unwrap_or_default()
            );
        }
    };

    (child, base, first_stdout_line)
}

fn listening_url(line: &str) -> Option<String> {
    let value: Value = serde_json::from_str(line).ok()?;
    value.get("listening")?.as_str().map(str::to_owned)
}

pub(super) fn wait_with_timeout(child: &mut Child, timeout: Duration) -> Option<ExitStatus> {
    let deadline = Instant::now() + timeout;
    loop {
        if let Ok(Some(status)) = child.try_wait() {
            return Some(status);
        }
        if Instant::now() >= deadline {
            return None;
        }
        thread::sleep(Duration::from_millis(50));
    }
}
