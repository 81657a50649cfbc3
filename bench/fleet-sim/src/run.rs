//! One fleet size from start to end: server, enrolment, connection, then
//! the measurement window (or the soak).

use std::net::{IpAddr, Ipv4Addr};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering::Relaxed};
use std::time::{Duration, Instant};

use tokio::sync::Semaphore;

use crate::Args;
use crate::agent::{self, Fleet};
use crate::beats;
use crate::http::Conn;
use crate::server::{self, Server};

/// Runs every size asked for, or the soak.
pub async fn main(args: Args) -> Result<(), String> {
    if let Some(seconds) = args.soak {
        return size(&args, args.devices, Some(seconds)).await;
    }
    for &n in &args.sizes {
        size(&args, n, None).await?;
    }
    Ok(())
}

fn open_server(args: &Args, dir: &tempfile::TempDir) -> Result<Server, String> {
    if let Some(addr) = args.attach {
        return Ok(Server {
            child: None,
            pid: args.server_pid,
            addr,
            owner_token: args.owner_token.clone().unwrap_or_default(),
            install_token: args.install_token.clone().unwrap_or_default(),
            database: args.database.clone(),
        });
    }
    let binary = match &args.devmgr {
        Some(path) => path.clone(),
        None => std::env::current_exe()
            .map_err(|e| e.to_string())?
            .with_file_name("devmgr"),
    };
    server::start(&binary, &dir.path().join("devmgr.db"))
}

async fn size(args: &Args, n: usize, soak: Option<u64>) -> Result<(), String> {
    let dir = tempfile::Builder::new()
        .prefix("devmgr-fleet-sim-")
        .tempdir()
        .map_err(|e| e.to_string())?;
    let mut server = open_server(args, &dir)?;
    let started = Instant::now();
    let extra = args.heartbeat_only;
    let mut devices = enrol(&server, n + extra, args.enrol_connections).await?;
    let beat_only: Vec<String> = devices.split_off(n).into_iter().map(|(_, t)| t).collect();
    let enrol_secs = started.elapsed().as_secs_f64();
    let (rss_idle, _) = server.memory();
    eprintln!(
        "[{n}] enrolled {} in {enrol_secs:.1} s ({:.0}/s); server RSS {} MiB before connecting",
        n + extra,
        (n + extra) as f64 / enrol_secs,
        rss_idle / 1024
    );

    let sources = (0..args.source_ips.max(1))
        .map(|i| IpAddr::V4(Ipv4Addr::new(127, 0, 0, 2 + i)))
        .collect();
    let fleet = Arc::new(Fleet {
        server: server.addr,
        sources,
        ramp: Semaphore::new(args.ramp.max(1)),
        heartbeats: AtomicU64::new(0),
        heartbeats_failed: AtomicU64::new(0),
        errors: AtomicU64::new(0),
        connected: AtomicU64::new(0),
        base: Instant::now(),
        deliveries: (0..n).map(|_| AtomicU64::new(0)).collect(),
    });
    let started = Instant::now();
    let tasks: Vec<_> = devices
        .iter()
        .enumerate()
        .map(|(i, (_, token))| {
            tokio::spawn(agent::run(fleet.clone(), i, format!("Device {token}")))
        })
        .collect();
    let deadline = started + Duration::from_secs(args.connect_timeout);
    let mut last_note = Instant::now();
    while (fleet.connected.load(Relaxed) as usize) < n && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(200)).await;
        if last_note.elapsed() >= Duration::from_secs(10) {
            last_note = Instant::now();
            eprintln!(
                "[{n}] connected {} after {:.0} s, errors {}, server RSS {} MiB",
                fleet.connected.load(Relaxed),
                started.elapsed().as_secs_f64(),
                fleet.errors.load(Relaxed),
                server.memory().0 / 1024
            );
        }
    }
    eprintln!(
        "[{n}] {} connected in {:.1} s",
        fleet.connected.load(Relaxed),
        started.elapsed().as_secs_f64()
    );
    let mut tasks = tasks;
    if extra > 0 {
        let period = Duration::from_secs(30);
        let (conns, addr) = (args.heartbeat_connections, server.addr);
        tasks.extend(beats::spawn(fleet.clone(), addr, beat_only, conns, period));
        eprintln!("[{n}] {extra} heartbeat-only devices over {conns} connections");
    }
    tokio::time::sleep(Duration::from_secs(5)).await;

    let result = match soak {
        Some(seconds) => soak_report(&server, &fleet, n, seconds).await,
        None => measure(args, &server, &fleet, &devices, n + extra, rss_idle).await,
    };
    for task in &tasks {
        task.abort();
    }
    server.stop();
    result
}

async fn enrol(
    server: &Server,
    n: usize,
    connections: usize,
) -> Result<Vec<(String, String)>, String> {
    let next = Arc::new(AtomicUsize::new(0));
    let mut workers = Vec::new();
    for _ in 0..connections.max(1) {
        let (next, addr, install) = (next.clone(), server.addr, server.install_token.clone());
        workers.push(tokio::spawn(async move {
            let mut out = Vec::new();
            let mut conn = Conn::open(None, addr).await.map_err(|e| e.to_string())?;
            loop {
                let i = next.fetch_add(1, Relaxed);
                if i >= n {
                    return Ok::<_, String>(out);
                }
                let body =
                    serde_json::json!({"install_token": install, "name": format!("sim-{i}")});
                let body = body.to_string();
                let answer = conn
                    .request("POST", "/install/", "", Some(body.as_bytes()))
                    .await
                    .map_err(|e| format!("install: {e}"))?;
                let value: serde_json::Value =
                    serde_json::from_slice(&answer.body).unwrap_or_default();
                match (value["serial"].as_str(), value["device_token"].as_str()) {
                    (Some(s), Some(t)) if answer.status == 201 => {
                        out.push((i, s.to_owned(), t.to_owned()))
                    }
                    _ => return Err(format!("install answered {}: {value}", answer.status)),
                }
            }
        }));
    }
    let mut all = Vec::with_capacity(n);
    for worker in workers {
        all.extend(worker.await.map_err(|e| e.to_string())??);
    }
    all.sort_by_key(|(i, _, _)| *i);
    Ok(all.into_iter().map(|(_, s, t)| (s, t)).collect())
}

async fn measure(
    args: &Args,
    server: &Server,
    fleet: &Fleet,
    devices: &[(String, String)],
    total: usize,
    rss_idle: u64,
) -> Result<(), String> {
    let n = devices.len();
    let window = Duration::from_secs(args.window.max(1));
    let count = args.reboots.min(n);
    let beats_before = fleet.heartbeats.load(Relaxed);
    let started = Instant::now();
    let mut owner = Conn::open(None, server.addr)
        .await
        .map_err(|e| e.to_string())?;
    let auth = format!("Token {}", server.owner_token);
    let mut asked = Vec::with_capacity(count);
    for j in 0..count {
        // Spread over the window, and over the fleet (an odd stride).
        let index = (j * n / count + j % 7) % n;
        let path = format!("/devices/{}/reboot/", devices[index].0);
        let sent = Instant::now();
        let answer = owner
            .request("POST", &path, &auth, None)
            .await
            .map_err(|e| format!("reboot: {e}"))?;
        if !(200..300).contains(&answer.status) {
            return Err(format!("reboot answered {}", answer.status));
        }
        asked.push((index, sent));
        let due = started + window.mul_f64((j + 1) as f64 / count as f64);
        tokio::time::sleep_until(due.into()).await;
    }
    tokio::time::sleep_until((started + window).into()).await;
    let beats = fleet.heartbeats.load(Relaxed) - beats_before;
    let elapsed = started.elapsed().as_secs_f64();
    let (rss, hwm) = server.memory();
    let connected = fleet.connected.load(Relaxed);
    let grace = Instant::now() + Duration::from_secs(10);
    while asked.iter().any(|(i, _)| fleet.delivered(*i).is_none()) && Instant::now() < grace {
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let mut latencies: Vec<f64> = asked
        .iter()
        .filter_map(|(i, sent)| {
            fleet
                .delivered(*i)
                .map(|at| (at - *sent).as_secs_f64() * 1000.0)
        })
        .collect();
    latencies.sort_by(f64::total_cmp);
    let missing = count - latencies.len();
    let (sim_rss, _) = server::memory("/proc/self/status");
    println!(
        "devices {n} held + {} heartbeat-only: connected {connected}, server RSS {} MiB (peak {} MiB), {:.1} KB per device \
         ({:.1} KB over the {} MiB before connecting), heartbeats {:.0}/s (expected about {:.0}/s; \
         {} refused, {} connection errors), reboot delivery p50 {:.1} ms p99 {:.1} ms max {:.1} ms \
         over {} ({} missing), simulator RSS {} MiB, WAL {} KiB",
        total - n,
        rss / 1024,
        hwm / 1024,
        rss as f64 * 1.024 / n as f64,
        rss.saturating_sub(rss_idle) as f64 * 1.024 / n as f64,
        rss_idle / 1024,
        beats as f64 / elapsed,
        total as f64 / 29.5,
        fleet.heartbeats_failed.load(Relaxed),
        fleet.errors.load(Relaxed),
        percentile(&latencies, 0.5),
        percentile(&latencies, 0.99),
        latencies.last().copied().unwrap_or(f64::NAN),
        latencies.len(),
        missing,
        sim_rss / 1024,
        wal_kib(server)
    );
    Ok(())
}

async fn soak_report(server: &Server, fleet: &Fleet, n: usize, seconds: u64) -> Result<(), String> {
    let started = Instant::now();
    let (rss_start, _) = server.memory();
    let mut beats = fleet.heartbeats.load(Relaxed);
    println!(
        "soak {n} devices: t 0 s, WAL {} KiB, server RSS {} MiB",
        wal_kib(server),
        rss_start / 1024
    );
    let mut tick = started;
    while started.elapsed() < Duration::from_secs(seconds) {
        let left = Duration::from_secs(seconds).saturating_sub(started.elapsed());
        if left < Duration::from_millis(500) {
            break;
        }
        let step = Duration::from_secs(30).min(left);
        tick += step;
        tokio::time::sleep_until(tick.into()).await;
        let now = fleet.heartbeats.load(Relaxed);
        let (rss, hwm) = server.memory();
        println!(
            "soak {n} devices: t {:.0} s, WAL {} KiB, server RSS {} MiB (peak {} MiB), \
             heartbeats {:.0}/s, connected {}, connection errors {}",
            started.elapsed().as_secs_f64(),
            wal_kib(server),
            rss / 1024,
            hwm / 1024,
            (now - beats) as f64 / step.as_secs_f64(),
            fleet.connected.load(Relaxed),
            fleet.errors.load(Relaxed)
        );
        beats = now;
    }
    let (rss_end, _) = server.memory();
    println!(
        "soak end: WAL {} KiB, server RSS {} MiB at start, {} MiB at end",
        wal_kib(server),
        rss_start / 1024,
        rss_end / 1024
    );
    Ok(())
}

fn wal_kib(server: &Server) -> String {
    server
        .wal_size()
        .map_or("?".into(), |b| (b / 1024).to_string())
}

fn percentile(sorted: &[f64], fraction: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    sorted[((sorted.len() as f64 * fraction) as usize).min(sorted.len() - 1)]
}
