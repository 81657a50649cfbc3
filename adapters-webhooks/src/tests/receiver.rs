//! A tiny HTTP/1.1 receiver on 127.0.0.1: it records each request and
//! answers with a chosen status, or never answers.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::net::TcpListener;
use tokio::sync::mpsc;

/// A request as it arrived.
#[derive(Debug)]
pub(super) struct Received {
    pub(super) method: String,
    pub(super) path: String,
    /// Header names in lowercase.
    pub(super) headers: HashMap<String, String>,
    pub(super) body: Vec<u8>,
}

/// How the receiver answers.
#[derive(Debug, Clone)]
pub(super) enum Answer {
    /// This status line's code, with these extra header lines.
    Status(u16, Vec<String>),
    /// Reads the request, then keeps the connection open without a word.
    Never,
}

/// A running receiver.
pub(super) struct Receiver {
    pub(super) port: u16,
    connections: Arc<AtomicUsize>,
    requests: mpsc::UnboundedReceiver<Received>,
}

impl Receiver {
    /// Listens on 127.0.0.1 (a free port) over plain TCP.
    pub(super) async fn plain(answer: Answer) -> Self {
        Self::start(answer, |stream| async move { Some(stream) }).await
    }

    /// Listens on 127.0.0.1, each connection first wrapped by `wrap` (TLS);
    /// a connection `wrap` refuses is dropped.
    pub(super) async fn start<S, F, W>(answer: Answer, wrap: W) -> Self
    where
        S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
        F: Future<Output = Option<S>> + Send,
        W: Fn(tokio::net::TcpStream) -> F + Send + Sync + 'static,
    {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let connections = Arc::new(AtomicUsize::new(0));
        let (sender, requests) = mpsc::unbounded_channel();
        let counted = connections.clone();
        let wrap = Arc::new(wrap);
        tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                counted.fetch_add(1, Ordering::SeqCst);
                let (answer, sender, wrap) = (answer.clone(), sender.clone(), wrap.clone());
                tokio::spawn(async move {
                    if let Some(stream) = wrap(stream).await {
                        serve(stream, answer, sender).await;
                    }
                });
            }
        });
        Self {
            port,
            connections,
            requests,
        }
    }

    /// How many connections it has accepted.
    pub(super) fn connections(&self) -> usize {
        self.connections.load(Ordering::SeqCst)
    }

    /// The next request (the test fails if the receiver stopped).
    pub(super) async fn next(&mut self) -> Received {
        self.requests.recv().await.expect("the receiver runs")
    }
}

async fn serve<S>(mut stream: S, answer: Answer, sender: mpsc::UnboundedSender<Received>)
where
    S: AsyncRead + AsyncWrite + Unpin,
{
    let Some(received) = read_request(&mut stream).await else {
        return;
    };
    let _ = sender.send(received);
    match answer {
        Answer::Status(code, extra) => {
            let mut head = format!("HTTP/1.1 {code} Answer\r\nContent-Length: 2\r\n");
            for line in extra {
                head.push_str(&line);
                head.push_str("\r\n");
            }
            head.push_str("Connection: close\r\n\r\nok");
            let _ = stream.write_all(head.as_bytes()).await;
            let _ = stream.shutdown().await;
        }
        Answer::Never => {
            // Holds the connection until the client goes away.
            let mut rest = [0u8; 64];
            while matches!(stream.read(&mut rest).await, Ok(n) if n > 0) {}
        }
    }
}

async fn read_request<S: AsyncRead + Unpin>(stream: &mut S) -> Option<Received> {
    let mut bytes = Vec::new();
    let mut chunk = [0u8; 4096];
    let head_end = loop {
        if let Some(at) = bytes.windows(4).position(|w| w == b"\r\n\r\n") {
            break at;
        }
        let n = stream.read(&mut chunk).await.ok()?;
        if n == 0 {
            return None;
        }
        bytes.extend_from_slice(&chunk[..n]);
    };
    let head = String::from_utf8(bytes[..head_end].to_vec()).ok()?;
    let mut lines = head.split("\r\n");
    let mut request_line = lines.next()?.split(' ');
    let (method, path) = (
        request_line.next()?.to_owned(),
        request_line.next()?.to_owned(),
    );
    let headers: HashMap<String, String> = lines
        .filter_map(|line| line.split_once(':'))
        .map(|(name, value)| (name.trim().to_ascii_lowercase(), value.trim().to_owned()))
        .collect();
    let length: usize = headers.get("content-length")?.parse().ok()?;
    let mut body = bytes[head_end + 4..].to_vec();
    while body.len() < length {
        let n = stream.read(&mut chunk).await.ok()?;
        if n == 0 {
            return None;
        }
        body.extend_from_slice(&chunk[..n]);
    }
    Some(Received {
        method,
        path,
        headers,
        body,
    })
}
