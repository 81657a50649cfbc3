//! Heartbeat-only devices: enrolled devices whose heartbeats (every 30 s,
//! spread evenly) share a few connections and hold no long poll. They add a
//! fleet's heartbeat writes beyond the connections one process may hold
//! (docs/performance.md, "100,000 connected devices").

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::Ordering::Relaxed;
use std::time::{Duration, Instant};

use crate::agent::Fleet;
use crate::http::Conn;

/// Sends the heartbeats of `tokens` (device tokens) every `period` over
/// `connections` connections, for ever; each connection's devices are spread
/// evenly over the period, and a slow server makes them late, not skipped.
pub fn spawn(
    fleet: Arc<Fleet>,
    server: SocketAddr,
    tokens: Vec<String>,
    connections: usize,
    period: Duration,
) -> Vec<tokio::task::JoinHandle<()>> {
    let connections = connections.max(1);
    let mut shares: Vec<Vec<String>> = vec![Vec::new(); connections];
    for (i, token) in tokens.into_iter().enumerate() {
        shares[i % connections].push(format!("Device {token}"));
    }
    shares
        .into_iter()
        .enumerate()
        .filter(|(_, share)| !share.is_empty())
        .map(|(k, share)| {
            let fleet = fleet.clone();
            let offset = period.mul_f64(k as f64 / connections as f64 / share.len() as f64);
            tokio::spawn(run(fleet, server, share, period, offset))
        })
        .collect()
}

async fn run(
    fleet: Arc<Fleet>,
    server: SocketAddr,
    share: Vec<String>,
    period: Duration,
    offset: Duration,
) {
    let source = fleet.sources[0];
    let start = Instant::now() + offset;
    let step = period.div_f64(share.len() as f64);
    let mut conn: Option<Conn> = None;
    for n in 0u64.. {
        let auth = &share[(n % share.len() as u64) as usize];
        tokio::time::sleep_until((start + step.mul_f64(n as f64)).into()).await;
        if conn.is_none() {
            conn = Conn::open(Some(source), server).await.ok();
        }
        let Some(c) = conn.as_mut() else {
            fleet.errors.fetch_add(1, Relaxed);
            continue;
        };
        match c
            .request("POST", "/agent/heartbeat/", auth, Some(b"{}"))
            .await
        {
            Ok(answer) if (200..300).contains(&answer.status) => {
                fleet.heartbeats.fetch_add(1, Relaxed);
            }
            Ok(_) => {
                fleet.heartbeats_failed.fetch_add(1, Relaxed);
            }
            Err(_) => {
                fleet.errors.fetch_add(1, Relaxed);
                conn = None;
            }
        }
    }
}
