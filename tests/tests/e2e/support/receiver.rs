//! A webhook receiver for tests: an HTTP/1.1 server on 127.0.0.1 that
//! records every request it is sent, whole, and answers as the test says
//! (a status, a redirect, or nothing at all until it is dropped), and the
//! signature check a receiver makes (docs/webhooks.md).

use hmac::{Hmac, Mac};
use serde_json::Value;
use sha2::Sha256;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

/// One request the receiver was sent.
#[derive(Debug, Clone)]
pub struct Received {
    /// The request's method.
    pub method: String,
    /// Its path (and query).
    pub path: String,
    /// Its headers, names lowercased, in the order sent.
    pub headers: Vec<(String, String)>,
    /// Its body's bytes.
    pub body: Vec<u8>,
}

impl Received {
    /// The value of the first header named `name` (any case).
    pub fn header(&self, name: &str) -> Option<&str> {
        let name = name.to_ascii_lowercase();
        self.headers
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| v.as_str())
    }

    /// The body as JSON.
    #[track_caller]
    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap_or_else(|e| {
            panic!(
                "a JSON body ({e}): {:?}",
                String::from_utf8_lossy(&self.body)
            )
        })
    }
}

/// How the receiver answers one request.
#[derive(Debug, Clone)]
pub enum Answer {
    /// This status, an empty body.
    Status(u16),
    /// `302 Found` to this location.
    Redirect(String),
    /// No answer: the connection is held open until the receiver is dropped.
    Hang,
}

type Responder = dyn Fn(&Received, usize) -> Answer + Send + Sync;

struct Shared {
    received: Mutex<Vec<Received>>,
    arrived: Condvar,
    stop: AtomicBool,
    stopped: (Mutex<bool>, Condvar),
    responder: Box<Responder>,
}

/// A receiver listening on a free port of 127.0.0.1; stopped when dropped.
pub struct Receiver {
    address: SocketAddr,
    shared: Arc<Shared>,
    thread: Option<JoinHandle<()>>,
}

impl Receiver {
    /// A receiver answering each request with what `responder` says, given
    /// the request and how many requests to the same path came before it.
    /// The request is recorded before `responder` is asked, which may block.
    pub fn start(responder: impl Fn(&Received, usize) -> Answer + Send + Sync + 'static) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").expect("the receiver can bind");
        let address = listener.local_addr().expect("the receiver's address");
        let shared = Arc::new(Shared {
            received: Mutex::default(),
            arrived: Condvar::new(),
            stop: AtomicBool::new(false),
            stopped: (Mutex::new(false), Condvar::new()),
            responder: Box::new(responder),
        });
        let accepting = shared.clone();
        let thread = thread::spawn(move || {
            for stream in listener.incoming() {
                if accepting.stop.load(Ordering::SeqCst) {
                    break;
                }
                if let Ok(stream) = stream {
                    let shared = accepting.clone();
                    thread::spawn(move || serve(&shared, stream));
                }
            }
        });
        Self {
            address,
            shared,
            thread: Some(thread),
        }
    }

    /// A receiver that answers every request `204 No Content`.
    pub fn accepting() -> Self {
        Self::start(|_, _| Answer::Status(204))
    }

    /// `http://127.0.0.1:<port><path>`.
    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.address)
    }

    /// Every request received so far, in order of arrival.
    pub fn received(&self) -> Vec<Received> {
        lock(&self.shared.received).clone()
    }

    /// The requests received so far on `path`.
    pub fn on(&self, path: &str) -> Vec<Received> {
        self.received()
            .into_iter()
            .filter(|r| r.path == path)
            .collect()
    }

    /// Waits (up to `within`) until `ready` holds for the requests received;
    /// returns them; panics with `what` otherwise.
    #[track_caller]
    pub fn wait_for(
        &self,
        what: &str,
        within: Duration,
        ready: impl Fn(&[Received]) -> bool,
    ) -> Vec<Received> {
        let deadline = Instant::now() + within;
        let mut received = lock(&self.shared.received);
        loop {
            if ready(&received) {
                return received.clone();
            }
            let left = deadline.saturating_duration_since(Instant::now());
            assert!(
                !left.is_zero(),
                "{what}: not within {within:?}; received: {:#?}",
                summary(&received)
            );
            received = self
                .shared
                .arrived
                .wait_timeout(received, left)
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
    }
}

impl Drop for Receiver {
    fn drop(&mut self) {
        self.shared.stop.store(true, Ordering::SeqCst);
        let (stopped, wake) = &self.shared.stopped;
        *lock(stopped) = true;
        wake.notify_all();
        // Wakes the accepting thread.
        let _ = TcpStream::connect(self.address);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// `sha256=<lowercase hex HMAC-SHA256 of body keyed with secret>`: the
/// `X-Devmgr-Signature` a receiver expects.
pub fn signature_of(secret: &str, body: &[u8]) -> String {
    let mut mac = Hmac::<Sha256>::new_from_slice(secret.as_bytes()).expect("any key length");
    mac.update(body);
    let digest = mac.finalize().into_bytes();
    let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
    format!("sha256={hex}")
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Each request as `METHOD path (event, delivery)`, for failure messages.
fn summary(received: &[Received]) -> Vec<String> {
    received
        .iter()
        .map(|r| {
            format!(
                "{} {} ({}, {})",
                r.method,
                r.path,
                r.header("x-devmgr-event").unwrap_or("-"),
                r.header("x-devmgr-delivery").unwrap_or("-")
            )
        })
        .collect()
}

/// Reads one request from `stream`, records it and answers it.
fn serve(shared: &Shared, stream: TcpStream) {
    let _ = stream.set_read_timeout(Some(Duration::from_secs(30)));
    let Ok(reading) = stream.try_clone() else {
        return;
    };
    let Some(request) = read_request(&mut BufReader::new(reading)) else {
        return;
    };
    let prior = {
        let mut received = lock(&shared.received);
        let prior = received.iter().filter(|r| r.path == request.path).count();
        received.push(request.clone());
        shared.arrived.notify_all();
        prior
    };
    let head = match (shared.responder)(&request, prior) {
        Answer::Status(code) => format!("HTTP/1.1 {code} Answer\r\n"),
        Answer::Redirect(location) => format!("HTTP/1.1 302 Found\r\nLocation: {location}\r\n"),
        Answer::Hang => {
            let (stopped, wake) = &shared.stopped;
            let mut stopped = lock(stopped);
            while !*stopped {
                stopped = wake.wait(stopped).unwrap_or_else(PoisonError::into_inner);
            }
            return;
        }
    };
    let mut stream = stream;
    let _ = stream
        .write_all(format!("{head}Content-Length: 0\r\nConnection: close\r\n\r\n").as_bytes());
    let _ = stream.flush();
}

/// An HTTP/1.1 request with a `Content-Length` body (or none).
fn read_request(reader: &mut BufReader<TcpStream>) -> Option<Received> {
    let mut line = String::new();
    reader.read_line(&mut line).ok()?;
    let mut parts = line.split_whitespace();
    let method = parts.next()?.to_owned();
    let path = parts.next()?.to_owned();
    let mut headers = Vec::new();
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).ok()? == 0 {
            return None;
        }
        let line = line.trim_end_matches(['\r', '\n']);
        if line.is_empty() {
            break;
        }
        let (name, value) = line.split_once(':')?;
        headers.push((name.trim().to_ascii_lowercase(), value.trim().to_owned()));
    }
    let length = headers
        .iter()
        .find(|(n, _)| n == "content-length")
        .and_then(|(_, v)| v.parse::<usize>().ok())
        .unwrap_or(0);
    let mut body = vec![0; length];
    reader.read_exact(&mut body).ok()?;
    Some(Received {
        method,
        path,
        headers,
        body,
    })
}
