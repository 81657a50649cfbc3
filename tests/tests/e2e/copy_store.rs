//! `devmgr copy-store` (docs/operations.md, "Moving between stores"): every
//! row from SQLite to PostgreSQL and back, after which every password and
//! token works against the new store; refused on a target with rows, on a
//! database a server uses, and from a database to itself.

use crate::device_support::*;
use crate::support::*;
use serde_json::{Value, json};
use std::path::Path;

/// `devmgr copy-store --from <from> --to <to>`, run in `dir`.
fn copy_store(dir: &Path, from: &str, to: &str) -> std::process::Output {
    run(devmgr(dir).args(["copy-store", "--from", from, "--to", to]))
}

/// The rows of each copied table in an SQLite file, as copy-store names them.
fn sqlite_counts(file: &Path) -> Value {
    let conn = rusqlite::Connection::open(file).unwrap();
    let tables = [
        ("accounts", "accounts"),
        ("api_tokens", "api_tokens"),
        ("console_sessions", "console_sessions"),
        ("keys", "email_keys"),
        ("login_failures", "login_failures"),
        ("devices", "devices"),
        ("device_tags", "device_tags"),
        ("device_ports", "device_ports"),
        ("commands", "device_commands"),
        ("jobs", "jobs"),
        ("job targets", "job_targets"),
        ("monitors", "monitors"),
        ("alerts", "alerts"),
        ("alert mail windows", "alert_mail_windows"),
        ("alert digest lines", "alert_digest_lines"),
        ("webhooks", "webhooks"),
        ("webhook deliveries", "webhook_deliveries"),
        ("outbox", "outbox"),
        ("audit entries", "audit_log"),
        ("audit chain", "audit_chain"),
    ];
    let mut counts = serde_json::Map::new();
    for (label, table) in tables {
        let n: i64 = conn
            .query_row(&format!("SELECT COUNT(*) FROM {table}"), [], |row| {
                row.get(0)
            })
            .unwrap();
        counts.insert(label.to_owned(), n.into());
    }
    Value::Object(counts)
}

/// `GET /devices/{serial}/commands/` by the owner.
fn history(server: &Server, token: &str, serial: &str) -> Value {
    let reply = server
        .get(&format!("/devices/{serial}/commands/"))
        .token(token)
        .send();
    reply.expect_status(200);
    reply.json()
}

/// What a store shows of alice's fleet: her devices and their command
/// histories, her jobs and their targets.
fn fleet(server: &Server, alice: &Account, agents: &[&Agent]) -> Value {
    let histories: Vec<Value> = agents
        .iter()
        .map(|agent| history(server, &alice.token, &agent.serial))
        .collect();
    let read = |path: &str| {
        let reply = server.get(path).token(&alice.token).send();
        reply.expect_status(200);
        reply.json()
    };
    let mut jobs = read("/jobs/");
    let results = jobs["results"].as_array_mut().expect("a page of jobs");
    let targets: Vec<Value> = results
        .iter()
        .map(|job| read(&format!("/jobs/{}/targets/", string(job, "id"))))
        .collect();
    // The URLs name the server's own address.
    for job in results {
        job.as_object_mut().expect("a job").remove("url");
    }
    json!({
        "devices": listed_serials(server, &alice.token),
        "histories": histories,
        "jobs": jobs,
        "targets": targets,
    })
}

/// Checks on `server` that alice's password and token, bob's token and each
/// device token work, and that alice's fleet is `expected`.
fn everything_works(
    server: &Server,
    alice: &Account,
    bob_token: &str,
    agents: &[&Agent],
    expected: &Value,
) {
    assert_eq!(fleet(server, alice, agents), *expected, "alice's fleet");
    server.login_token(&alice.email, &alice.password);
    assert_eq!(profile(server, bob_token)["email"], "bob@example.com");
    assert_eq!(profile(server, &alice.token)["email"], "alice@example.com");
    for agent in agents {
        heartbeat(server, &agent.token, &json!({}));
    }
}

/// Alice (password, token, a console session, a failed login), bob
/// (registered: a verification key and its mail, undelivered), and two
/// devices enrolled with POST /install/, with commands done, failed and
/// pending, a running job whose one target joined the pending one, and a
/// job scheduled for tomorrow.
fn busy_source() -> (Server, Account, String, Agent, Agent) {
    // Mail cannot be delivered: it stays in the outbox.
    let server = Server::builder()
        .db(Db::on(Backend::Sqlite))
        .smtp_url("smtp://127.0.0.1:1")
        .start();
    let alice = server.account("alice@example.com");
    let bob_token = server.register("bob@example.com");
    Console::new(&server).sign_in(&alice.email, &alice.password);
    // After the sign-in, which forgets earlier failures.
    server
        .login(&alice.email, "not her password")
        .expect_status(400);
    let kitchen = install(&server, &alice, "Kitchen");
    let shed = install(&server, &alice, "Shed");
    heartbeat(&server, &kitchen.token, &json!({}));
    for (agent, outcome) in [
        (&kitchen, json!({"status": "done"})),
        (
            &shed,
            json!({"status": "failed", "detail": "reboot: permission denied"}),
        ),
    ] {
        reboot(&server, &alice.token, &agent.serial);
        let handed = poll(&server, &agent.token, 0);
        let id = string(&handed[0], "id");
        ack_call(&server, &agent.token, &id, &outcome).expect_empty(204);
    }
    reboot(&server, &alice.token, &kitchen.serial);
    let joined = server
        .post("/jobs/")
        .token(&alice.token)
        .json(&json!({"action": "reboot", "selector": {"serials": [kitchen.serial]}}))
        .send();
    joined.expect_status(201);
    assert_eq!(joined.json()["counts"]["pending"], 1, "{}", joined.json());
    let tomorrow = (chrono::Utc::now() + chrono::Duration::days(1)).format("%Y-%m-%dT%H:%M:%S");
    let scheduled = server
        .post("/jobs/")
        .token(&alice.token)
        .json(&json!({"action": "reboot", "selector": {"all": true}, "start_time": tomorrow.to_string()}))
        .send();
    scheduled.expect_status(201);
    assert_eq!(scheduled.json()["status"], "scheduled");
    (server, alice, bob_token, kitchen, shed)
}

e2e!(a_store_copied_to_postgresql_and_back_keeps_every_password_and_token: postgres);
fn a_store_copied_to_postgresql_and_back_keeps_every_password_and_token() {
    let (source, alice, bob_token, kitchen, shed) = busy_source();
    let agents = [&kitchen, &shed];
    let before = fleet(&source, &alice, &agents);
    let sqlite = source.kill();
    let counts = sqlite_counts(sqlite.path());
    for table in ["outbox", "keys", "console_sessions", "login_failures"] {
        assert!(
            counts[table].as_u64() >= Some(1),
            "the source has {table}: {counts}"
        );
    }
    assert_eq!(
        (counts["accounts"].clone(), counts["commands"].clone()),
        (json!(2), json!(3))
    );

    let postgres = Db::on(Backend::Postgres);
    let copied = stdout_json(
        &copy_store(sqlite.dir(), &sqlite.url(), &postgres.url()),
        "copy-store SQLite to PostgreSQL",
    );
    assert_eq!(copied, json!({"copied": counts}));

    let target = Server::builder().db(postgres.clone()).start();
    everything_works(&target, &alice, &bob_token, &agents, &before);
    // New rows get ids of their own: an account, a device, commands.
    target.register("carol@example.com");
    let garage = install(&target, &alice, "Garage");
    let newest = reboot(&target, &alice.token, &garage.serial);
    assert_eq!(
        history(&target, &alice.token, &garage.serial)[0]["id"],
        newest["id"]
    );
    let again = reboot(&target, &alice.token, &shed.serial);
    let shed_history = history(&target, &alice.token, &shed.serial);
    assert_eq!(
        shed_history[0]["id"], again["id"],
        "the newest command comes first"
    );
    let agents = [&kitchen, &shed, &garage];
    let after = fleet(&target, &alice, &agents);
    drop(target);

    let back = Db::on(Backend::Sqlite);
    let copied = stdout_json(
        &copy_store(back.dir(), &postgres.url(), &back.url()),
        "copy-store PostgreSQL to SQLite",
    );
    assert_eq!(copied, json!({"copied": sqlite_counts(back.path())}));
    assert_eq!(copied["copied"]["accounts"], 3);
    let home = Server::builder().db(back).start();
    everything_works(&home, &alice, &bob_token, &agents, &after);
    home.register("dave@example.com");
    install(&home, &alice, "Attic");
}

e2e!(copy_store_refuses_a_target_with_rows_a_served_database_and_itself: postgres);
fn copy_store_refuses_a_target_with_rows_a_served_database_and_itself() {
    let sqlite = Db::on(Backend::Sqlite);
    let alice = sqlite.account_with("alice@example.com", &["--verified"]);
    let postgres = Db::on(Backend::Postgres);
    let refused = |from: &Db, to: &Db, expected: &str| {
        let output = copy_store(sqlite.dir(), &from.url(), &to.url());
        assert_refused(&output, "copy-store");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(stderr.trim(), expected);
    };
    refused(
        &sqlite,
        &sqlite,
        "error: --from and --to name the same database",
    );
    // A target with rows.
    let ann = postgres.account_with("ann@example.com", &["--verified"]);
    refused(
        &sqlite,
        &postgres,
        &format!(
            "error: --to {}: the target database is not empty (1 accounts, 1 api_tokens, 1 audit \
             entries, 1 audit chain): \
             copy-store only fills an empty database",
            postgres.url()
        ),
    );
    // A database a server uses, as source or target.
    let served = Server::builder().db(sqlite.clone()).start();
    let empty = Db::on(Backend::Postgres);
    refused(
        &sqlite,
        &empty,
        &format!(
            "error: a devmgr server is using {}; stop it first (copy-store copies a database no \
             server is writing to)",
            sqlite.url()
        ),
    );
    drop(served);
    let served = Server::builder().db(empty.clone()).start();
    refused(
        &sqlite,
        &empty,
        &format!(
            "error: a devmgr server is using {}; stop it first (copy-store fills an empty database)",
            empty.url()
        ),
    );
    drop(served);
    let served = Server::builder().db(postgres.clone()).start();
    let fresh = Db::on(Backend::Sqlite);
    refused(
        &postgres,
        &fresh,
        &format!(
            "error: a devmgr server is using {}; stop it first (copy-store copies a database no \
             server is writing to)",
            postgres.url()
        ),
    );
    // The target with rows kept them, and got none of the source's.
    served.login_token(&ann.email, &ann.password);
    served
        .login(&alice.email, &alice.password)
        .expect_status(400);
    drop(served);
    // With the servers gone, the empty target takes the copy.
    stdout_json(
        &copy_store(sqlite.dir(), &sqlite.url(), &empty.url()),
        "copy-store",
    );
}
