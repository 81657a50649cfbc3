//! The README's walk through the API runs as written: its commands, in
//! order, against a live server, with only what the README says to
//! substitute (the demo account's token, e-mail and password as `demo`
//! printed them, the server's address for `BASE`, a serial from the list,
//! the second token from the log-in answer), each getting the answer the
//! README describes. `cargo run --release -p devmgr -- demo` is the binary
//! under test's `demo` on the server's database.

use crate::support::*;
use serde_json::Value;
use std::process::Command;

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

/// The commands of a block, continuation lines joined, `$ ` prompts
/// dropped; the output shown after a command (a JSON line) is not one.
fn commands(block: &str) -> Vec<String> {
    let mut commands = Vec::new();
    let mut pending = String::new();
    for line in block.lines() {
        let line = line.trim();
        if pending.is_empty() && (line.is_empty() || line.starts_with('{')) {
            continue;
        }
        let line = line.strip_prefix("$ ").unwrap_or(line);
        match line.strip_suffix('\\') {
            Some(head) => pending.push_str(head),
            None => {
                pending.push_str(line);
                commands.push(std::mem::take(&mut pending));
            }
        }
    }
    commands
}

/// What the README says each command answers, in order: a piece of the
/// command that names it, and the status.
const EXPECTED: &[(&str, u16)] = &[
    ("-- demo", 0),
    ("TOKEN=", 0),
    ("BASE=", 0),
    ("$BASE/devices/", 200),
    ("$BASE/devices/<serial>/", 200),
    (
        "-X POST -H \"Authorization: Token $TOKEN\" $BASE/devices/<serial>/reboot/",
        202,
    ),
    ("$BASE/auth/", 201),
    ("SECOND=", 0),
    (
        "-X DELETE -H \"Authorization: Token $SECOND\" $BASE/auth/",
        204,
    ),
    ("$BASE/profile/", 200),
    ("-X PATCH", 200),
    ("$BASE/change-password/", 204),
    ("$BASE/profile/install-token/", 200),
    ("$BASE/auth/logout-all/", 204),
];

/// Runs one curl command as written (curl wrapped only to report the
/// status), with the walk-through's variables; returns status and body.
fn run(command: &str, vars: &[(&str, &str)]) -> (u16, String) {
    let script = format!("curl() {{ command curl -sS -w '\\n%{{http_code}}' \"$@\"; }}\n{command}");
    let mut shell = Command::new("bash");
    shell.args(["-c", &script]);
    for (name, value) in vars {
        shell.env(name, value);
    }
    let output = shell.output().expect("bash runs");
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(
        output.status.success(),
        "{command}: {stdout}{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let (body, status) = stdout.rsplit_once('\n').unwrap_or(("", &stdout));
    (
        status.trim().parse().expect("curl wrote the status"),
        body.to_owned(),
    )
}

e2e!(the_readme_walkthrough_runs_as_written: sqlite);
fn the_readme_walkthrough_runs_as_written() {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../README.md"))
        .expect("the README");
    let commands: Vec<String> = walkthrough_blocks(&readme)
        .iter()
        .flat_map(|block| commands(block))
        .collect();
    assert_eq!(
        commands.len(),
        EXPECTED.len(),
        "the walk-through's commands changed: {commands:#?}"
    );
    let server = Server::start();
    let mut demo = Value::Null;
    let mut vars: Vec<(&str, String)> = Vec::new();
    let mut last = Value::Null;
    let mut serial = String::new();
    for (command, (names, status)) in commands.iter().zip(EXPECTED) {
        assert!(command.contains(names), "{command} is not {names}");
        if command.ends_with("-- demo") {
            demo = server.cli(&["demo"]);
            continue;
        }
        if let Some((name, value)) = command.split_once('=').filter(|(n, _)| !n.contains(' ')) {
            let value = value.split('#').next().unwrap_or_default().trim();
            let value = match name {
                // "the token printed above", "the token of that answer"
                "TOKEN" => string(&demo, "token"),
                "SECOND" => string(&last, "token"),
                "BASE" => {
                    assert_eq!(value, "http://127.0.0.1:8000", "{command}");
                    server.base().to_owned()
                }
                other => panic!("the README sets {other}, which the test does not know"),
            };
            vars.push((name, value));
            continue;
        }
        let command = command
            .replace("<serial>", &serial)
            .replace("demo-k3x9q2@example.com", &string(&demo, "email"))
            .replace("\"demo-…\"", &format!("\"{}\"", string(&demo, "password")));
        assert!(!command.contains('…'), "a placeholder is left in {command}");
        let env: Vec<(&str, &str)> = vars.iter().map(|(n, v)| (*n, v.as_str())).collect();
        let (answered, body) = run(&command, &env);
        assert_eq!(answered, *status, "{command}: {body}");
        last = serde_json::from_str(&body).unwrap_or(Value::Null);
        if serial.is_empty() && last.is_array() {
            // "its `url` is in the list"
            serial = string(&last[0], "serial");
        }
    }
    // "every token of the account ends, `$TOKEN` included"
    server
        .get("/devices/")
        .token(&string(&demo, "token"))
        .send()
        .expect_401(INVALID_TOKEN);
}

#[test]
fn commands_are_read_like_a_person_reads_the_blocks() {
    let block = "$ make demo\n{\"token\": \"x\"}\n$ TOKEN=x   # the token\n\ncurl -X POST \\\n     -d '{}' $BASE/a/\n";
    assert_eq!(
        commands(block),
        [
            "make demo",
            "TOKEN=x   # the token",
            "curl -X POST -d '{}' $BASE/a/"
        ]
    );
}
