//! `SmtpMailer` against a real SMTP server (aiosmtpd, through smtp-sink).

use adapters_mail::{SmtpMailer, StartTls};
use application::mail::Email;
use application::ports::{MailError, Mailer};
use smtp_sink::{ReceivedMessage, SmtpSink, free_port};
use std::time::Duration;

/// Longer than the 76 characters after which a careless encoder wraps.
fn link() -> String {
    format!("http://devmgr.test:8000/verify-email/{}/", "k".repeat(43))
}

fn email(id: &str, to: &str) -> Email {
    Email {
        id: id.into(),
        to: to.into(),
        subject: "Confirm your devmgr e-mail address".into(),
        text: format!("Open this link:\n\n{}\n", link()),
        html: format!("<p><a href=\"{}\">Confirm</a></p>\n", link()),
    }
}

fn mailer(url: &str, starttls: StartTls) -> SmtpMailer {
    SmtpMailer::new(
        url,
        starttls,
        "devmgr <noreply@devmgr.test>".parse().unwrap(),
    )
    .unwrap()
}

/// The only message the sink holds.
fn only(sink: &SmtpSink) -> ReceivedMessage {
    let mut messages = sink.wait_for_messages(1, Duration::from_secs(5));
    assert_eq!(messages.len(), 1, "{messages:#?}");
    messages.remove(0)
}

#[tokio::test]
async fn a_mail_arrives_with_envelope_headers_and_both_parts() {
    let sink = SmtpSink::start();
    mailer(&sink.url(), StartTls::Off)
        .send(&email("0a1b2c3d", "Owner@Example.com"))
        .await
        .unwrap();

    let mail = only(&sink);
    assert_eq!(mail.mail_from, "noreply@devmgr.test");
    assert_eq!(mail.rcpt_to, ["Owner@Example.com"]);
    let header = |name: &str| {
        mail.header(name)
            .unwrap_or_else(|| panic!("no {name} in:\n{}", mail.raw))
    };
    assert_eq!(header("From"), "devmgr <noreply@devmgr.test>");
    assert_eq!(header("To"), "Owner@Example.com");
    assert_eq!(header("Subject"), "Confirm your devmgr e-mail address");
    assert_eq!(header("Message-ID"), "<0a1b2c3d@devmgr.test>");
    assert!(header("Date").ends_with(" +0000"), "{}", header("Date"));
    assert!(
        header("Content-Type").starts_with("multipart/alternative;"),
        "{}",
        mail.raw
    );
    assert_eq!(
        mail.text(),
        Some(format!("Open this link:\n\n{}\n", link()).as_str())
    );
    assert!(
        mail.html().is_some_and(|html| html.contains(&link())),
        "{:?}",
        mail.html()
    );
    // Unbroken on the wire too, in both parts.
    assert_eq!(mail.raw.matches(&link()).count(), 2, "{}", mail.raw);
    assert!(
        mail.raw.contains("Content-Type: text/plain"),
        "{}",
        mail.raw
    );
    assert!(mail.raw.contains("Content-Type: text/html"), "{}", mail.raw);
}

#[tokio::test]
async fn a_retried_mail_keeps_its_message_id() {
    let sink = SmtpSink::start();
    let mailer = mailer(&sink.url(), StartTls::Off);
    let mail = email("feed", "owner@example.com");
    mailer.send(&mail).await.unwrap();
    mailer.send(&mail).await.unwrap();
    let ids: Vec<_> = sink
        .wait_for_messages(2, Duration::from_secs(5))
        .iter()
        .map(|m| m.header("Message-ID"))
        .collect();
    assert_eq!(
        ids,
        [
            Some("<feed@devmgr.test>".into()),
            Some("<feed@devmgr.test>".into())
        ]
    );
}

#[tokio::test]
async fn the_right_credentials_deliver() {
    let sink = SmtpSink::start_with_auth("mailer", "pa:ss/w@rd");
    mailer(&sink.url(), StartTls::Off)
        .send(&email("1", "owner@example.com"))
        .await
        .unwrap();
    assert_eq!(only(&sink).rcpt_to, ["owner@example.com"]);
}

#[tokio::test]
async fn a_wrong_password_is_a_permanent_error_that_does_not_show_it() {
    let sink = SmtpSink::start_with_auth("mailer", "right-password");
    let url = format!("smtp://mailer:wrong-password@127.0.0.1:{}", sink.port());
    let result = mailer(&url, StartTls::Off)
        .send(&email("1", "owner@example.com"))
        .await;
    match result {
        Err(MailError::Permanent(message)) => {
            assert!(message.contains("535"), "{message}");
            assert!(!message.contains("wrong-password"), "{message}");
        }
        other => panic!("expected a permanent error, got {other:?}"),
    }
    assert!(sink.messages().is_empty());
}

#[tokio::test]
async fn no_credentials_where_auth_is_required_is_a_permanent_error() {
    let sink = SmtpSink::start_with_auth("mailer", "secret");
    let url = format!("smtp://127.0.0.1:{}", sink.port());
    let result = mailer(&url, StartTls::Off)
        .send(&email("1", "owner@example.com"))
        .await;
    assert!(
        matches!(&result, Err(MailError::Permanent(message)) if message.contains("530")),
        "{result:?}"
    );
}

#[tokio::test]
async fn nothing_listening_is_a_transient_error() {
    let url = format!("smtp://127.0.0.1:{}", free_port());
    let result = mailer(&url, StartTls::Opportunistic)
        .send(&email("1", "owner@example.com"))
        .await;
    assert!(
        matches!(&result, Err(MailError::Transient(message)) if message.contains(&url)),
        "{result:?}"
    );
}

#[tokio::test]
async fn opportunistic_starttls_delivers_in_clear_when_the_server_offers_no_tls() {
    let sink = SmtpSink::start();
    mailer(&sink.url(), StartTls::Opportunistic)
        .send(&email("1", "owner@example.com"))
        .await
        .unwrap();
    assert_eq!(only(&sink).header("Message-ID").unwrap(), "<1@devmgr.test>");
}

#[tokio::test]
async fn required_starttls_sends_nothing_to_a_server_without_tls() {
    let sink = SmtpSink::start_with_auth("mailer", "secret");
    let result = mailer(&sink.url(), StartTls::Required)
        .send(&email("1", "owner@example.com"))
        .await;
    // lettre gives up before AUTH with a client-side error: not a 5xx reply.
    assert!(
        matches!(&result, Err(MailError::Transient(message)) if message.contains("STARTTLS")),
        "{result:?}"
    );
    assert!(sink.messages().is_empty());
}

#[tokio::test]
async fn a_recipient_refused_with_550_is_a_permanent_error() {
    let sink = SmtpSink::start();
    let result = mailer(&sink.url(), StartTls::Off)
        .send(&email("1", "reject@example.com"))
        .await;
    assert!(
        matches!(&result, Err(MailError::Permanent(message)) if message.contains("550")),
        "{result:?}"
    );
    assert!(sink.messages().is_empty());
}

#[tokio::test]
async fn a_recipient_deferred_with_451_is_a_transient_error() {
    let sink = SmtpSink::start();
    let result = mailer(&sink.url(), StartTls::Off)
        .send(&email("1", "defer@example.com"))
        .await;
    assert!(
        matches!(&result, Err(MailError::Transient(message)) if message.contains("451")),
        "{result:?}"
    );
    assert!(sink.messages().is_empty());
}

#[tokio::test]
async fn a_malformed_recipient_is_a_permanent_error_before_connecting() {
    // No server at all: the address is refused while the message is built.
    let url = format!("smtp://127.0.0.1:{}", free_port());
    let result = mailer(&url, StartTls::Off)
        .send(&email("1", "not an address"))
        .await;
    assert!(
        matches!(&result, Err(MailError::Permanent(message)) if message.contains("recipient")),
        "{result:?}"
    );
}

#[tokio::test]
async fn a_failed_tls_handshake_is_a_transient_error() {
    // smtps:// to a server that speaks plain SMTP: the handshake fails.
    let sink = SmtpSink::start();
    let url = format!("smtps://127.0.0.1:{}", sink.port());
    let result = mailer(&url, StartTls::Off)
        .send(&email("1", "owner@example.com"))
        .await;
    assert!(
        matches!(&result, Err(MailError::Transient(message)) if message.starts_with("delivery to smtps://127.0.0.1:")),
        "{result:?}"
    );
    assert!(sink.messages().is_empty());
}
