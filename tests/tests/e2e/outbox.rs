//! Mail through a real SMTP server (Python's aiosmtpd on 127.0.0.1), and the
//! outbox: mail survives a dead mail server and a killed devmgr, and is
//! delivered once.

use crate::support::*;
use serde_json::json;
use smtp_sink::{ReceivedMessage, SmtpSink, free_port};
use std::net::TcpListener;
use std::time::{Duration, Instant};

const FROM: &str = "devmgr <noreply@devmgr.test>";
const ARRIVAL: Duration = Duration::from_secs(30);

fn smtp_server(url: &str) -> ServerBuilder {
    // A process: the tests read its log, and kill it.
    Server::builder()
        .smtp_url(url)
        .args(&["--mail-from", FROM])
        .process()
}

/// The first link in the mail's text part that starts with `prefix`.
#[track_caller]
fn link(message: &ReceivedMessage, prefix: &str) -> String {
    let text = message.text().expect("a text/plain part");
    let start = text
        .find(prefix)
        .unwrap_or_else(|| panic!("no {prefix} link in:\n{text}"));
    text[start..]
        .split_whitespace()
        .next()
        .expect("a link")
        .to_owned()
}

/// Waits until the server's log says a delivery attempt failed and was
/// rescheduled.
#[track_caller]
fn wait_for_failed_attempt(server: &Server) {
    let deadline = Instant::now() + ARRIVAL;
    while !server.stderr().contains("will retry") {
        assert!(
            Instant::now() < deadline,
            "no failed delivery attempt was logged:\n{}",
            server.stderr()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Waits for `count` messages, then a little longer to catch duplicates.
#[track_caller]
fn exactly(sink: &SmtpSink, count: usize) -> Vec<ReceivedMessage> {
    sink.wait_for_messages(count, ARRIVAL);
    std::thread::sleep(Duration::from_secs(2));
    let messages = sink.messages();
    assert_eq!(
        messages.len(),
        count,
        "{count} message(s) expected, got {}:\n{:#?}",
        messages.len(),
        messages.iter().map(|m| &m.raw).collect::<Vec<_>>()
    );
    messages
}

e2e!(the_verification_mail_arrives_over_smtp_complete_and_its_link_works);
fn the_verification_mail_arrives_over_smtp_complete_and_its_link_works() {
    let sink = SmtpSink::start();
    let server = smtp_server(&sink.url()).start();
    server.register("Ann@Example.COM");
    let messages = exactly(&sink, 1);
    let mail = &messages[0];

    assert_eq!(mail.mail_from, "noreply@devmgr.test");
    assert_eq!(mail.rcpt_to, ["Ann@example.com"]);
    assert!(
        mail.header("From")
            .unwrap()
            .contains("<noreply@devmgr.test>")
    );
    assert_eq!(mail.header("To").as_deref(), Some("Ann@example.com"));
    assert_eq!(
        mail.header("Subject").as_deref(),
        Some("Confirm your devmgr e-mail address")
    );
    assert!(mail.header("Date").is_some(), "{}", mail.raw);
    let message_id = mail.header("Message-ID").expect("a Message-ID");
    assert!(
        message_id.starts_with('<') && message_id.ends_with("@devmgr.test>"),
        "{message_id}"
    );
    assert!(
        mail.header("Content-Type")
            .unwrap()
            .starts_with("multipart/alternative")
    );

    let verify = link(mail, &format!("{}/verify-email/", server.base()));
    assert_eq!(
        verify.len(),
        server.base().len() + "/verify-email/".len() + 44
    );
    assert!(
        mail.html().expect("a text/html part").contains(&verify),
        "the HTML part lacks the link"
    );
    let path = &verify[server.base().len()..];
    server
        .get(path)
        .send()
        .expect(200, json!({"detail": "E-mail address verified."}));
}

e2e!(smtp_credentials_never_travel_in_clear);
/// With a user in the URL, STARTTLS is required: a server that offers no
/// TLS gets neither the password nor the mail (which stays queued).
fn smtp_credentials_never_travel_in_clear() {
    let sink = SmtpSink::start_with_auth("devmgr", "p@ss:word");
    let server = smtp_server(&sink.url()).start();
    server.account_with("bob@example.com", &["--verified"]);
    server
        .post("/reset-password/")
        .json(&json!({"email": "bob@example.com"}))
        .send()
        .expect_status(204);
    std::thread::sleep(Duration::from_secs(2));
    assert!(sink.messages().is_empty());
    let log = server.stderr();
    assert!(log.contains("STARTTLS"), "{log}");
}

e2e!(smtp_credentials_with_starttls_off_are_refused_at_start);
fn smtp_credentials_with_starttls_off_are_refused_at_start() {
    let db = Db::new();
    let url = format!("smtp://devmgr:secret-password@127.0.0.1:{}", free_port());
    let output = db.run(&[
        "serve",
        "--bind",
        "127.0.0.1:0",
        "--smtp-url",
        &url,
        "--smtp-starttls",
        "off",
    ]);
    assert_refused(&output, "serve --smtp-starttls off with credentials");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
    assert!(stderr.contains("--smtp-starttls"), "{stderr}");
    assert!(!stderr.contains("secret-password"), "{stderr}");
}

e2e!(smtp_without_a_public_url_warns_at_start);
/// Mail leaves the machine and no public URL is set: links point to the
/// listening address, which may not be reachable; `serve` says so once.
fn smtp_without_a_public_url_warns_at_start() {
    let sink = SmtpSink::start();
    let server = smtp_server(&sink.url()).start();
    let log = server.stderr();
    assert_eq!(log.matches("--public-url is not set").count(), 1, "{log}");
}

e2e!(a_mail_server_that_never_answers_does_not_hold_up_requests);
fn a_mail_server_that_never_answers_does_not_hold_up_requests() {
    // Accepts connections and never says a word.
    let silent = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = silent.local_addr().unwrap().port();
    std::thread::spawn(move || {
        let mut held = Vec::new();
        for stream in silent.incoming().flatten() {
            held.push(stream);
        }
    });
    let server = smtp_server(&format!("smtp://127.0.0.1:{port}")).start();
    // The harness's HTTP client gives up after 30 s, as long as one SMTP
    // timeout: requests that waited for the mail server would fail here.
    for i in 0..3 {
        server.register(&format!("user{i}@example.com"));
    }
    server
        .get("/profile/")
        .token(&server.register("last@example.com"))
        .send()
        .expect_status(200);
}

e2e!(mail_waits_out_a_dead_mail_server_and_arrives_when_it_is_back);
fn mail_waits_out_a_dead_mail_server_and_arrives_when_it_is_back() {
    let port = free_port();
    let server = smtp_server(&format!("smtp://127.0.0.1:{port}")).start();
    let token = server.register("carol@example.com");
    server
        .get("/profile/")
        .token(&token)
        .send()
        .expect_status(200);
    wait_for_failed_attempt(&server);

    let sink = SmtpSink::start_on(port);
    let messages = exactly(&sink, 1);
    assert_eq!(messages[0].rcpt_to, ["carol@example.com"]);
}

e2e!(a_mail_pending_at_a_crash_is_delivered_once_after_restart);
fn a_mail_pending_at_a_crash_is_delivered_once_after_restart() {
    let port = free_port();
    let smtp_url = format!("smtp://127.0.0.1:{port}");
    let first = smtp_server(&smtp_url).start();
    first.register("dave@example.com");
    // Committed, tried, not delivered: now the process dies without a word.
    wait_for_failed_attempt(&first);
    let db = first.kill();

    let sink = SmtpSink::start_on(port);
    let second = smtp_server(&smtp_url).db(db).start();
    // On a busy machine the kill can land in the middle of the next attempt,
    // while the mail is leased to the dead process: then it goes out once the
    // 2-minute lease has passed. Usually it arrives at once.
    sink.wait_for_messages(1, Duration::from_secs(150));
    let messages = exactly(&sink, 1);
    assert_eq!(messages[0].rcpt_to, ["dave@example.com"]);
    let verify = link(&messages[0], "http://");
    let path = &verify[verify.find("/verify-email/").unwrap()..];
    second
        .get(path)
        .send()
        .expect(200, json!({"detail": "E-mail address verified."}));
}
