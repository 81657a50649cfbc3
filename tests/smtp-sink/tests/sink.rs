//! The sink against a hand-written SMTP client, so what it records is
//! checked independently of lettre.

use smtp_sink::{SmtpSink, free_port};
use std::io::{BufRead, BufReader, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

/// One SMTP session, command by command.
struct Client {
    reader: BufReader<TcpStream>,
    writer: TcpStream,
}

impl Client {
    fn connect(port: u16) -> Client {
        let stream = TcpStream::connect(("127.0.0.1", port)).expect("the sink accepts connections");
        stream
            .set_read_timeout(Some(Duration::from_secs(10)))
            .unwrap();
        let mut client = Client {
            reader: BufReader::new(stream.try_clone().unwrap()),
            writer: stream,
        };
        assert_eq!(client.reply(), 220);
        assert_eq!(client.command("EHLO client.test"), 250);
        client
    }

    /// The reply code, after reading every line of the reply.
    fn reply(&mut self) -> u16 {
        loop {
            let mut line = String::new();
            self.reader.read_line(&mut line).unwrap();
            assert!(line.len() >= 4, "short reply {line:?}");
            if line.as_bytes()[3] != b'-' {
                return line[..3].parse().unwrap();
            }
        }
    }

    fn command(&mut self, line: &str) -> u16 {
        write!(self.writer, "{line}\r\n").unwrap();
        self.reply()
    }

    /// MAIL, RCPT for each recipient, DATA; the reply to the final dot
    /// (or to the first refused step).
    fn send(&mut self, from: &str, to: &[&str], message: &str) -> u16 {
        let code = self.command(&format!("MAIL FROM:<{from}>"));
        if code != 250 {
            return code;
        }
        for rcpt in to {
            let code = self.command(&format!("RCPT TO:<{rcpt}>"));
            if code != 250 {
                return code;
            }
        }
        assert_eq!(self.command("DATA"), 354);
        self.command(&format!("{message}\r\n."))
    }
}

const MESSAGE: &str = "From: a@example.com\r\n\
To: b@example.com\r\n\
Subject: =?utf-8?q?Gr=C3=BC=C3=9Fe?=\r\n\
Message-ID: <1@example.com>\r\n\
MIME-Version: 1.0\r\n\
Content-Type: multipart/alternative; boundary=\"b\"\r\n\
\r\n\
--b\r\n\
Content-Type: text/plain; charset=utf-8\r\n\
Content-Transfer-Encoding: quoted-printable\r\n\
\r\n\
caf=C3=A9\r\n\
..dot\r\n\
--b\r\n\
Content-Type: text/html; charset=utf-8\r\n\
\r\n\
<p>hi</p>\r\n\
--b--";

#[test]
fn a_message_is_kept_with_its_envelope_raw_bytes_and_decoded_parts() {
    let sink = SmtpSink::start();
    assert_eq!(sink.url(), format!("smtp://127.0.0.1:{}", sink.port()));
    let mut client = Client::connect(sink.port());
    assert_eq!(
        client.send(
            "a@example.com",
            &["b@example.com", "c@example.com"],
            MESSAGE
        ),
        250
    );

    // Stored before the 250, so no waiting is needed.
    let messages = sink.messages();
    assert_eq!(messages.len(), 1);
    let message = &messages[0];
    assert_eq!(message.mail_from, "a@example.com");
    assert_eq!(message.rcpt_to, ["b@example.com", "c@example.com"]);
    // Dot-unstuffed, CRLF kept.
    assert_eq!(
        message.raw,
        format!("{}\r\n", MESSAGE.replace("\n..dot", "\n.dot"))
    );
    assert_eq!(message.header("subject").as_deref(), Some("Grüße"));
    assert_eq!(
        message.header("MESSAGE-ID").as_deref(),
        Some("<1@example.com>")
    );
    assert_eq!(message.header("Cc"), None);
    assert_eq!(message.headers().len(), 6);
    // The line end before a boundary belongs to the boundary.
    assert_eq!(message.text(), Some("café\n.dot"));
    assert_eq!(message.html(), Some("<p>hi</p>"));
}

#[test]
fn messages_come_back_in_arrival_order() {
    let sink = SmtpSink::start();
    let mut client = Client::connect(sink.port());
    for n in 1..=3 {
        let message = format!("Subject: {n}\r\n\r\nbody {n}");
        assert_eq!(
            client.send("a@example.com", &["b@example.com"], &message),
            250
        );
    }
    let subjects: Vec<_> = sink
        .wait_for_messages(3, Duration::from_secs(5))
        .iter()
        .map(|m| m.header("Subject").unwrap())
        .collect();
    assert_eq!(subjects, ["1", "2", "3"]);
}

#[test]
fn reject_and_defer_recipients_are_refused() {
    let sink = SmtpSink::start();
    let mut client = Client::connect(sink.port());
    assert_eq!(
        client.send("a@example.com", &["reject@example.com"], "x"),
        550
    );
    assert_eq!(client.command("RSET"), 250);
    assert_eq!(
        client.send("a@example.com", &["Defer.me@example.com"], "x"),
        451
    );
    assert!(sink.messages().is_empty());
}

#[test]
fn with_auth_mail_needs_the_right_credentials() {
    let sink = SmtpSink::start_with_auth("mailer", "p@ss w:rd");
    assert_eq!(
        sink.url(),
        format!("smtp://mailer:p%40ss%20w%3Ard@127.0.0.1:{}", sink.port())
    );
    let mut client = Client::connect(sink.port());
    assert_eq!(client.send("a@example.com", &["b@example.com"], "x"), 530);
    // AUTH PLAIN: base64("\0mailer\0wrong") and base64("\0mailer\0p@ss w:rd").
    assert_eq!(client.command("AUTH PLAIN AG1haWxlcgB3cm9uZw=="), 535);
    assert_eq!(client.command("AUTH PLAIN AG1haWxlcgBwQHNzIHc6cmQ="), 235);
    assert_eq!(client.send("a@example.com", &["b@example.com"], "x"), 250);
    assert_eq!(sink.messages().len(), 1);
}

#[test]
fn a_sink_can_start_later_on_a_chosen_port_and_stops_when_dropped() {
    let port = free_port();
    assert!(TcpStream::connect(("127.0.0.1", port)).is_err());
    let sink = SmtpSink::start_on(port);
    assert_eq!(sink.port(), port);
    Client::connect(port);
    sink.stop();
    let deadline = Instant::now() + Duration::from_secs(5);
    while TcpStream::connect(("127.0.0.1", port)).is_ok() {
        assert!(Instant::now() < deadline, "port {port} still answers");
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn a_taken_port_is_a_clear_panic() {
    let sink = SmtpSink::start();
    let port = sink.port();
    let panic = std::panic::catch_unwind(|| SmtpSink::start_on(port)).unwrap_err();
    let message = panic.downcast_ref::<String>().unwrap();
    assert!(
        message.contains(&format!("did not start on port {port}")),
        "{message}"
    );
    assert!(message.contains("address already in use"), "{message}");
}

#[test]
#[should_panic(expected = "expected 1 message(s) within 200ms, got 0")]
fn waiting_for_mail_that_never_comes_panics() {
    SmtpSink::start().wait_for_messages(1, Duration::from_millis(200));
}
