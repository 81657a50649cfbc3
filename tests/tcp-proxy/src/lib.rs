//! A TCP proxy for tests: listens on a free port of 127.0.0.1 and forwards
//! every connection to a target address, until the test breaks the link.
//!
//! Put it between devmgr and its PostgreSQL server (point the database URL
//! at [`TcpProxy::address`]) and the test can take the database away and
//! bring it back while traffic runs:
//!
//! - [`TcpProxy::cut`] is a server that stops or restarts: every open
//!   connection is closed at once, and new ones are accepted and closed
//!   straight away, until [`TcpProxy::restore`];
//! - [`TcpProxy::blackhole`] is a network partition: connections stay open
//!   and new ones are accepted, but not a byte goes through either way
//!   until [`TcpProxy::restore`], when what was held back flows again (as TCP
//!   catches up after a partition heals).
//!
//! ```no_run
//! # fn main() -> std::io::Result<()> {
//! let proxy = tcp_proxy::TcpProxy::start_blocking("127.0.0.1:5432".parse().unwrap())?;
//! let url = format!("postgres://postgres@{}/postgres", proxy.address());
//! proxy.cut(); // the database is gone …
//! proxy.restore(); // … and back
//! # Ok(()) }
//! ```

use std::io;
use std::net::SocketAddr;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::tcp::{OwnedReadHalf, OwnedWriteHalf};
use tokio::net::{TcpListener, TcpStream};
use tokio::runtime::Runtime;
use tokio::sync::watch;
use tokio::task::JoinHandle;

/// What the link does now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Link {
    /// Forwards.
    Open,
    /// Closes what it accepts.
    Cut,
    /// Accepts and holds, forwarding nothing.
    Blackhole,
}

/// The link, and how many times it was cut: a connection closes when the
/// count moves past the one it started under, however briefly the cut lasted.
#[derive(Debug, Clone, Copy)]
struct State {
    link: Link,
    cuts: u64,
}

/// A running proxy; stops (closing every connection) when dropped.
#[derive(Debug)]
pub struct TcpProxy {
    address: SocketAddr,
    target: SocketAddr,
    state: watch::Sender<State>,
    accepting: JoinHandle<()>,
    /// The runtime of [`TcpProxy::start_blocking`].
    runtime: Option<Runtime>,
}

impl TcpProxy {
    /// Listens on a free port of 127.0.0.1 and forwards each connection it
    /// accepts to `target` (connecting when the connection arrives, or when
    /// the link is restored if it arrives while blackholed). Runs on the
    /// current tokio runtime.
    pub async fn start(target: SocketAddr) -> io::Result<Self> {
        let listener = TcpListener::bind("127.0.0.1:0").await?;
        let address = listener.local_addr()?;
        let (state, watching) = watch::channel(State {
            link: Link::Open,
            cuts: 0,
        });
        let accepting = tokio::spawn(accept(listener, target, watching));
        Ok(Self {
            address,
            target,
            state,
            accepting,
            runtime: None,
        })
    }

    /// Like [`start`](Self::start), on a runtime of its own (one thread), for
    /// tests without one. Callable from any thread, even inside a runtime.
    pub fn start_blocking(target: SocketAddr) -> io::Result<Self> {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name("tcp-proxy")
            .enable_all()
            .build()?;
        let started = std::thread::scope(|scope| {
            scope
                .spawn(|| runtime.block_on(Self::start(target)))
                .join()
                .unwrap_or_else(|_| Err(io::Error::other("the proxy's start panicked")))
        });
        let mut proxy = started?;
        proxy.runtime = Some(runtime);
        Ok(proxy)
    }

    /// The address it listens on (127.0.0.1 and a port of its own).
    pub fn address(&self) -> SocketAddr {
        self.address
    }

    /// The address it forwards to.
    pub fn target(&self) -> SocketAddr {
        self.target
    }

    /// Closes every open connection at once and closes each new one as soon
    /// as it is accepted, until [`restore`](Self::restore): a server that
    /// went down. Connections held by a blackhole are closed too.
    pub fn cut(&self) {
        self.state.send_modify(|state| {
            state.link = Link::Cut;
            state.cuts += 1;
        });
    }

    /// Stops forwarding, either way, on every connection; new connections
    /// are accepted and held. Nothing is closed or lost: what was sent
    /// meanwhile is forwarded once [`restore`](Self::restore)d. A partition.
    pub fn blackhole(&self) {
        self.state.send_modify(|state| state.link = Link::Blackhole);
    }

    /// Forwards again: new connections reach the target, held ones connect
    /// to it, and blackholed ones carry on where they stopped.
    pub fn restore(&self) {
        self.state.send_modify(|state| state.link = Link::Open);
    }
}

impl Drop for TcpProxy {
    fn drop(&mut self) {
        self.accepting.abort();
        self.cut();
        if let Some(runtime) = self.runtime.take() {
            runtime.shutdown_background();
        }
    }
}

/// Accepts connections until aborted; each is served by a task of its own,
/// or closed at once while the link is cut.
async fn accept(listener: TcpListener, target: SocketAddr, state: watch::Receiver<State>) {
    loop {
        let Ok((client, _)) = listener.accept().await else {
            // Out of file descriptors, say: let the moment pass.
            tokio::time::sleep(std::time::Duration::from_millis(10)).await;
            continue;
        };
        if state.borrow().link == Link::Cut {
            drop(client);
            continue;
        }
        tokio::spawn(forward(client, target, state.clone()));
    }
}

/// Serves one connection: waits while the link is blackholed, connects to
/// the target, and copies both ways until either side closes or the link
/// is cut.
async fn forward(client: TcpStream, target: SocketAddr, mut state: watch::Receiver<State>) {
    let epoch = state.borrow_and_update().cuts;
    if !until_open(&mut state, epoch).await {
        return;
    }
    let Ok(upstream) = TcpStream::connect(target).await else {
        return;
    };
    let _ = client.set_nodelay(true);
    let _ = upstream.set_nodelay(true);
    let (from_client, to_client) = client.into_split();
    let (from_upstream, to_upstream) = upstream.into_split();
    tokio::select! {
        () = pump(from_client, to_upstream, state.clone(), epoch) => {}
        () = pump(from_upstream, to_client, state.clone(), epoch) => {}
        () = until_cut(state, epoch) => {}
    }
}

/// Copies one way while the link is open; pauses while blackholed.
async fn pump(
    mut from: OwnedReadHalf,
    mut to: OwnedWriteHalf,
    mut state: watch::Receiver<State>,
    epoch: u64,
) {
    let mut buffer = vec![0; 16 * 1024];
    loop {
        if !until_open(&mut state, epoch).await {
            return;
        }
        let read = tokio::select! {
            read = from.read(&mut buffer) => read,
            changed = state.changed() => match changed {
                Ok(()) => continue,
                Err(_) => return,
            },
        };
        let count = match read {
            Ok(0) | Err(_) => return,
            Ok(count) => count,
        };
        if to.write_all(&buffer[..count]).await.is_err() {
            return;
        }
    }
}

/// Returns `true` once the link is open, `false` if it is cut (or the proxy
/// is gone) first.
async fn until_open(state: &mut watch::Receiver<State>, epoch: u64) -> bool {
    loop {
        let now = *state.borrow_and_update();
        if now.cuts != epoch || now.link == Link::Cut {
            return false;
        }
        if now.link == Link::Open {
            return true;
        }
        if state.changed().await.is_err() {
            return false;
        }
    }
}

/// Returns once the link has been cut since `epoch` (or the proxy is gone).
async fn until_cut(mut state: watch::Receiver<State>, epoch: u64) {
    loop {
        if state.borrow_and_update().cuts != epoch {
            return;
        }
        if state.changed().await.is_err() {
            return;
        }
    }
}

#[cfg(test)]
mod tests;
