//! A fleet simulator for devmgr: up to 100,000 connected devices on one
//! machine, each a small tokio task with one keep-alive connection bound to
//! one of several 127.0.0.x source addresses (one address has only ~28,000
//! ephemeral ports). For each fleet size it starts a fresh server on a new
//! SQLite file (or attaches to one), enrols the devices, connects them all,
//! and then measures the server's memory, the heartbeats it takes per second
//! and how fast a reboot reaches a device's long poll. See
//! docs/performance.md, "100,000 connected devices".

mod agent;
mod beats;
mod http;
mod run;
mod server;

use std::net::SocketAddr;
use std::path::PathBuf;

use clap::Parser;

/// Command-line options.
#[derive(Parser, Debug, Clone)]
#[command(about = "Simulates a fleet of connected devmgr agents and measures the server.")]
pub struct Args {
    /// Fleet sizes to run, one fresh server each, e.g. 1000,10000,50000,100000.
    #[arg(long, value_delimiter = ',', default_value = "1000")]
    pub sizes: Vec<usize>,
    /// Soak mode: this many seconds with `--devices` devices, reporting the
    /// WAL's size and the server's memory every 30 s.
    #[arg(long)]
    pub soak: Option<u64>,
    /// Devices in soak mode.
    #[arg(long, default_value_t = 2000)]
    pub devices: usize,
    /// Source addresses 127.0.0.2 up to 127.0.0.(1+N).
    #[arg(long, default_value_t = 8)]
    pub source_ips: u8,
    /// Devices connecting (first heartbeat in flight) at once.
    #[arg(long, default_value_t = 256)]
    pub ramp: usize,
    /// Connections enrolling devices at once.
    #[arg(long, default_value_t = 16)]
    pub enrol_connections: usize,
    /// More enrolled devices that only send heartbeats (every 30 s, over
    /// `--heartbeat-connections` connections, no long poll): heartbeat load
    /// beyond the connections one process may hold.
    #[arg(long, default_value_t = 0)]
    pub heartbeat_only: usize,
    /// Connections the heartbeat-only devices share.
    #[arg(long, default_value_t = 32)]
    pub heartbeat_connections: usize,
    /// Seconds heartbeats are counted for, once all devices are connected.
    #[arg(long, default_value_t = 60)]
    pub window: u64,
    /// Reboots sent (one at a time, spread over the window) to a sample of devices.
    #[arg(long, default_value_t = 300)]
    pub reboots: usize,
    /// Seconds allowed for all devices to connect.
    #[arg(long, default_value_t = 600)]
    pub connect_timeout: u64,
    /// The devmgr binary (default: `devmgr` beside this one).
    #[arg(long, env = "DEVMGR_BINARY")]
    pub devmgr: Option<PathBuf>,
    /// Attach to this running server instead (`host:port`, as 127.0.0.1:8000).
    #[arg(long, requires_all = ["owner_token", "install_token"])]
    pub attach: Option<SocketAddr>,
    /// With `--attach`: the owner's API token.
    #[arg(long)]
    pub owner_token: Option<String>,
    /// With `--attach`: the account's install token.
    #[arg(long)]
    pub install_token: Option<String>,
    /// With `--attach`: the server's process id, for its memory.
    #[arg(long)]
    pub server_pid: Option<u32>,
    /// With `--attach`: the server's SQLite file, for its WAL's size.
    #[arg(long)]
    pub database: Option<PathBuf>,
}

fn main() -> std::process::ExitCode {
    let args = Args::parse();
    raise_open_files();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("tokio runtime");
    let result = runtime.block_on(run::main(args));
    runtime.shutdown_background();
    match result {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("fleet-sim: {error}");
            std::process::ExitCode::FAILURE
        }
    }
}

/// Raises the soft open-file limit to the hard one; the server, started by
/// this process, inherits it (run under `prlimit --nofile=1048576:1048576`
/// for 100,000 devices).
fn raise_open_files() {
    use rustix::process::{Resource, getrlimit, setrlimit};
    let mut limit = getrlimit(Resource::Nofile);
    limit.current = limit.maximum;
    if let Err(error) = setrlimit(Resource::Nofile, limit) {
        eprintln!("fleet-sim: cannot raise the open-file limit: {error}");
    }
    let now = getrlimit(Resource::Nofile);
    eprintln!("open-file limit: {:?}", now.current);
}
