//! The server under test: `devmgr serve` on a fresh SQLite file, its owner
//! account made with the command line, and its memory read from /proc.

use std::io::{BufRead, BufReader, Read};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

/// A running server and what the simulator needs from it.
pub struct Server {
    /// The process, when this simulator started it.
    pub child: Option<Child>,
    /// Its process id, for /proc readings (none: not known).
    pub pid: Option<u32>,
    /// Where it listens.
    pub addr: SocketAddr,
    /// The owner's API token.
    pub owner_token: String,
    /// The account's install token.
    pub install_token: String,
    /// The SQLite file, when known.
    pub database: Option<PathBuf>,
}

/// Starts `binary serve` on `database` with rate limits off, and makes the
/// owner account.
pub fn start(binary: &Path, database: &Path) -> Result<Server, String> {
    let url = format!("sqlite://{}", database.display());
    let mut child = Command::new(binary)
        .args([
            "--database-url",
            &url,
            "serve",
            "--bind",
            "127.0.0.1:0",
            "--throttle",
            "off",
        ])
        .env("DEVMGR_LOG", "warn")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("cannot start {}: {e}", binary.display()))?;
    let stdout = child.stdout.take().ok_or("no stdout")?;
    let mut reader = BufReader::new(stdout);
    let mut line = String::new();
    reader.read_line(&mut line).map_err(|e| e.to_string())?;
    // Keep reading what else it prints, so that it never blocks on a full pipe.
    std::thread::spawn(move || {
        let mut sink = Vec::new();
        let _ = reader.read_to_end(&mut sink);
    });
    let listening: serde_json::Value =
        serde_json::from_str(&line).map_err(|_| format!("devmgr serve printed {line:?}"))?;
    let addr = listening["listening"]
        .as_str()
        .and_then(|u| u.strip_prefix("http://"))
        .and_then(|a| a.trim_end_matches('/').parse().ok())
        .ok_or_else(|| format!("no address in {line:?}"))?;
    let made = Command::new(binary)
        .args([
            "--database-url",
            &url,
            "user",
            "create",
            "--email",
            "fleet@example.com",
        ])
        .arg("--verified")
        .output()
        .map_err(|e| e.to_string())?;
    let account: serde_json::Value = serde_json::from_slice(&made.stdout)
        .map_err(|_| format!("user create: {}", String::from_utf8_lossy(&made.stderr)))?;
    Ok(Server {
        pid: Some(child.id()),
        child: Some(child),
        addr,
        owner_token: account["token"].as_str().unwrap_or_default().to_owned(),
        install_token: account["install_token"]
            .as_str()
            .unwrap_or_default()
            .to_owned(),
        database: Some(database.to_owned()),
    })
}

impl Server {
    /// Stops the server if this simulator started it.
    pub fn stop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// The server's resident memory now and at its peak, in KiB.
    pub fn memory(&self) -> (u64, u64) {
        self.pid
            .map_or((0, 0), |pid| memory(&format!("/proc/{pid}/status")))
    }

    /// The size of the SQLite write-ahead log, in bytes.
    pub fn wal_size(&self) -> Option<u64> {
        let db = self.database.as_ref()?;
        let wal = format!("{}-wal", db.display());
        std::fs::metadata(wal).ok().map(|m| m.len())
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.stop();
    }
}

/// VmRSS and VmHWM of a /proc status file, in KiB.
pub fn memory(status: &str) -> (u64, u64) {
    let text = std::fs::read_to_string(status).unwrap_or_default();
    let field = |name: &str| {
        text.lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|v| v.split_whitespace().next())
            .and_then(|v| v.parse().ok())
            .unwrap_or(0)
    };
    (field("VmRSS:"), field("VmHWM:"))
}
