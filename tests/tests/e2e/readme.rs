//! The README's walk through the API runs as written: its blocks, pasted in
//! order into one shell, against a live server, with only what stands for
//! the reader's own build replaced (`cargo run --release -p devmgr --` and
//! `target/release/devmgr-agent` are the binaries under test, and `BASE` is
//! the server's address). Each curl call is recorded (status, URL, body) by
//! a wrapper, and must get the answer the README describes.

use crate::agent_process_support::AGENT;
use crate::support::*;
use serde_json::Value;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The longest the walk-through may take.
const WALK_TIMEOUT: Duration = Duration::from_secs(90);

/// The walk-through's code blocks: the `sh` blocks of its section.
fn walkthrough_blocks(readme: &str) -> Vec<String> {
    let section = readme
        .split("\n## ")
        .find(|section| section.starts_with("A walk through the API"))
        .expect("the README has a walk through the API");
    section
        .split("```sh\n")
        .skip(1)
        .map(|rest| rest.split("```").next().unwrap_or_default().to_owned())
        .collect()
}

/// Records every curl call as `status<TAB>URL<TAB>file holding the body`
/// in `$CURL_LOG`; the call's output and exit status are curl's own.
const CURL_WRAPPER: &str = r#"set -euo pipefail
curl() {
    local headers body
    headers=$(mktemp) body=$(mktemp)
    command curl -sS -D "$headers" "$@" | tee "$body"
    local status=${PIPESTATUS[0]}
    printf '%s\t%s\t%s\n' "$(head -n 1 "$headers" | cut -d ' ' -f 2)" "${@: -1}" "$body" >>"$CURL_LOG"
    return "$status"
}
"#;

/// The blocks as one script, with the reader's build replaced by the
/// binaries under test; fails if the README no longer says what is replaced.
fn script(blocks: &[String]) -> String {
    let walk = blocks.join("\n");
    for written in [
        "cargo run --release -p devmgr -- demo",
        "cargo build --release -p devmgr-agent\n",
        "target/release/devmgr-agent install",
        "target/release/devmgr-agent run",
        "BASE=http://127.0.0.1:8000\n",
        "kill $AGENT",
    ] {
        assert!(
            walk.contains(written),
            "the walk-through no longer has {written:?}"
        );
    }
    let walk = walk
        .replace(
            "cargo run --release -p devmgr --",
            r#""$WALK_DEVMGR" --database-url "$WALK_DATABASE_URL""#,
        )
        .replace("cargo build --release -p devmgr-agent\n", ":\n")
        .replace("target/release/devmgr-agent", r#""$WALK_AGENT""#)
        .replace("BASE=http://127.0.0.1:8000\n", "BASE=$WALK_BASE\n");
    format!("{CURL_WRAPPER}{walk}")
}

/// One recorded curl call.
#[derive(Debug)]
struct Call {
    status: u16,
    url: String,
    body: Value,
}

fn calls(log: &Path) -> Vec<Call> {
    let log = std::fs::read_to_string(log).expect("curl was called");
    log.lines()
        .map(|line| {
            let mut fields = line.split('\t');
            let status = fields.next().and_then(|s| s.parse().ok()).unwrap_or(0);
            let url = fields.next().unwrap_or_default().to_owned();
            let body = fields
                .next()
                .and_then(|file| std::fs::read_to_string(file).ok())
                .and_then(|text| serde_json::from_str(&text).ok())
                .unwrap_or(Value::Null);
            Call { status, url, body }
        })
        .collect()
}

/// Runs `script` in bash, in a process group of its own (the agent it
/// starts in the background goes with it); returns its status and output.
fn run_walk(script: &str, dir: &Path, env: &[(&str, &str)]) -> (bool, String) {
    use std::os::unix::process::CommandExt;
    let output = dir.join("walk.out");
    let out = std::fs::File::create(&output).unwrap();
    let mut bash = Command::new("bash");
    bash.args(["-c", script])
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(out.try_clone().unwrap())
        .stderr(out)
        .process_group(0);
    for (name, _) in std::env::vars_os() {
        if name.to_string_lossy().starts_with("DEVMGR_") {
            bash.env_remove(name);
        }
    }
    bash.envs(env.iter().copied());
    let mut child = bash.spawn().expect("bash runs");
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break Some(status);
        }
        if started.elapsed() > WALK_TIMEOUT {
            break None;
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    let _ = Command::new("kill")
        .args(["-KILL", "--", &format!("-{}", child.id())])
        .stderr(Stdio::null())
        .status();
    let _ = child.wait();
    let text = std::fs::read_to_string(&output).unwrap_or_default();
    (status.is_some_and(|s| s.success()), text)
}

/// The recorded calls, read in order, and the walk's output for messages.
struct Calls<'a>(std::iter::Peekable<std::slice::Iter<'a, Call>>, &'a str);

impl<'a> Calls<'a> {
    /// The next call: to a URL ending in `what`, answered `status`.
    #[track_caller]
    fn next(&mut self, what: &str, status: u16) -> &'a Call {
        let call = self
            .0
            .next()
            .unwrap_or_else(|| panic!("no call for {what}"));
        assert!(call.url.ends_with(what), "{call:?} is not {what}");
        assert_eq!(call.status, status, "{call:?}:\n{}", self.1);
        call
    }

    /// The last of the next calls to the same URL (a loop that waits).
    #[track_caller]
    fn last_of_polls(&mut self, what: &str, status: u16) -> &'a Call {
        let mut call = self.next(what, status);
        while self.0.peek().is_some_and(|next| next.url == call.url) {
            call = self.next(what, status);
        }
        call
    }
}

e2e!(the_readme_walkthrough_runs_as_written: sqlite);
fn the_readme_walkthrough_runs_as_written() {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../README.md"))
        .expect("the README");
    let blocks = walkthrough_blocks(&readme);
    assert!(
        blocks
            .iter()
            .all(|block| !block.lines().any(|l| l.starts_with("$ "))),
        "the walk-through's blocks paste as they stand: no `$ ` prompts"
    );
    let server = Server::start();
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("curl.log");
    let (log_name, url) = (log.display().to_string(), server.db.url());
    let (ok, output) = run_walk(
        &script(&blocks),
        dir.path(),
        &[
            ("CURL_LOG", &log_name),
            ("WALK_DEVMGR", BIN),
            ("WALK_AGENT", AGENT),
            ("WALK_DATABASE_URL", &url),
            ("WALK_BASE", server.base()),
        ],
    );
    assert!(ok, "the walk-through failed:\n{output}");
    assert!(
        output.contains("reboot requested"),
        "the agent carried out the reboot:\n{output}"
    );
    let calls = calls(&log);
    let mut calls = Calls(calls.iter().peekable(), &output);
    // "The three demo devices are offline"
    let listed = calls
        .next("/devices/", 200)
        .body
        .as_array()
        .unwrap()
        .clone();
    assert_eq!(listed.len(), 3, "{listed:?}");
    assert!(listed.iter().all(|d| d["online"] == false), "{listed:?}");
    // "then the device shows "online": true" (after the polls that wait for it)
    let device = calls.last_of_polls("/", 200);
    assert_eq!(device.body["online"], true, "{:?}", device.body);
    let serial = device.body["serial"].as_str().unwrap().to_owned();
    let reboot = &calls.next(&format!("/devices/{serial}/reboot/"), 202).body;
    assert_eq!(reboot["detail"], "Reboot signal dispatched.", "{reboot}");
    let id = match &reboot["command"]["id"] {
        Value::String(id) => id.clone(),
        other => other.to_string(),
    };
    // "until the command is done"
    let polled = calls.last_of_polls(&format!("/devices/{serial}/commands/{id}/"), 200);
    assert_eq!(polled.body["status"], "done", "{:?}", polled.body);
    assert!(calls.next("/auth/", 201).body["token"].is_string());
    calls.next("/auth/", 204);
    calls.next("/profile/", 200);
    assert_eq!(calls.next("/profile/", 200).body["name"], "Ada");
    calls.next("/change-password/", 204);
    calls.next("/profile/install-token/", 200);
    calls.next("/auth/logout-all/", 204);
    assert!(
        calls.0.next().is_none(),
        "more calls than the README describes"
    );
    // "every token of the account ends, `$TOKEN` included"
    let demo: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("demo.json")).unwrap())
            .unwrap();
    server
        .get("/devices/")
        .token(demo["token"].as_str().unwrap())
        .send()
        .expect_401(INVALID_TOKEN);
}
