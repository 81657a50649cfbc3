//! `--config FILE` (docs/operations.md, The configuration file): the file's
//! options under the environment, under the flags; an unknown key stops the
//! server at start, naming it. And the links commands print name the server
//! they were told about (`--public-url`, else `--bind`).

use crate::device_support::{heartbeat, install_call};
use crate::support::*;
use serde_json::json;

/// A configuration file in `db`'s folder.
fn config_file(db: &Db, toml: &str) -> String {
    let path = db.dir().join("devmgr.toml");
    std::fs::write(&path, toml).unwrap();
    path.display().to_string()
}

e2e!(flags_beat_the_environment_which_beats_the_file: sqlite);
fn flags_beat_the_environment_which_beats_the_file() {
    let db = Db::new();
    let config = config_file(
        &db,
        r#"
# every key is an option's long name with underscores
public_url = "https://from-the-file.example"
online_window = 300
registration = "closed"
"#,
    );
    let server = Server::builder()
        .db(db)
        .env("DEVMGR_CONFIG", &config)
        .env("DEVMGR_PUBLIC_URL", "https://from-the-environment.example")
        .env("DEVMGR_ONLINE_WINDOW", "150")
        .args(&["--online-window", "60"])
        .start();

    // The file alone sets registration.
    server
        .post("/register/")
        .json(&json!({"email": "new@example.com"}))
        .send()
        .expect(403, json!({"detail": "Registration is closed."}));

    // The environment beats the file: links name its public URL.
    let owner = server.account("owner@example.com");
    let reply = install_call(
        &server,
        &json!({"install_token": owner.install_token, "name": "shed"}),
    );
    reply.expect_status(201);
    let installed = reply.json();
    let serial = string(&installed, "serial");
    assert_eq!(
        installed["url"],
        format!("https://from-the-environment.example/devices/{serial}/"),
        "{reply}"
    );

    // The flag beats the environment: a 60 s window asks for heartbeats every 20 s.
    let answer = heartbeat(&server, &string(&installed, "device_token"), &json!({}));
    assert_eq!(answer["heartbeat_interval"], 20, "{answer}");
}

e2e!(an_unknown_key_stops_the_server_naming_it: sqlite);
fn an_unknown_key_stops_the_server_naming_it() {
    let db = Db::new();
    let config = config_file(
        &db,
        "bind = \"127.0.0.1:0\"\nlisten_address = \"0.0.0.0:80\"\n",
    );
    let output = db.run_for(
        &["--config", &config, "serve"],
        std::time::Duration::from_secs(20),
    );
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("unknown key `listen_address`") && stderr.contains(&config),
        "{stderr}"
    );
    assert!(output.stdout.is_empty(), "it never listened: {output:?}");
}

e2e!(a_value_the_option_refuses_is_refused_from_the_file_too: sqlite);
fn a_value_the_option_refuses_is_refused_from_the_file_too() {
    let db = Db::new();
    let config = config_file(&db, "online_window = 0\n");
    let output = db.run_for(
        &["--config", &config, "serve", "--bind", "127.0.0.1:0"],
        std::time::Duration::from_secs(20),
    );
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("--online-window") && stderr.contains(&config),
        "{stderr}"
    );
}

e2e!(printed_links_name_the_public_url_else_the_bound_address: sqlite);
fn printed_links_name_the_public_url_else_the_bound_address() {
    let db = Db::new();
    let curl = |args: &[&str]| string(&db.json(args), "curl");
    assert!(
        curl(&["demo"]).ends_with(" http://127.0.0.1:8000/devices/"),
        "the default --bind"
    );
    assert!(
        curl(&["--bind", "127.0.0.1:9321", "demo"]).ends_with(" http://127.0.0.1:9321/devices/")
    );
    assert!(
        curl(&["--bind", "0.0.0.0:9322", "demo"]).ends_with(" http://127.0.0.1:9322/devices/"),
        "a wildcard address is reached on loopback"
    );
    assert!(
        curl(&[
            "--public-url",
            "https://devmgr.example.com/",
            "--bind",
            "0.0.0.0:80",
            "demo"
        ])
        .ends_with(" https://devmgr.example.com/devices/")
    );
    let config = config_file(&db, "bind = \"127.0.0.1:9323\"\n");
    assert!(curl(&["--config", &config, "demo"]).ends_with(" http://127.0.0.1:9323/devices/"));
    let mut command = db.command(&["demo"]);
    command.env("DEVMGR_BIND", "127.0.0.1:9324");
    let demo = stdout_json(&run(&mut command), "demo");
    assert!(string(&demo, "curl").ends_with(" http://127.0.0.1:9324/devices/"));
    assert!(
        string(&demo, "agent").contains("--server http://127.0.0.1:9324 "),
        "{demo}"
    );

    let account = db.account_with("sam@example.com", &["--verified"]);
    let device = db.json(&[
        "--bind",
        "127.0.0.1:9325",
        "device",
        "add",
        "--owner",
        &account.email,
        "--name",
        "shed",
    ]);
    assert_eq!(
        device["url"],
        format!(
            "http://127.0.0.1:9325/devices/{}/",
            string(&device, "serial")
        )
    );
}
