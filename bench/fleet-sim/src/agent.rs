//! One simulated device: a heartbeat, then long polls until the next one is
//! due (every `heartbeat_interval` seconds, less up to 1 s of jitter); each
//! command is acknowledged `received` then `done` (docs/agent-protocol.md).

use std::io;
use std::net::{IpAddr, SocketAddr};
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::time::{Duration, Instant};

use tokio::sync::Semaphore;

use crate::http::Conn;

/// What all simulated devices share: where to connect, and the counters.
pub struct Fleet {
    /// The server's address.
    pub server: SocketAddr,
    /// Source addresses, device `i` using `sources[i % len]`.
    pub sources: Vec<IpAddr>,
    /// Devices connecting at once (the ramp).
    pub ramp: Semaphore,
    /// Heartbeats answered 2xx.
    pub heartbeats: AtomicU64,
    /// Heartbeats answered otherwise.
    pub heartbeats_failed: AtomicU64,
    /// Connection errors (each one ends in a reconnect).
    pub errors: AtomicU64,
    /// Devices whose connection is up and has had a heartbeat answered.
    pub connected: AtomicU64,
    /// The time deliveries are counted from.
    pub base: Instant,
    /// Per device: nanoseconds after `base` its first command arrived, plus one (0: none yet).
    pub deliveries: Vec<AtomicU64>,
}

impl Fleet {
    /// When device `index` first received a command.
    pub fn delivered(&self, index: usize) -> Option<Instant> {
        match self.deliveries[index].load(Relaxed) {
            0 => None,
            n => Some(self.base + Duration::from_nanos(n - 1)),
        }
    }
}

/// Runs device `index` with the credential `auth` (`Device <token>`) for ever.
pub async fn run(fleet: std::sync::Arc<Fleet>, index: usize, auth: String) {
    let source = fleet.sources[index % fleet.sources.len()];
    let mut rng = (index as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    let mut permit = fleet.ramp.acquire().await.ok();
    loop {
        let mut up = false;
        let result = session(&fleet, index, &auth, source, &mut rng, &mut up, &mut permit).await;
        permit = None;
        if up {
            fleet.connected.fetch_sub(1, Relaxed);
        }
        if result.is_err() {
            fleet.errors.fetch_add(1, Relaxed);
        }
        let pause = 1000 + next(&mut rng) % 2000;
        tokio::time::sleep(Duration::from_millis(pause)).await;
    }
}

async fn session(
    fleet: &Fleet,
    index: usize,
    auth: &str,
    source: IpAddr,
    rng: &mut u64,
    up: &mut bool,
    permit: &mut Option<tokio::sync::SemaphorePermit<'_>>,
) -> io::Result<()> {
    let mut conn = Conn::open(Some(source), fleet.server).await?;
    let mut interval = 30u64;
    let mut next_heartbeat = Instant::now();
    let mut first = true;
    loop {
        if Instant::now() >= next_heartbeat {
            let answer = conn
                .request("POST", "/agent/heartbeat/", auth, Some(b"{}"))
                .await?;
            if !(200..300).contains(&answer.status) {
                fleet.heartbeats_failed.fetch_add(1, Relaxed);
                return Err(io::Error::other(format!("heartbeat {}", answer.status)));
            }
            fleet.heartbeats.fetch_add(1, Relaxed);
            if !*up {
                *up = true;
                fleet.connected.fetch_add(1, Relaxed);
            }
            *permit = None;
            let (ids, every) = parse(&answer.body);
            interval = every.unwrap_or(interval).max(1);
            // The first period is a random share of the interval, so that the
            // fleet's heartbeats spread evenly; later ones are the interval
            // less up to a second.
            let period = interval * 1000;
            let wait = if first {
                1 + next(rng) % period
            } else {
                period - next(rng) % 1000
            };
            first = false;
            next_heartbeat = Instant::now() + Duration::from_millis(wait);
            carry_out(fleet, index, &mut conn, auth, ids).await?;
        }
        let left = next_heartbeat.saturating_duration_since(Instant::now());
        let wait = left.as_secs().clamp(1, 30);
        let path = format!("/agent/commands/?wait={wait}");
        let answer = conn.request("GET", &path, auth, None).await?;
        if answer.status == 200 {
            let (ids, _) = parse(&answer.body);
            carry_out(fleet, index, &mut conn, auth, ids).await?;
        } else {
            return Err(io::Error::other(format!("long poll {}", answer.status)));
        }
    }
}

async fn carry_out(
    fleet: &Fleet,
    index: usize,
    conn: &mut Conn,
    auth: &str,
    ids: Vec<String>,
) -> io::Result<()> {
    if ids.is_empty() {
        return Ok(());
    }
    let now = fleet.base.elapsed().as_nanos() as u64 + 1;
    let _ = fleet.deliveries[index].compare_exchange(0, now, Relaxed, Relaxed);
    for id in ids {
        let path = format!("/agent/commands/{id}/ack/");
        for status in [&br#"{"status": "received"}"#[..], br#"{"status": "done"}"#] {
            conn.request("POST", &path, auth, Some(status)).await?;
        }
    }
    Ok(())
}

/// The command ids of an answer, and its `heartbeat_interval` if any.
fn parse(body: &[u8]) -> (Vec<String>, Option<u64>) {
    let Ok(value) = serde_json::from_slice::<serde_json::Value>(body) else {
        return (Vec::new(), None);
    };
    let ids = value["commands"]
        .as_array()
        .map(|list| {
            list.iter()
                .filter_map(|c| c["id"].as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default();
    (ids, value["heartbeat_interval"].as_u64())
}

/// xorshift64: jitter without a random-number crate.
pub fn next(state: &mut u64) -> u64 {
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    *state
}
