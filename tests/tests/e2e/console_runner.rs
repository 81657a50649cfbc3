//! Runs the console's browser scripts (`tests/browser/console_*.mjs`, with
//! playwright-core, axe-core and the machine's chromium) against a server of
//! the test, answering their questions (the mail the server sent) and reading
//! their report. See `tests/browser/console_lib.mjs` for the protocol.

use crate::api_docs_browser::chromium;
use crate::api_lint::api_tools;
use crate::support::*;
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// `target/<profile>/console`: the screenshots.
pub fn screenshots() -> PathBuf {
    output_dir("console")
}

/// What a script reported.
pub struct Report {
    /// The script's JSON report (`failure`, `problems`, `axe`, `wide`, `focus`, `steps`).
    pub json: Value,
    /// What it wrote to stderr (its steps), and to stdout besides the protocol.
    pub log: String,
    /// How long it ran.
    pub took: Duration,
}

impl Report {
    /// Asserts that the script finished every step and found nothing wrong.
    #[track_caller]
    pub fn assert_clean(&self) {
        let found = |key: &str| self.json[key].as_array().map_or(0, Vec::len);
        let clean = self.json["failure"].is_null()
            && ["problems", "axe", "wide", "focus"]
                .iter()
                .all(|key| found(key) == 0);
        assert!(
            clean,
            "the browser found problems (in {:.1} s):\nfailure: {}\nproblems: {:#}\naxe (serious or critical): {:#}\n\
             sideways scroll at 360 px: {:#}\nfocus: {:#}\nsteps: {}\nlog:\n{}",
            self.took.as_secs_f64(),
            self.json["failure"].as_str().unwrap_or("none"),
            self.json["problems"],
            self.json["axe"],
            self.json["wide"],
            self.json["focus"],
            self.json["steps"],
            self.log
        );
    }
}

/// Answers the scripts' questions: `{"ask": "mail", "to", "marker"}` → the
/// link with `marker` of the newest mail to `to` (waiting up to 10 s for one
/// not handed out before).
pub struct Mailbox<'a> {
    server: &'a Server,
    handed_out: Vec<String>,
}

impl<'a> Mailbox<'a> {
    pub fn new(server: &'a Server) -> Self {
        Mailbox {
            server,
            handed_out: Vec::new(),
        }
    }

    pub fn answer(&mut self, question: &Value) -> Value {
        if question["ask"] != "mail" {
            return json!({"error": format!("unknown question {question}")});
        }
        let to = question["to"].as_str().unwrap_or_default();
        let marker = question["marker"].as_str().unwrap_or_default();
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            let mails = self.server.mails();
            let fresh = mails.iter().rev().find(|mail| {
                mail.contains(to) && mail.contains(marker) && !self.handed_out.contains(mail)
            });
            if let Some(mail) = fresh {
                self.handed_out.push(mail.clone());
                return json!({"link": link_in(mail, marker)});
            }
            if Instant::now() > deadline {
                return json!({"error": format!("no new mail to {to} with {marker} among {} mail(s)", mails.len())});
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

/// Runs `tests/browser/<script>` against `server` with these environment
/// variables (besides DEVMGR_URL, DEVMGR_CHROMIUM and DEVMGR_SCREENSHOTS),
/// answering its questions from the server's mail. Panics when node cannot
/// run or prints no report.
pub fn run_script(server: &Server, script: &str, env: &[(&str, &str)]) -> Report {
    let node = api_tools();
    let browser_dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("browser");
    let work = tempfile::tempdir().expect("a temporary folder");
    std::os::unix::fs::symlink(
        node.dir().join("node_modules"),
        work.path().join("node_modules"),
    )
    .expect("node_modules is linked");
    for entry in std::fs::read_dir(&browser_dir).expect("tests/browser is readable") {
        let path = entry.expect("an entry").path();
        let name = path
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default();
        if name.starts_with("console_") && name.ends_with(".mjs") {
            std::fs::copy(&path, work.path().join(name)).expect("the script is copied");
        }
    }
    let started = Instant::now();
    let mut child = Command::new("node")
        .arg(script)
        .current_dir(work.path())
        .env("DEVMGR_URL", server.base())
        .env("DEVMGR_CHROMIUM", chromium())
        .env("DEVMGR_SCREENSHOTS", screenshots())
        .envs(env.iter().copied())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("node runs");
    let mut stderr = child.stderr.take().expect("stderr");
    let errors = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = stderr.read_to_string(&mut text);
        text
    });
    let mut stdin = child.stdin.take().expect("stdin");
    let stdout = BufReader::new(child.stdout.take().expect("stdout"));
    let mut mailbox = Mailbox::new(server);
    let mut report = None;
    let mut log = String::new();
    for line in stdout.lines() {
        let line = line.expect("the script's output is text");
        if let Some(question) = line.strip_prefix("ASK ") {
            let question: Value = serde_json::from_str(question).expect("a question is JSON");
            let answer = mailbox.answer(&question);
            writeln!(stdin, "{answer}").expect("the script reads its answers");
        } else if let Some(json) = line.strip_prefix("RESULT ") {
            report = Some(serde_json::from_str::<Value>(json).expect("the report is JSON"));
        } else {
            log.push_str(&line);
            log.push('\n');
        }
    }
    drop(stdin);
    let status = child.wait().expect("node ends");
    log.push_str(&errors.join().unwrap_or_default());
    let took = started.elapsed();
    eprintln!("{script}: {:.1} s", took.as_secs_f64());
    let json = report.unwrap_or_else(|| panic!("{script} printed no report ({status}):\n{log}"));
    Report { json, log, took }
}

/// Asserts that each of these screenshots was saved.
#[track_caller]
pub fn assert_screenshots(names: &[&str]) {
    let dir = screenshots();
    let missing: Vec<&str> = names
        .iter()
        .copied()
        .filter(|name| !dir.join(format!("{name}.png")).is_file())
        .collect();
    assert!(
        missing.is_empty(),
        "screenshots not saved in {}: {missing:?}",
        dir.display()
    );
}
