//! PostgreSQL over TLS (docs/operations.md, "PostgreSQL"): libpq's
//! `sslmode` and `sslrootcert` in the URL, with the real `devmgr` binary
//! against a server of the test's own that shows a certificate for
//! `localhost`, signed by an authority the test made ([`cluster`]).

mod cluster;

use crate::support::*;
use cluster::{Cluster, PASSWORD};
use serde_json::Value;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::{Child, Output, Stdio};

/// `devmgr --database-url URL migrate`.
fn migrate(dir: &Path, url: &str) -> Output {
    run(devmgr(dir).args(["--database-url", url, "migrate"]))
}

#[track_caller]
fn migrates(dir: &Path, url: &str) {
    let migrated = stdout_json(&migrate(dir, url), &format!("migrate on {url}"));
    assert!(migrated["schema_version"].as_i64() >= Some(1), "{migrated}");
}

/// `devmgr migrate` exits 1 and its stderr says `explanation`, never the password.
#[track_caller]
fn refused_with(dir: &Path, url: &str, explanation: &str) {
    let output = migrate(dir, url);
    assert_refused(&output, &format!("--database-url {url} migrate"));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains(explanation),
        "stderr should say {explanation:?}:\n{stderr}"
    );
    assert!(
        !stderr.contains(PASSWORD),
        "stderr shows the password:\n{stderr}"
    );
}

e2e!(connections_speak_tls_as_sslmode_says: postgres);
fn connections_speak_tls_as_sslmode_says() {
    let server = Cluster::start();
    let dir = server.dir.path();
    let ca = server.certificates.ca.display().to_string();
    // The role `tls` gets in over TLS only, `plain` without it only.
    migrates(dir, &server.url("tls", "127.0.0.1", "sslmode=require"));
    refused_with(
        dir,
        &server.url("plain", "127.0.0.1", "sslmode=require"),
        "SSL encryption",
    );
    migrates(dir, &server.url("plain", "127.0.0.1", "sslmode=disable"));
    refused_with(
        dir,
        &server.url("tls", "127.0.0.1", "sslmode=disable"),
        "no encryption",
    );
    // prefer, the default, takes TLS when the server offers it.
    migrates(
        dir,
        &server.url("tls", "127.0.0.1", "application_name=devmgr"),
    );
    // verify-ca checks the authority, not the name (the certificate is for localhost).
    let verify_ca = format!("sslmode=verify-ca&sslrootcert={ca}");
    migrates(dir, &server.url("tls", "127.0.0.1", &verify_ca));
    // verify-full: the authority and the name; a served instance works on it.
    let url = server.url(
        "tls",
        "localhost",
        &format!("sslmode=verify-full&sslrootcert={ca}"),
    );
    migrates(dir, &url);
    let (mut serving, base) = serve(dir, &url);
    let ready = reqwest::blocking::get(format!("{base}/health/ready/")).expect("an answer");
    let status = ready.status();
    let body: Value = ready.json().expect("a JSON body");
    let _ = serving.kill();
    let _ = serving.wait();
    assert_eq!(status, 200, "{body}");
    assert_eq!(body, serde_json::json!({"status": "ok", "database": "ok"}));
}

e2e!(certificates_that_fail_the_check_refuse_to_start: postgres);
fn certificates_that_fail_the_check_refuse_to_start() {
    let server = Cluster::start();
    let dir = server.dir.path();
    let port = server.port;
    let ca = server.certificates.ca.display().to_string();
    let other = server.certificates.other_ca.display().to_string();
    refused_with(
        dir,
        &server.url(
            "tls",
            "localhost",
            &format!("sslmode=verify-full&sslrootcert={other}"),
        ),
        &format!(
            "cannot connect to PostgreSQL at localhost:{port}: the server's certificate is not \
             signed by a trusted certificate authority (sslmode=verify-full, sslrootcert={other})"
        ),
    );
    refused_with(
        dir,
        &server.url(
            "tls",
            "127.0.0.1",
            &format!("sslmode=verify-full&sslrootcert={ca}"),
        ),
        &format!(
            "cannot connect to PostgreSQL at 127.0.0.1:{port}: the server's certificate is for \
             localhost, not 127.0.0.1 (sslmode=verify-full)"
        ),
    );
    refused_with(
        dir,
        &server.url(
            "tls",
            "127.0.0.1",
            &format!("sslmode=verify-ca&sslrootcert={other}"),
        ),
        "the server's certificate is not signed by a trusted certificate authority \
         (sslmode=verify-ca",
    );
    // As in libpq, require with a root certificate checks the chain.
    refused_with(
        dir,
        &server.url(
            "tls",
            "127.0.0.1",
            &format!("sslmode=require&sslrootcert={other}"),
        ),
        &format!(
            "the server's certificate is not signed by a trusted certificate authority \
             (sslmode=require, sslrootcert={other})"
        ),
    );
}

e2e!(tls_settings_that_cannot_work_are_refused_at_start: postgres);
fn tls_settings_that_cannot_work_are_refused_at_start() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let dir = dir.path();
    let url = |query: &str| format!("postgres://devmgr:{PASSWORD}@127.0.0.1:5432/devmgr?{query}");
    refused_with(
        dir,
        &url("sslmode=bogus"),
        "the PostgreSQL URL is not valid: sslmode \"bogus\" is not one of disable, prefer, \
         require, verify-ca, verify-full",
    );
    refused_with(
        dir,
        &url("sslmode=verify-full&sslrootcert=/nonexistent/ca.pem"),
        "cannot read sslrootcert=/nonexistent/ca.pem",
    );
    refused_with(
        dir,
        &url("sslmode=require&sslrootcert=system"),
        "weak sslmode \"require\" may not be used with sslrootcert=system",
    );
    let plain = server_without_tls();
    let port = plain.port();
    refused_with(
        dir,
        &format!("postgres://devmgr:{PASSWORD}@127.0.0.1:{port}/devmgr?sslmode=require"),
        &format!(
            "cannot connect to PostgreSQL at 127.0.0.1:{port}: the server does not accept TLS \
             (sslmode=require)"
        ),
    );
}

/// A listener that answers every request for TLS as a server built
/// without it does (`N`), then hangs up.
fn server_without_tls() -> std::net::SocketAddr {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("a free port");
    let address = listener.local_addr().expect("its address");
    std::thread::spawn(move || {
        for mut stream in listener.incoming().flatten() {
            let mut request = [0; 8];
            if stream.read_exact(&mut request).is_ok() {
                let _ = stream.write_all(b"N");
            }
        }
    });
    address
}

/// `devmgr --database-url URL serve --bind 127.0.0.1:0`, once it listens:
/// the process and its base URL.
fn serve(dir: &Path, url: &str) -> (Child, String) {
    let mut child = devmgr(dir)
        .args(["--database-url", url, "serve", "--bind", "127.0.0.1:0"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("devmgr serve can be started");
    let stdout = BufReader::new(child.stdout.take().expect("stdout is piped"));
    let (sender, receiver) = std::sync::mpsc::channel();
    // Reads every line, so that the server never blocks on a full pipe.
    std::thread::spawn(move || {
        for line in stdout.lines().map_while(Result::ok) {
            let said: Value = serde_json::from_str(&line).unwrap_or(Value::Null);
            if let Some(base) = said["listening"].as_str() {
                let _ = sender.send(base.trim_end_matches('/').to_owned());
            }
        }
    });
    match receiver.recv_timeout(std::time::Duration::from_secs(60)) {
        Ok(base) => (child, base),
        Err(_) => {
            let _ = child.kill();
            let status = child.wait();
            panic!("devmgr serve on {url} did not say where it listens: {status:?}");
        }
    }
}
