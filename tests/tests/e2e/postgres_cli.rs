//! The command line on PostgreSQL (docs/operations.md): `postgres://` URLs, clear refusals that never
//! show the password, and instances that start (and migrate) together.

use crate::support::*;
use std::process::Stdio;

#[track_caller]
fn refused_with(url: &str, explanation: &str) {
    let output = run(devmgr(Db::new().dir()).args(["--database-url", url, "migrate"]));
    assert_refused(&output, &format!("--database-url {url} migrate"));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains(explanation),
        "stderr should say {explanation:?}:\n{stderr}"
    );
    assert!(
        !stderr.contains("s3cret-pw"),
        "stderr shows the password:\n{stderr}"
    );
}

e2e!(a_server_that_cannot_be_reached_is_refused_clearly: postgres);
fn a_server_that_cannot_be_reached_is_refused_clearly() {
    refused_with(
        "postgres://devmgr:s3cret-pw@127.0.0.1:1/devmgr?connect_timeout=5",
        "cannot connect to PostgreSQL",
    );
}

e2e!(a_malformed_url_is_refused: postgres);
fn a_malformed_url_is_refused() {
    refused_with(
        "postgres://devmgr:s3cret-pw@127.0.0.1:5432/devmgr?no_such_option=1",
        "the PostgreSQL URL is not valid",
    );
}

e2e!(instances_starting_together_migrate_once: postgres);
fn instances_starting_together_migrate_once() {
    let db = Db::new();
    let migrations: Vec<_> = (0..4)
        .map(|_| {
            db.command(&["migrate"])
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .expect("devmgr migrate can be started")
        })
        .collect();
    let versions: Vec<serde_json::Value> = migrations
        .into_iter()
        .map(|child| {
            let output = child.wait_with_output().expect("the output of migrate");
            stdout_json(&output, "migrate")["schema_version"].clone()
        })
        .collect();
    assert!(
        versions
            .iter()
            .all(|v| *v == versions[0] && v.as_i64() >= Some(1)),
        "{versions:?}"
    );
    // The schema works: the server starts on it and an account can be made.
    let server = Server::builder().db(db).start();
    server.register("joy@example.com");
}
