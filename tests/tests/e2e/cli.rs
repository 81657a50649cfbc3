//! The command line (README, docs/operations.md) — database URL handling, `migrate`,
//! `user create`, `device add`, `demo`, and working beside a running server.

use crate::support::*;
use serde_json::{Value, json};
use std::time::Duration;

const GOOD_SERIAL: &str = "6b1f0c2e-9d4a-4e57-8a3b-2c1d0e9f8a7b";

/// `user create --email <email> --password PASSWORD`, refused.
#[track_caller]
fn refuse_user(db: &Db, email: &str, password: &str) {
    let output = db.run(&["user", "create", "--email", email, "--password", password]);
    assert_refused(
        &output,
        &format!("user create --email {email} --password {password}"),
    );
}

e2e!(migrate_prints_json_and_can_run_again);
fn migrate_prints_json_and_can_run_again() {
    let db = Db::new();
    let first = db.json(&["migrate"]);
    assert_eq!(first["migrated"], true, "{first}");
    assert!(
        first["schema_version"].as_i64().unwrap_or(0) >= 1,
        "{first}"
    );
    assert_eq!(db.json(&["migrate"]), first);
}

e2e!(the_database_url_may_come_before_or_after_the_subcommand);
fn the_database_url_may_come_before_or_after_the_subcommand() {
    let db = Db::new();
    let url = db.url();
    db.account_with("alice@example.com", &[]);
    let create_after = |email: &str| {
        let mut command = devmgr(db.dir());
        command.args(["user", "create", "--email", email, "--password", PASSWORD]);
        command.args(["--database-url", &url]);
        run(&mut command)
    };
    stdout_json(
        &create_after("bob@example.com"),
        "user create … --database-url URL",
    );

    // Both wrote to the same file: each address is now taken, seen from either position.
    assert_refused(
        &create_after("alice@example.com"),
        "duplicate alice, URL after",
    );
    refuse_user(&db, "bob@example.com", PASSWORD);
}

e2e!(the_database_url_may_come_from_the_environment);
fn the_database_url_may_come_from_the_environment() {
    let server = Server::start();
    let mut command = devmgr(server.db.dir());
    command.env("DEVMGR_DATABASE_URL", server.db.url()).args([
        "user",
        "create",
        "--email",
        "carol@example.com",
        "--password",
        PASSWORD,
        "--verified",
    ]);
    stdout_json(&run(&mut command), "DEVMGR_DATABASE_URL=… user create");
    server.login_token("carol@example.com", PASSWORD);
}

e2e!(serve_takes_the_database_url_anywhere);
fn serve_takes_the_database_url_anywhere() {
    for at in [DatabaseUrlAt::AfterSubcommand, DatabaseUrlAt::Environment] {
        let server = Server::builder().database_url_at(at).start();
        let uma = server.account("uma@example.com");
        server.login_token(&uma.email, PASSWORD);
        server
            .get("/profile/")
            .token(&uma.token)
            .send()
            .expect_status(200);
    }
}

e2e!(serve_takes_the_public_url_from_the_environment);
fn serve_takes_the_public_url_from_the_environment() {
    let server = Server::builder()
        .env("DEVMGR_PUBLIC_URL", "https://env.example.net")
        .start();
    let vera = server.account("vera@example.com");
    let profile = server.get("/profile/").token(&vera.token).send().json();
    assert_eq!(
        profile["install_command"],
        format!(
            "devmgr-agent install --server https://env.example.net --token {}",
            vera.install_token
        )
    );
}

e2e!(usage_errors_exit_with_1);
fn usage_errors_exit_with_1() {
    let db = Db::new();
    for args in [
        &["user", "create"][..],
        &["user", "create", "--email"],
        &["device", "add", "--name", "No owner"],
        &["frobnicate"],
    ] {
        assert_refused(&db.run(args), &args.join(" "));
    }
}

e2e!(user_create_prints_the_email_a_token_and_the_install_token);
fn user_create_prints_the_email_a_token_and_the_install_token() {
    let server = Server::start();
    let created = server.cli(&[
        "user",
        "create",
        "--email",
        "Nina.Ortiz@EXAMPLE.com",
        "--password",
        PASSWORD,
        "--name",
        "Nina Ortiz",
    ]);
    assert_eq!(
        keys(&created),
        ["email", "install_token", "token"],
        "{created:#}"
    );
    assert_eq!(created["email"], "Nina.Ortiz@example.com");
    let token = string(&created, "token");
    let install_token = string(&created, "install_token");
    assert!(is_auth_token(&token), "{created:#}");
    assert!(is_install_token(&install_token), "{created:#}");

    let reply = server.get("/profile/").token(&token).send();
    reply.expect_status(200);
    let profile = reply.json();
    assert_eq!(profile["email"], "Nina.Ortiz@example.com");
    assert_eq!(profile["name"], "Nina Ortiz");
    assert_eq!(profile["email_verified"], false);
    assert_eq!(profile["has_usable_password"], true);
    assert_eq!(profile["install_token"], install_token.as_str());
}

e2e!(user_create_without_a_password_or_with_verified);
fn user_create_without_a_password_or_with_verified() {
    let server = Server::start();
    let bare = server.cli(&["user", "create", "--email", "otto@example.com"]);
    let profile = server
        .get("/profile/")
        .token(&string(&bare, "token"))
        .send()
        .json();
    assert_eq!(profile["has_usable_password"], false);
    assert_eq!(profile["email_verified"], false);
    assert_eq!(profile["name"], "");

    let verified = server.cli(&["user", "create", "--email", "pia@example.com", "--verified"]);
    let profile = server
        .get("/profile/")
        .token(&string(&verified, "token"))
        .send()
        .json();
    assert_eq!(profile["has_usable_password"], false);
    assert_eq!(profile["email_verified"], true);
}

e2e!(user_create_applies_the_password_policy);
fn user_create_applies_the_password_policy() {
    let db = Db::new();
    for password in [
        "123",
        "password1",
        "short",
        "84736291057",
        "quentin.example",
    ] {
        refuse_user(&db, "quentin@example.com", password);
    }
    // None of the refusals made the account.
    db.account_with("quentin@example.com", &[]);
}

e2e!(user_create_refuses_a_taken_or_malformed_address);
fn user_create_refuses_a_taken_or_malformed_address() {
    let db = Db::new();
    db.account_with("rita@example.com", &[]);
    for email in [
        "rita@example.com",
        "RITA@Example.COM",
        "not-an-email",
        "rita@",
        "rita@example",
    ] {
        refuse_user(&db, email, PASSWORD);
    }
}

e2e!(device_add_prints_the_device);
fn device_add_prints_the_device() {
    let db = Db::new();
    db.account_with("sam@example.com", &[]);
    let device = db.device(
        "sam@example.com",
        "Shed",
        &[
            "--serial",
            GOOD_SERIAL,
            "--machine-type",
            "rpi_4b",
            "--ram-capacity",
            "2048",
        ],
    );
    assert_eq!(keys(&device).len(), 20, "{device:#}");
    assert_eq!(device["serial"], GOOD_SERIAL);
    assert_eq!(device["name"], "Shed");
    assert_eq!(device["machine_type"], "rpi_4b");
    assert_eq!(device["machine_type_display"], "Raspberry Pi 4 Model B");
    assert_eq!(device["ram_capacity"], 2048);
    assert_eq!(device["online"], false);
    assert!(is_timestamp(&string(&device, "created_time")), "{device:#}");
    assert!(is_slug(&string(&device, "wormhole_slug")), "{device:#}");
    let url = string(&device, "url");
    assert!(
        url.ends_with(&format!("/devices/{GOOD_SERIAL}/")),
        "{device:#}"
    );
    assert_eq!(device["reboot_url"], format!("{url}reboot/"));
    assert_eq!(device["ports_url"], format!("{url}ports/"));

    // Without --serial the serial is a fresh lowercase UUID.
    let serial = string(&db.device("sam@example.com", "Attic", &[]), "serial");
    assert!(is_lowercase_uuid(&serial), "{serial:?}");
    assert_ne!(serial, GOOD_SERIAL);
}

e2e!(device_add_bounds_count_characters);
fn device_add_bounds_count_characters() {
    let db = Db::new();
    db.account_with("sam@example.com", &[]);
    let name = "é".repeat(100);
    let description = "ü".repeat(1000);
    let device = db.device("sam@example.com", &name, &["--description", &description]);
    assert_eq!(device["name"], name.as_str());
    assert_eq!(device["description"], description.as_str());
}

e2e!(device_add_uses_the_public_url_for_its_urls);
fn device_add_uses_the_public_url_for_its_urls() {
    let db = Db::new();
    db.account_with("sam@example.com", &[]);
    let device = db.device(
        "sam@example.com",
        "Shed",
        &[
            "--serial",
            GOOD_SERIAL,
            "--public-url",
            "https://devmgr.example.net",
        ],
    );
    let url = format!("https://devmgr.example.net/devices/{GOOD_SERIAL}/");
    assert_eq!(device["url"], url.as_str());
    assert_eq!(device["reboot_url"], format!("{url}reboot/"));
    assert_eq!(device["ports_url"], format!("{url}ports/"));
}

e2e!(device_add_refuses_bad_input);
fn device_add_refuses_bad_input() {
    let db = Db::new();
    db.account_with("sam@example.com", &[]);
    db.device("sam@example.com", "Shed", &["--serial", GOOD_SERIAL]);
    let sam = "sam@example.com";
    db.refuse_device("nobody@example.com", "Ghost", &[]);
    db.refuse_device(sam, "Bad serial", &["--serial", "not-a-uuid"]);
    db.refuse_device(sam, "Toaster", &["--machine-type", "toaster"]);
    db.refuse_device(sam, "Twin", &["--serial", GOOD_SERIAL]);
    db.refuse_device(sam, "", &[]);
    db.refuse_device(sam, "   ", &[]);
    db.refuse_device(sam, &"n".repeat(101), &[]);
    db.refuse_device(sam, "Chatty", &["--description", &"d".repeat(1001)]);
    // What the agent API refuses, the command line refuses too.
    db.refuse_device(sam, "Versioned", &["--agent-version", &"v".repeat(101)]);
    db.refuse_device(sam, "Systemed", &["--operating-system", &"o".repeat(201)]);
    db.refuse_device(sam, "Unamed", &["--uname", &"u".repeat(1001)]);
    db.refuse_device(sam, "Tricky", &["--uname", "Linux \u{202E}pi"]);
    // At the limits, it is accepted.
    db.device(
        sam,
        "Limits",
        &[
            "--agent-version",
            &"v".repeat(100),
            "--operating-system",
            &"o".repeat(200),
            "--uname",
            &"u".repeat(1000),
        ],
    );
}

e2e!(the_demo_account_works_against_a_running_server);
fn the_demo_account_works_against_a_running_server() {
    let server = Server::start();
    let demo = server.cli(&["demo"]);
    for key in [
        "email",
        "password",
        "token",
        "install_token",
        "curl",
        "agent",
    ] {
        assert!(demo[key].is_string(), "demo prints {key}: {demo:#}");
    }
    let token = string(&demo, "token");
    assert!(
        string(&demo, "curl").contains(&token),
        "the curl line carries the token: {demo:#}"
    );

    let reply = server.get("/profile/").token(&token).send();
    reply.expect_status(200);
    let profile = reply.json();
    assert_eq!(profile["email"], demo["email"], "{reply}");
    assert_eq!(profile["email_verified"], true, "{reply}");

    server.login_token(&string(&demo, "email"), &string(&demo, "password"));
    let devices = server.get("/devices/").token(&token).send().json();
    let devices = devices.as_array().expect("an array");
    assert!(!devices.is_empty(), "the demo account has devices");
    assert!(
        devices.iter().all(|device| device["online"] == false),
        "no agent runs behind the demo devices: none shows online\n{devices:#?}"
    );

    // The printed agent line enrols a device with the account's install token.
    let agent = string(&demo, "agent");
    let install_token = string(&demo, "install_token");
    assert!(
        agent.starts_with("devmgr-agent install --server ") && agent.contains(&install_token),
        "{agent}"
    );
    server
        .post("/install/")
        .json(&serde_json::json!({"install_token": install_token, "name": "laptop"}))
        .send()
        .expect_status(201);
}

e2e!(the_command_line_writes_while_the_server_runs);
fn the_command_line_writes_while_the_server_runs() {
    let server = Server::start();
    // Make the server open the database first.
    server
        .post("/auth/")
        .json(&json!({"email": "tom@example.com", "password": PASSWORD}))
        .send()
        .expect_status(400);

    let mut command = devmgr(server.db.dir());
    command.args([
        "user",
        "create",
        "--email",
        "tom@example.com",
        "--password",
        PASSWORD,
        "--verified",
    ]);
    command.args(["--database-url", &server.db.url()]);
    stdout_json(&run(&mut command), "user create while serving");
    let token = server.login_token("tom@example.com", PASSWORD);
    let duplicate = server.cli_output(&["user", "create", "--email", "tom@example.com"]);
    assert_refused(&duplicate, "duplicate user create while serving");

    let added = server.db.device("tom@example.com", "Live", &[]);
    let reply = server.get("/devices/").token(&token).send();
    reply.expect_status(200);
    let listed: Vec<Value> = reply.json().as_array().expect("an array").clone();
    assert_eq!(listed.len(), 1, "{reply}");
    assert_eq!(listed[0]["serial"], added["serial"], "{reply}");
    server.cli(&["migrate"]);
    server
        .get("/profile/")
        .token(&token)
        .send()
        .expect_status(200);
}

e2e!(serve_stops_on_sigterm);
fn serve_stops_on_sigterm() {
    let mut server = Server::builder().process().start();
    // A client that keeps no idle connection, so that none delays the shutdown.
    let client = reqwest::blocking::Client::builder()
        .pool_max_idle_per_host(0)
        .build()
        .expect("an HTTP client");
    let response = client
        .get(server.url("/devices/"))
        .send()
        .expect("the server answers");
    assert_eq!(response.status().as_u16(), 401);
    drop(response);
    drop(client);
    let status = server.terminate(Duration::from_secs(20));
    let status =
        status.unwrap_or_else(|| panic!("still running 20 s after SIGTERM\n{}", server.stderr()));
    assert!(
        status.success(),
        "exit status after SIGTERM: {status}\n{}",
        server.stderr()
    );
}
