//! The receivers of docs/webhooks.md work as written: its Python receiver,
//! taken from the page, verifies a real delivery (204, `succeeded`) and
//! refuses one signed with another secret (401, tried again later); its
//! openssl check says "Signature verified." of a signed body and not of a
//! changed one.

use crate::support::*;
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Lines};
use std::net::TcpListener;
use std::path::Path;
use std::process::{Child, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

/// How long a delivery may take to be attempted (the worker claims due
/// deliveries at once; the rest is a loaded machine).
const ATTEMPT_WAIT: Duration = Duration::from_secs(30);

/// A secret with a letter beyond ASCII: the key is its UTF-8 bytes.
const SECRET: &str = "Grüße-aus-devmgr-0123456789";

fn webhooks_page() -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/webhooks.md");
    std::fs::read_to_string(path).expect("docs/webhooks.md is there")
}

/// The page's one fenced block of `language` that holds `marker`.
fn block(page: &str, language: &str, marker: &str) -> String {
    let found: Vec<String> = page
        .split(&format!("```{language}\n"))
        .skip(1)
        .map(|rest| rest.split("```").next().unwrap_or_default().to_owned())
        .filter(|block| block.contains(marker))
        .collect();
    assert_eq!(
        found.len(),
        1,
        "docs/webhooks.md should have one ```{language} block with {marker:?}"
    );
    found.into_iter().next().unwrap_or_default()
}

/// The Python receiver of the page, running on a free port of 127.0.0.1
/// with `secret`; stopped when dropped.
struct PythonReceiver {
    child: Child,
    lines: Lines<BufReader<ChildStdout>>,
    port: u16,
    _dir: tempfile::TempDir,
}

impl PythonReceiver {
    fn start(secret: &str) -> Self {
        let dir = tempfile::tempdir().expect("a temporary folder");
        let script = dir.path().join("receiver.py");
        std::fs::write(&script, block(&webhooks_page(), "python", "http.server"))
            .expect("the receiver is written");
        let port = TcpListener::bind("127.0.0.1:0")
            .and_then(|listener| listener.local_addr())
            .expect("a free port")
            .port();
        let mut child = Command::new("python3")
            .arg("-I")
            .arg(&script)
            .env("WEBHOOK_SECRET", secret)
            .env("PORT", port.to_string())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("python3 runs");
        let stdout = child.stdout.take().expect("its output");
        let mut receiver = Self {
            child,
            lines: BufReader::new(stdout).lines(),
            port,
            _dir: dir,
        };
        assert_eq!(receiver.line(), format!("Listening on port {port}"));
        receiver
    }

    /// The next line it printed.
    fn line(&mut self) -> String {
        self.lines
            .next()
            .expect("the receiver printed a line")
            .expect("its output is text")
    }
}

impl Drop for PythonReceiver {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A webhook of `token` to `port` with [`SECRET`], pinged: its id and the
/// ping's delivery id.
fn pinged_webhook(server: &Server, token: &str, port: u16) -> (String, String) {
    let reply = server
        .post("/webhooks/")
        .token(token)
        .json(&json!({"target_url": format!("http://127.0.0.1:{port}/devmgr"), "secret": SECRET}))
        .send();
    reply.expect_status(201);
    let id = string(&reply.json(), "id");
    let ping = server
        .post(&format!("/webhooks/{id}/ping/"))
        .token(token)
        .send();
    ping.expect_status(202);
    (id, string(&ping.json(), "delivery"))
}

/// The delivery once it has been attempted.
fn attempted(server: &Server, token: &str, webhook: &str, delivery: &str) -> Value {
    let deadline = Instant::now() + ATTEMPT_WAIT;
    loop {
        let reply = server
            .get(&format!("/webhooks/{webhook}/deliveries/"))
            .token(token)
            .send();
        reply.expect_status(200);
        let page = reply.json();
        let found = page["results"]
            .as_array()
            .and_then(|all| all.iter().find(|d| d["id"] == delivery).cloned());
        if let Some(found) = found.filter(|d| d["attempts"].as_u64() >= Some(1)) {
            return found;
        }
        assert!(
            Instant::now() < deadline,
            "delivery {delivery} not attempted: {page:#}"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

e2e!(the_python_receiver_verifies_a_ping: sqlite);
fn the_python_receiver_verifies_a_ping() {
    let server = Server::builder()
        .args(&["--allow-private-webhooks"])
        .start();
    let alice = server.account("alice@example.com");
    let mut receiver = PythonReceiver::start(SECRET);
    let (webhook, delivery) = pinged_webhook(&server, &alice.token, receiver.port);
    let attempt = attempted(&server, &alice.token, &webhook, &delivery);
    assert_eq!(attempt["status"], "succeeded", "{attempt:#}");
    assert_eq!(attempt["response_code"], 204, "{attempt:#}");
    assert_eq!(attempt["error"], "", "{attempt:#}");
    assert_eq!(receiver.line(), format!("ping {delivery}"));
}

e2e!(the_python_receiver_refuses_another_secret: sqlite);
fn the_python_receiver_refuses_another_secret() {
    let server = Server::builder()
        .args(&["--allow-private-webhooks"])
        .start();
    let alice = server.account("alice@example.com");
    let receiver = PythonReceiver::start("a-secret-devmgr-does-not-know");
    let (webhook, delivery) = pinged_webhook(&server, &alice.token, receiver.port);
    let attempt = attempted(&server, &alice.token, &webhook, &delivery);
    assert_eq!(attempt["status"], "pending", "{attempt:#}");
    assert_eq!(attempt["attempts"], 1, "{attempt:#}");
    assert_eq!(attempt["response_code"], 401, "{attempt:#}");
    assert_eq!(
        attempt["error"], "The target answered with HTTP status 401.",
        "{attempt:#}"
    );
    assert!(attempt["next_attempt_time"].is_string(), "{attempt:#}");
}

/// What the page's openssl check prints for `body` and `signature`.
fn openssl_check(body: &[u8], signature: &str) -> String {
    let dir = tempfile::tempdir().expect("a temporary folder");
    std::fs::write(dir.path().join("body.json"), body).expect("the body is saved");
    let output = Command::new("bash")
        .arg("-c")
        .arg(block(&webhooks_page(), "sh", "openssl dgst"))
        .current_dir(dir.path())
        .env("SECRET", SECRET)
        .env("SIGNATURE", signature)
        .output()
        .expect("bash runs");
    assert!(output.status.success(), "{output:?}");
    String::from_utf8(output.stdout).expect("text")
}

#[test]
fn the_openssl_check_verifies_a_signed_body_and_no_other() {
    let body = r#"{"event":"ping","delivery":"5c7e9a1c-3e5a-4c7e-9a1c-3e5a7c9e1a3c","time":"2026-11-24T09:31:00","data":{"name":"Küche"}}"#;
    let signature = domain::webhook::signature_header(SECRET, body.as_bytes());
    assert_eq!(
        openssl_check(body.as_bytes(), &signature),
        "Signature verified.\n"
    );
    let changed = body.replace("Küche", "Kuche");
    assert_eq!(
        openssl_check(changed.as_bytes(), &signature),
        "Signature does not match.\n"
    );
}
