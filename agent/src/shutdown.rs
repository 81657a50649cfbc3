//! Stopping on SIGTERM (systemd, `kill`) and SIGINT (Ctrl-C).

use tokio::signal::unix::{Signal, SignalKind, signal};

/// The signals that stop the agent, listened to from creation on.
#[derive(Debug)]
pub struct ShutdownSignals {
    terminate: Signal,
    interrupt: Signal,
}

impl ShutdownSignals {
    /// Starts listening: from now on these signals no longer kill the
    /// process but are reported by [`ShutdownSignals::received`]. Needs a
    /// Tokio runtime.
    pub fn listen() -> std::io::Result<Self> {
        Ok(Self {
            terminate: signal(SignalKind::terminate())?,
            interrupt: signal(SignalKind::interrupt())?,
        })
    }

    /// Waits for SIGTERM or SIGINT and names the one that came.
    pub async fn received(&mut self) -> &'static str {
        tokio::select! {
            _ = self.terminate.recv() => "SIGTERM",
            _ = self.interrupt.recv() => "SIGINT",
        }
    }
}
