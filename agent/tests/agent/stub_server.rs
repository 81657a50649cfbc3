//! A scripted HTTP/1.1 server on 127.0.0.1 standing in for devmgr, or for a hostile server.

use std::io::{self, BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// A request the stub received.
#[derive(Debug, Clone)]
pub struct Request {
    /// `GET`, `POST`, …
    pub method: String,
    /// Path and query.
    pub target: String,
    /// Header names lowercased.
    pub headers: Vec<(String, String)>,
    /// The raw body.
    pub body: Vec<u8>,
    /// When it arrived.
    pub received: Instant,
}

impl Request {
    /// The path without the query.
    pub fn path(&self) -> &str {
        self.target.split('?').next().unwrap_or_default()
    }

    /// A query parameter.
    pub fn query(&self, name: &str) -> Option<&str> {
        let (_, query) = self.target.split_once('?')?;
        query
            .split('&')
            .filter_map(|pair| pair.split_once('='))
            .find(|(key, _)| *key == name)
            .map(|(_, value)| value)
    }

    /// A header's value.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(key, _)| key.eq_ignore_ascii_case(name))
            .map(|(_, value)| value.as_str())
    }

    /// The body as JSON.
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_slice(&self.body).unwrap_or_else(|error| {
            panic!(
                "body of {} {} is not JSON ({error}): {:?}",
                self.method,
                self.target,
                String::from_utf8_lossy(&self.body)
            )
        })
    }

    /// Whether this is `method` on `path`.
    pub fn is(&self, method: &str, path: &str) -> bool {
        self.method == method && self.path() == path
    }
}

/// How the stub marks the end of a body.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Framing {
    /// `Content-Length`.
    ContentLength,
    /// `Transfer-Encoding: chunked`.
    Chunked,
    /// Neither: the body ends when the stub closes the connection.
    CloseDelimited,
}

/// What the stub answers.
#[derive(Debug, Clone)]
pub struct Reply {
    status: u16,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
    /// Spaces sent before `body`, made as they are sent (never held whole).
    padding: u64,
    framing: Framing,
    delay: Duration,
}

impl Reply {
    /// A JSON answer.
    pub fn json(status: u16, body: serde_json::Value) -> Self {
        Self::raw_json(status, &body.to_string())
    }

    /// A JSON answer written as given (numbers `serde_json::Value` cannot hold).
    pub fn raw_json(status: u16, body: &str) -> Self {
        Self {
            status,
            headers: vec![("Content-Type".to_owned(), "application/json".to_owned())],
            body: body.as_bytes().to_vec(),
            padding: 0,
            framing: Framing::ContentLength,
            delay: Duration::ZERO,
        }
    }

    /// An answer without a body (204).
    pub fn empty(status: u16) -> Self {
        Self {
            status,
            headers: Vec::new(),
            body: Vec::new(),
            padding: 0,
            framing: Framing::ContentLength,
            delay: Duration::ZERO,
        }
    }

    /// The body's length in bytes, padding included.
    pub fn body_len(&self) -> u64 {
        self.padding + self.body.len() as u64
    }

    /// Sends `bytes` spaces (JSON whitespace: the body stays valid) before
    /// the body, framed with `framing`.
    pub fn padded(mut self, bytes: u64, framing: Framing) -> Self {
        self.padding = bytes;
        self.framing = framing;
        self
    }

    /// Adds a header.
    pub fn header(mut self, name: &str, value: &str) -> Self {
        self.headers.push((name.to_owned(), value.to_owned()));
        self
    }

    /// Answers only after `delay`, like a long poll with nothing to hand out.
    pub fn after(mut self, delay: Duration) -> Self {
        self.delay = delay;
        self
    }
}

type Handler = dyn Fn(&Request, &[Request]) -> Reply + Send + Sync;

/// A scripted HTTP/1.1 server. The handler sees each request and every
/// request received before it.
pub struct StubServer {
    url: String,
    log: Arc<Mutex<Vec<Request>>>,
    connections: Arc<AtomicUsize>,
    body_bytes_sent: Arc<AtomicU64>,
}

impl StubServer {
    /// Starts serving on a free port of 127.0.0.1.
    pub fn start(handler: impl Fn(&Request, &[Request]) -> Reply + Send + Sync + 'static) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let log = Arc::new(Mutex::new(Vec::new()));
        let connections = Arc::new(AtomicUsize::new(0));
        let body_bytes_sent = Arc::new(AtomicU64::new(0));
        let handler: Arc<Handler> = Arc::new(handler);
        let shared_log = Arc::clone(&log);
        let shared_connections = Arc::clone(&connections);
        let shared_sent = Arc::clone(&body_bytes_sent);
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                shared_connections.fetch_add(1, Ordering::SeqCst);
                let log = Arc::clone(&shared_log);
                let handler = Arc::clone(&handler);
                let sent = Arc::clone(&shared_sent);
                std::thread::spawn(move || serve_connection(stream, &log, &*handler, &sent));
            }
        });
        Self {
            url,
            log,
            connections,
            body_bytes_sent,
        }
    }

    /// How many connections it has accepted.
    pub fn connections(&self) -> usize {
        self.connections.load(Ordering::SeqCst)
    }

    /// How many body bytes (padding included) it has handed to the kernel:
    /// an upper bound on what a client can have read.
    pub fn body_bytes_sent(&self) -> u64 {
        self.body_bytes_sent.load(Ordering::SeqCst)
    }

    /// The server's base URL, without a trailing slash.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// Every request so far.
    pub fn requests(&self) -> Vec<Request> {
        self.log.lock().unwrap().clone()
    }

    /// Waits until the requests received satisfy `done`, then returns them.
    pub fn wait_for(&self, what: &str, done: impl Fn(&[Request]) -> bool) -> Vec<Request> {
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            let requests = self.requests();
            if done(&requests) {
                return requests;
            }
            if Instant::now() > deadline {
                panic!("timed out waiting for {what}; requests: {requests:#?}");
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}

fn serve_connection(
    stream: TcpStream,
    log: &Mutex<Vec<Request>>,
    handler: &Handler,
    body_bytes_sent: &AtomicU64,
) {
    let mut writer = stream.try_clone().unwrap();
    let mut reader = BufReader::new(stream);
    while let Some(request) = read_request(&mut reader) {
        let reply = {
            let mut log = log.lock().unwrap();
            let reply = handler(&request, &log);
            log.push(request);
            reply
        };
        std::thread::sleep(reply.delay);
        let sent = write_reply(&mut writer, &reply, body_bytes_sent);
        // A close-delimited body ends when the connection does.
        if sent.is_err() || reply.framing == Framing::CloseDelimited {
            return;
        }
    }
}

fn write_reply(
    writer: &mut TcpStream,
    reply: &Reply,
    body_bytes_sent: &AtomicU64,
) -> io::Result<()> {
    let mut head = format!("HTTP/1.1 {} Stub\r\n", reply.status);
    match reply.framing {
        Framing::ContentLength => {
            head.push_str(&format!("Content-Length: {}\r\n", reply.body_len()))
        }
        Framing::Chunked => head.push_str("Transfer-Encoding: chunked\r\n"),
        Framing::CloseDelimited => head.push_str("Connection: close\r\n"),
    }
    for (name, value) in &reply.headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str("\r\n");
    writer.write_all(head.as_bytes())?;
    let mut send = |data: &[u8]| -> io::Result<()> {
        if data.is_empty() {
            return Ok(());
        }
        if reply.framing == Framing::Chunked {
            write!(writer, "{:x}\r\n", data.len())?;
            writer.write_all(data)?;
            writer.write_all(b"\r\n")?;
        } else {
            writer.write_all(data)?;
        }
        body_bytes_sent.fetch_add(data.len() as u64, Ordering::SeqCst);
        Ok(())
    };
    let spaces = [b' '; 64 * 1024];
    let mut padding_left = reply.padding;
    while padding_left > 0 {
        let size = padding_left.min(spaces.len() as u64);
        send(&spaces[..size as usize])?;
        padding_left -= size;
    }
    send(&reply.body)?;
    if reply.framing == Framing::Chunked {
        writer.write_all(b"0\r\n\r\n")?;
    }
    writer.flush()
}

fn read_request(reader: &mut BufReader<TcpStream>) -> Option<Request> {
    let mut line = String::new();
    reader.read_line(&mut line).ok()?;
    let mut parts = line.split_whitespace();
    let method = parts.next()?.to_owned();
    let target = parts.next()?.to_owned();
    let mut headers = Vec::new();
    loop {
        let mut line = String::new();
        reader.read_line(&mut line).ok()?;
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        let (name, value) = line.split_once(':')?;
        headers.push((name.trim().to_ascii_lowercase(), value.trim().to_owned()));
    }
    let length = headers
        .iter()
        .find(|(name, _)| name == "content-length")
        .map_or(0, |(_, value)| value.parse().unwrap());
    let mut body = vec![0; length];
    reader.read_exact(&mut body).ok()?;
    Some(Request {
        method,
        target,
        headers,
        body,
        received: Instant::now(),
    })
}
