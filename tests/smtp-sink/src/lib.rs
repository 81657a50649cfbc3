//! A real SMTP server for tests: Python's [aiosmtpd] listening on 127.0.0.1,
//! keeping every message it receives so a test can read it back.
//!
//! ```no_run
//! let sink = smtp_sink::SmtpSink::start();
//! // … point the code under test at sink.url() and make it send a mail …
//! let mails = sink.wait_for_messages(1, std::time::Duration::from_secs(10));
//! assert_eq!(mails[0].rcpt_to, ["owner@example.com"]);
//! ```
//!
//! The server stores a message before it answers `250` to `DATA`, so once a
//! client has been told "sent", [`SmtpSink::messages`] has it. Recipients whose
//! local part starts with `reject` are refused with `550 5.1.1`, those starting
//! with `defer` with `451 4.3.0`.
//!
//! Needs `python3` with pip. The first sink of a test process installs
//! aiosmtpd, at the versions pinned in `tests/smtp-sink/requirements.txt`, under
//! `target/<profile>/python/` (once per set of pins).
//!
//! [aiosmtpd]: https://aiosmtpd.aio-libs.org/

mod python;
mod received;

pub use received::ReceivedMessage;

use std::fs::File;
use std::io::{BufRead, BufReader};
use std::net::TcpListener;
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// The server's script, written to the sink's temporary folder at start.
const SCRIPT: &str = include_str!("../sink.py");

/// How long Python may take to start listening.
const READY_TIMEOUT: Duration = Duration::from_secs(30);

/// A running SMTP server on 127.0.0.1. Dropping it stops the server.
pub struct SmtpSink {
    child: Child,
    /// Held open: the server exits when it closes, should this process die
    /// without running `Drop`.
    _stdin: Option<ChildStdin>,
    port: u16,
    credentials: Option<(String, String)>,
    /// Holds the script, the log and `messages/`.
    dir: tempfile::TempDir,
}

impl SmtpSink {
    /// Starts a server on a free port, accepting mail without AUTH.
    /// Returns once it listens.
    #[track_caller]
    pub fn start() -> SmtpSink {
        Self::spawn(0, None)
    }

    /// Starts a server on `port` (from [`free_port`], say), for a test that
    /// told the code under test about the port before any server listened.
    /// Panics if the port is taken.
    #[track_caller]
    pub fn start_on(port: u16) -> SmtpSink {
        Self::spawn(port, None)
    }

    /// Starts a server on a free port that takes mail only after AUTH PLAIN
    /// or LOGIN (offered over plain TCP) with this user and password; other
    /// credentials get `535 5.7.8`, and mail without AUTH `530 5.7.0`.
    #[track_caller]
    pub fn start_with_auth(user: &str, password: &str) -> SmtpSink {
        Self::spawn(0, Some((user.to_owned(), password.to_owned())))
    }

    /// The port the server listens on.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// `smtp://127.0.0.1:PORT`, with `user:password@` (percent-encoded) when
    /// the sink requires AUTH.
    pub fn url(&self) -> String {
        match &self.credentials {
            Some((user, password)) => format!(
                "smtp://{}:{}@127.0.0.1:{}",
                percent_encode(user),
                percent_encode(password),
                self.port
            ),
            None => format!("smtp://127.0.0.1:{}", self.port),
        }
    }

    /// Every message received so far, in arrival order.
    pub fn messages(&self) -> Vec<ReceivedMessage> {
        received::read_all(&self.messages_dir())
    }

    /// Waits until at least `n` messages arrived and returns all of them.
    /// Panics when they do not arrive within `timeout`.
    #[track_caller]
    pub fn wait_for_messages(&self, n: usize, timeout: Duration) -> Vec<ReceivedMessage> {
        let deadline = Instant::now() + timeout;
        loop {
            let messages = self.messages();
            if messages.len() >= n {
                return messages;
            }
            if Instant::now() >= deadline {
                panic!(
                    "smtp-sink on port {}: expected {n} message(s) within {timeout:?}, \
                     got {}{}",
                    self.port,
                    messages.len(),
                    self.log_excerpt()
                );
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Stops the server (as dropping the sink does) and removes its files.
    pub fn stop(self) {}

    #[track_caller]
    fn spawn(port: u16, credentials: Option<(String, String)>) -> SmtpSink {
        let python = python::python();
        let dir = tempfile::Builder::new()
            .prefix("smtp-sink-")
            .tempdir()
            .expect("smtp-sink: cannot create a temporary folder");
        let script = dir.path().join("sink.py");
        std::fs::write(&script, SCRIPT).expect("smtp-sink: cannot write sink.py");
        std::fs::create_dir(dir.path().join("messages"))
            .expect("smtp-sink: cannot create the messages folder");
        let log =
            File::create(dir.path().join("sink.log")).expect("smtp-sink: cannot create sink.log");

        let mut command = python.command();
        command
            .arg("-u")
            .arg(&script)
            .arg(port.to_string())
            .arg(dir.path().join("messages"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(log)
            .env_remove("SINK_USER")
            .env_remove("SINK_PASSWORD");
        if let Some((user, password)) = &credentials {
            command
                .env("SINK_USER", user)
                .env("SINK_PASSWORD", password);
        }
        let mut child = command
            .spawn()
            .unwrap_or_else(|e| panic!("smtp-sink: cannot start python3: {e}"));

        let mut sink = SmtpSink {
            _stdin: child.stdin.take(),
            port,
            credentials,
            dir,
            child,
        };
        match sink.ready_line() {
            Some(bound) => sink.port = bound,
            None => panic!(
                "smtp-sink: the server did not start on {}{}",
                if port == 0 {
                    "a free port".to_owned()
                } else {
                    format!("port {port}")
                },
                sink.log_excerpt()
            ),
        }
        sink
    }

    /// The port from the script's `READY <port>` line, or `None` if it exited
    /// or stayed silent.
    fn ready_line(&mut self) -> Option<u16> {
        let stdout = self.child.stdout.take()?;
        let (sender, receiver) = mpsc::channel();
        std::thread::spawn(move || {
            let mut line = String::new();
            let _ = BufReader::new(stdout).read_line(&mut line);
            let _ = sender.send(line);
        });
        let line = receiver.recv_timeout(READY_TIMEOUT).ok()?;
        line.trim().strip_prefix("READY ")?.parse().ok()
    }

    fn messages_dir(&self) -> PathBuf {
        self.dir.path().join("messages")
    }

    /// What the server wrote to stderr, for panic messages.
    fn log_excerpt(&self) -> String {
        let log = std::fs::read_to_string(self.dir.path().join("sink.log")).unwrap_or_default();
        let log = log.trim();
        if log.is_empty() {
            String::new()
        } else {
            format!("\nsmtp-sink log:\n{log}")
        }
    }
}

impl Drop for SmtpSink {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl std::fmt::Debug for SmtpSink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SmtpSink")
            .field("port", &self.port)
            .field("auth", &self.credentials.is_some())
            .field("dir", &self.dir.path())
            .finish_non_exhaustive()
    }
}

/// Ports [`free_port`] picks from: below Linux's ephemeral range
/// (32768–60999), so the kernel never hands one of them to a socket bound to
/// port 0 or to an outgoing connection in the meantime.
const CHOSEN_PORTS: std::ops::Range<u16> = 20_000..32_000;

/// A TCP port on 127.0.0.1 that was free a moment ago (bound, then released),
/// for a test that starts a server on it later.
pub fn free_port() -> u16 {
    use std::sync::atomic::{AtomicU32, Ordering};
    // Each process starts at its own place, so parallel test binaries rarely
    // try the same ports; within a process, each call moves on.
    static NEXT: AtomicU32 = AtomicU32::new(0);
    let span = u32::from(CHOSEN_PORTS.end - CHOSEN_PORTS.start);
    let start = std::process::id().wrapping_mul(7919) % span;
    for _ in 0..span {
        let offset = (start + NEXT.fetch_add(1, Ordering::Relaxed)) % span;
        let port = CHOSEN_PORTS.start + u16::try_from(offset).unwrap_or(0);
        // Free to bind here, and nothing answers on it either (a service of
        // the machine may listen on another address with the same port).
        if TcpListener::bind(("127.0.0.1", port)).is_ok()
            && std::net::TcpStream::connect(("127.0.0.1", port)).is_err()
        {
            return port;
        }
    }
    panic!("smtp-sink: no free port in {CHOSEN_PORTS:?} on 127.0.0.1");
}

/// Percent-encodes all but RFC 3986's unreserved characters.
fn percent_encode(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                char::from(b).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percent_encoding_keeps_only_unreserved_characters() {
        assert_eq!(percent_encode("a-Z_0.~"), "a-Z_0.~");
        assert_eq!(percent_encode("p@ss:w/rd ü"), "p%40ss%3Aw%2Frd%20%C3%BC");
    }

    #[test]
    fn free_ports_can_be_bound() {
        let port = free_port();
        assert_ne!(port, 0);
        TcpListener::bind(("127.0.0.1", port)).unwrap();
    }
}
