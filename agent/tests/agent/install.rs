//! `devmgr-agent install` against a stub server.

use crate::support::{Reply, SERIAL, StubServer, agent};
use serde_json::json;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::time::{Duration, Instant};

pub fn installing_server() -> StubServer {
    StubServer::start(|request, earlier| {
        assert!(request.is("POST", "/install/"), "{request:?}");
        let body = request.json();
        if body["install_token"] != "good-token" {
            return Reply::json(400, json!({"install_token": ["Invalid install token."]}));
        }
        // A new device token on every install, as the server re-keys.
        let token = format!("{:040x}", earlier.len() + 1);
        let serial = body["serial"].as_str().unwrap_or(SERIAL).to_owned();
        Reply::json(
            201,
            json!({
                "serial": serial,
                "device_token": token,
                "url": format!("http://devmgr.test/devices/{serial}/"),
            }),
        )
    })
}

fn read_json(path: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

pub fn stdout_json(output: &std::process::Output) -> serde_json::Value {
    let stdout = String::from_utf8(output.stdout.clone()).unwrap();
    assert_eq!(stdout.lines().count(), 1, "{stdout}");
    serde_json::from_str(&stdout).unwrap()
}

#[test]
fn install_enrols_writes_a_private_config_and_prints_no_token() {
    let server = installing_server();
    let directory = tempfile::tempdir().unwrap();
    let config = directory.path().join("etc").join("config.json");
    let server_with_slash = format!("{}/", server.url());
    let output = agent(&[
        "install",
        "--server",
        &server_with_slash,
        "--token",
        "good-token",
        "--config",
        config.to_str().unwrap(),
    ]);
    assert!(output.status.success(), "{output:?}");
    assert_eq!(
        stdout_json(&output),
        json!({
            "serial": SERIAL,
            "url": format!("http://devmgr.test/devices/{SERIAL}/"),
            "config": config.to_str().unwrap(),
        })
    );
    let token = format!("{:040x}", 1);
    assert!(!String::from_utf8_lossy(&output.stdout).contains(&token));
    assert!(!String::from_utf8_lossy(&output.stderr).contains(&token));
    // No warning either: plain http:// to 127.0.0.1 stays on this machine.
    assert!(output.stderr.is_empty(), "{output:?}");

    let mode = std::fs::metadata(&config).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600);
    assert_eq!(
        read_json(&config),
        json!({"server": server.url(), "serial": SERIAL, "device_token": token})
    );

    let request = &server.requests()[0];
    let body = request.json();
    assert_eq!(body["install_token"], "good-token");
    assert!(body.get("serial").is_none(), "{body}");
    let host_name = rustix::system::uname()
        .nodename()
        .to_string_lossy()
        .into_owned();
    assert_eq!(body["name"], host_name.as_str());
    assert!(body["machine_type"].is_string(), "{body}");
}

#[test]
fn installing_again_with_the_same_server_re_keys_the_same_serial() {
    let server = installing_server();
    let directory = tempfile::tempdir().unwrap();
    let config = directory.path().join("config.json");
    let serial = "6ba7b810-9dad-11d1-80b4-00c04fd430c8";
    let first = agent(&[
        "install",
        "--server",
        server.url(),
        "--token",
        "good-token",
        "--serial",
        serial,
        "--name",
        "kitchen-pi",
        "--machine-type",
        "rpi_4b",
        "--config",
        config.to_str().unwrap(),
    ]);
    assert!(first.status.success(), "{first:?}");
    let second = agent(&[
        "install",
        "--server",
        &format!("{}/", server.url()),
        "--token",
        "good-token",
        "--config",
        config.to_str().unwrap(),
    ]);
    assert!(second.status.success(), "{second:?}");
    assert_eq!(stdout_json(&second)["serial"], serial);

    let requests = server.requests();
    assert_eq!(
        requests[0].json(),
        json!({"install_token": "good-token", "name": "kitchen-pi", "machine_type": "rpi_4b", "serial": serial})
    );
    assert_eq!(requests[1].json()["serial"], serial);
    assert_eq!(
        read_json(&config)["device_token"],
        format!("{:040x}", 2),
        "the new token replaces the old one"
    );
}

#[test]
fn a_refused_install_shows_the_field_errors_and_writes_nothing() {
    let server = installing_server();
    let directory = tempfile::tempdir().unwrap();
    let config = directory.path().join("config.json");
    let output = agent(&[
        "install",
        "--server",
        server.url(),
        "--token",
        "wrong",
        "--config",
        config.to_str().unwrap(),
    ]);
    assert_eq!(output.status.code(), Some(1));
    assert!(output.stdout.is_empty());
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(
        stderr.contains("install_token: Invalid install token."),
        "{stderr}"
    );
    assert!(stderr.starts_with("error: "), "{stderr}");
    assert!(!config.exists());
    assert_eq!(std::fs::read_dir(directory.path()).unwrap().count(), 0);
}

#[test]
fn an_unreachable_server_fails_with_a_message() {
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", closed.local_addr().unwrap());
    drop(closed);
    let directory = tempfile::tempdir().unwrap();
    let config = directory.path().join("config.json");
    let started = Instant::now();
    let output = agent(&[
        "install",
        "--server",
        &url,
        "--token",
        "good-token",
        "--config",
        config.to_str().unwrap(),
        // Two seconds: the first wait (0.5 to 1 s) always fits, so the
        // retry is certain whatever the jitter.
        "--retry-for",
        "2",
    ]);
    assert!(started.elapsed() < Duration::from_secs(5));
    assert_eq!(output.status.code(), Some(1));
    assert!(output.stdout.is_empty());
    let stderr = String::from_utf8(output.stderr).unwrap();
    // Tried again (a connection error may pass), then gave up.
    assert!(stderr.contains("trying again"), "{stderr}");
    assert!(stderr.contains("error: "), "{stderr}");
    assert!(stderr.contains("cannot reach the server"), "{stderr}");
    assert!(stderr.contains("--retry-for 2"), "{stderr}");
    assert!(!config.exists());
}

#[test]
fn a_config_that_cannot_be_written_stops_install_before_enrolling() {
    let server = installing_server();
    let directory = tempfile::tempdir().unwrap();
    // A file where the configuration's directory should be.
    let blocker = directory.path().join("not-a-directory");
    std::fs::write(&blocker, "").unwrap();
    let config = blocker.join("config.json");
    let output = agent(&[
        "install",
        "--server",
        server.url(),
        "--token",
        "good-token",
        "--config",
        config.to_str().unwrap(),
    ]);
    assert_eq!(output.status.code(), Some(1));
    assert!(output.stdout.is_empty());
    assert!(server.requests().is_empty(), "enrolled anyway");
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(
        stderr.contains("cannot write the agent configuration"),
        "{stderr}"
    );
}

/// `first` then `second`.
pub fn joined<'a>(first: &[&'a str], second: &[&'a str]) -> Vec<&'a str> {
    [first, second].concat()
}
