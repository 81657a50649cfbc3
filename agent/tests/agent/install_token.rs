//! Where `devmgr-agent install` reads its install token from.

use crate::install::*;
use crate::support::{StubServer, agent, agent_command, agent_with_stdin};

/// The install token each of `installing_server`'s requests carried.
fn tokens_received(server: &StubServer) -> Vec<String> {
    server
        .requests()
        .iter()
        .map(|request| request.json()["install_token"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn the_token_comes_from_a_file_stdin_or_the_environment_without_its_line_ending() {
    let server = installing_server();
    let directory = tempfile::tempdir().unwrap();
    let config = directory.path().join("config.json");
    let config = config.to_str().unwrap();
    let install = ["install", "--server", server.url(), "--config", config];

    for contents in ["good-token\n", "good-token\r\n", "good-token"] {
        let token_file = directory.path().join("token");
        std::fs::write(&token_file, contents).unwrap();
        let output = agent(&joined(
            &install,
            &["--token-file", token_file.to_str().unwrap()],
        ));
        assert!(output.status.success(), "{contents:?}: {output:?}");
    }
    let output = agent_with_stdin(&joined(&install, &["--token", "-"]), b"good-token\n");
    assert!(output.status.success(), "stdin: {output:?}");
    let output = agent_command(&install)
        .env("DEVMGR_AGENT_INSTALL_TOKEN", "good-token\n")
        .output()
        .unwrap();
    assert!(output.status.success(), "environment: {output:?}");

    assert_eq!(tokens_received(&server), vec!["good-token"; 5]);
}

#[test]
fn only_one_line_ending_is_stripped_from_the_token() {
    let server = installing_server();
    let directory = tempfile::tempdir().unwrap();
    let config = directory.path().join("config.json");
    let output = agent_with_stdin(
        &[
            "install",
            "--server",
            server.url(),
            "--token",
            "-",
            "--config",
            config.to_str().unwrap(),
        ],
        b"good-token\n\n",
    );
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    assert_eq!(tokens_received(&server), vec!["good-token\n"]);
}

#[test]
fn the_token_must_come_from_exactly_one_source() {
    let server = installing_server();
    let directory = tempfile::tempdir().unwrap();
    let config = directory.path().join("config.json");
    let token_file = directory.path().join("token");
    std::fs::write(&token_file, "good-token\n").unwrap();
    let install = [
        "install",
        "--server",
        server.url(),
        "--config",
        config.to_str().unwrap(),
    ];
    let token_file = token_file.to_str().unwrap();
    let cases: [(&[&str], Option<&str>, &str); 6] = [
        (&[], None, "no install token"),
        (&["--token", "-"], None, "is empty"),
        (
            &["--token", "good-token", "--token-file", token_file],
            None,
            "cannot be used with",
        ),
        (
            &["--token", "good-token"],
            Some("good-token"),
            "exactly one",
        ),
        (&["--token", "-"], Some("good-token"), "exactly one"),
        (
            &["--token-file", token_file],
            Some("good-token"),
            "exactly one",
        ),
    ];
    for (extra, environment, message) in cases {
        let mut command = agent_command(&joined(&install, extra));
        if let Some(value) = environment {
            command.env("DEVMGR_AGENT_INSTALL_TOKEN", value);
        }
        let output = command.output().unwrap();
        let stderr = String::from_utf8(output.stderr).unwrap();
        assert_eq!(output.status.code(), Some(1), "{extra:?}: {stderr}");
        assert!(output.stdout.is_empty());
        assert!(stderr.contains(message), "{extra:?}: {stderr}");
        assert!(!stderr.contains("good-token"), "{extra:?}: {stderr}");
    }
    assert!(server.requests().is_empty(), "{:#?}", server.requests());
    assert!(!config.exists());
}
