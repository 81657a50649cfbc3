//! A minimal keep-alive HTTP/1.1 client connection: one request at a time,
//! bodies with `Content-Length`, no buffer held while waiting for an answer.

use std::fmt::Write as _;
use std::io::{self, ErrorKind};
use std::net::{IpAddr, SocketAddr};

use tokio::io::AsyncWriteExt;
use tokio::net::{TcpSocket, TcpStream};

/// One connection to the server.
pub struct Conn {
    stream: TcpStream,
}

/// An answer: its status and body.
pub struct Response {
    /// The HTTP status code.
    pub status: u16,
    /// The body, as sent.
    pub body: Vec<u8>,
}

impl Conn {
    /// Connects to `server`, from `source` (any port) when given.
    pub async fn open(source: Option<IpAddr>, server: SocketAddr) -> io::Result<Self> {
        let socket = TcpSocket::new_v4()?;
        if let Some(ip) = source {
            socket.bind(SocketAddr::new(ip, 0))?;
        }
        let stream = socket.connect(server).await?;
        stream.set_nodelay(true)?;
        Ok(Self { stream })
    }

    /// Sends one request and reads its answer. A `Connection: close` answer
    /// is an error for the next request, which the caller handles by
    /// reconnecting.
    pub async fn request(
        &mut self,
        method: &str,
        path: &str,
        auth: &str,
        body: Option<&[u8]>,
    ) -> io::Result<Response> {
        let mut head = String::with_capacity(200);
        // The headers devmgr's agent sends (its HTTP client's defaults).
        let _ = write!(
            head,
            "{method} {path} HTTP/1.1\r\nHost: devmgr\r\nUser-Agent: devmgr-fleet-sim\r\nAccept: */*\r\n"
        );
        if !auth.is_empty() {
            let _ = write!(head, "Authorization: {auth}\r\n");
        }
        let payload = body.unwrap_or_default();
        if body.is_some() {
            head.push_str("Content-Type: application/json\r\n");
        }
        let _ = write!(head, "Content-Length: {}\r\n\r\n", payload.len());
        let mut out = head.into_bytes();
        out.extend_from_slice(payload);
        self.stream.write_all(&out).await?;
        drop(out);
        self.read_response().await
    }

    async fn read_response(&mut self) -> io::Result<Response> {
        let mut buf: Vec<u8> = Vec::new();
        let head_end = loop {
            if let Some(at) = find(&buf, b"\r\n\r\n") {
                break at + 4;
            }
            if buf.len() > 16 * 1024 {
                return Err(io::Error::new(ErrorKind::InvalidData, "header too long"));
            }
            self.read_more(&mut buf).await?;
        };
        let head = std::str::from_utf8(&buf[..head_end])
            .map_err(|_| io::Error::new(ErrorKind::InvalidData, "header not UTF-8"))?;
        let mut lines = head.split("\r\n");
        let status = lines
            .next()
            .and_then(|line| line.split(' ').nth(1))
            .and_then(|code| code.parse::<u16>().ok())
            .ok_or_else(|| io::Error::new(ErrorKind::InvalidData, "no status line"))?;
        let mut length = 0usize;
        for line in lines {
            let Some((name, value)) = line.split_once(':') else {
                continue;
            };
            let value = value.trim();
            if name.eq_ignore_ascii_case("content-length") {
                length = value.parse().unwrap_or(0);
            } else if name.eq_ignore_ascii_case("transfer-encoding") {
                return Err(io::Error::new(ErrorKind::InvalidData, "chunked answer"));
            }
        }
        while buf.len() < head_end + length {
            self.read_more(&mut buf).await?;
        }
        let body = buf[head_end..head_end + length].to_vec();
        Ok(Response { status, body })
    }

    /// Waits until the socket is readable, then reads what is there: no
    /// buffer is allocated while a long poll waits.
    async fn read_more(&mut self, buf: &mut Vec<u8>) -> io::Result<()> {
        loop {
            self.stream.readable().await?;
            buf.reserve(1024);
            match self.stream.try_read_buf(buf) {
                Ok(0) => return Err(ErrorKind::UnexpectedEof.into()),
                Ok(_) => return Ok(()),
                Err(error) if error.kind() == ErrorKind::WouldBlock => continue,
                Err(error) => return Err(error),
            }
        }
    }
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}
