//! The agent's loop: heartbeat, long-poll until the next heartbeat is due,
//! carry out and acknowledge commands, and back off while the server is away.

use crate::backoff::Backoff;
use crate::client::{ApiError, ClientSetupError, DeviceClient};
use crate::commands::{CommandRunner, HandledCommands};
use crate::config::Config;
use crate::endpoints::{Endpoints, InvalidServerUrl};
use crate::facts::Facts;
use crate::protocol::{Ack, Command};
use std::collections::VecDeque;
use std::convert::Infallible;
use std::time::Duration;
use tokio::time::Instant;

/// The longest `wait` of a long poll the server accepts, in seconds.
pub const MAX_LONG_POLL_SECONDS: u64 = 60;
/// How many command ids are remembered to avoid running one twice.
const REMEMBERED_COMMANDS: usize = 1024;

/// How `run` behaves.
#[derive(Debug, Clone)]
pub struct RunOptions {
    /// Shell command line that reboots the machine.
    pub reboot_command: String,
    /// How long the reboot command may run.
    pub reboot_timeout: Duration,
    /// The longest wait between attempts while the server is away.
    pub max_backoff: Duration,
}

/// Why the agent cannot start.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// The configured server URL is unusable.
    #[error("in the agent configuration: {0}")]
    InvalidServer(#[from] InvalidServerUrl),
    /// The HTTP client cannot be made.
    #[error(transparent)]
    Client(#[from] ClientSetupError),
}

/// An acknowledgement still to be delivered.
#[derive(Debug, Clone, PartialEq, Eq)]
struct PendingAck {
    command_id: String,
    ack: Ack,
}

/// The running agent and what it remembers between heartbeats.
#[derive(Debug)]
pub struct Agent {
    client: DeviceClient,
    runner: CommandRunner,
    handled: HandledCommands,
    pending_acks: VecDeque<PendingAck>,
    backoff: Backoff,
    connected: bool,
}

impl Agent {
    /// An agent for the device of `config`.
    pub fn new(config: &Config, options: RunOptions) -> Result<Self, RunError> {
        let endpoints = Endpoints::new(&config.server)?;
        endpoints.warn_if_cleartext();
        Ok(Self {
            client: DeviceClient::new(endpoints, &config.device_token)?,
            runner: CommandRunner::new(options.reboot_command, options.reboot_timeout),
            handled: HandledCommands::new(REMEMBERED_COMMANDS),
            pending_acks: VecDeque::new(),
            backoff: Backoff::new(options.max_backoff),
            connected: false,
        })
    }

    /// Runs until the future is dropped (on a signal): it never ends by itself.
    pub async fn run(&mut self) -> Infallible {
        loop {
            self.deliver_pending_acks().await;
            if let Err(error) = self.session().await {
                self.connected = false;
                self.pause_after(&error).await;
            }
        }
    }

    /// One heartbeat, then long polls until the next heartbeat is due.
    async fn session(&mut self) -> Result<(), ApiError> {
        let facts = tokio::task::spawn_blocking(Facts::collect)
            .await
            .unwrap_or_else(|error| {
                tracing::warn!(%error, "collecting facts failed; sending the basic ones");
                Facts::minimal()
            });
        let answer = self.client.heartbeat(&facts).await?;
        // Already clamped to 1 s – 1 h when the answer was read.
        let interval = Duration::from_secs(answer.heartbeat_interval);
        let next_heartbeat = Instant::now() + interval;
        tracing::debug!(
            heartbeat_interval = interval.as_secs(),
            commands = answer.commands.len(),
            "heartbeat accepted"
        );
        self.succeeded();
        self.carry_out(answer.commands).await;
        loop {
            let now = Instant::now();
            if now >= next_heartbeat {
                return Ok(());
            }
            let commands = self
                .client
                .commands(long_poll_wait(next_heartbeat - now))
                .await?;
            self.succeeded();
            self.carry_out(commands).await;
        }
    }

    fn succeeded(&mut self) {
        self.backoff.reset();
        if !self.connected {
            self.connected = true;
            tracing::info!("connected to the server");
        }
    }

    /// Runs each command not seen before and acknowledges it.
    async fn carry_out(&mut self, commands: Vec<Command>) {
        for command in commands {
            if !self.handled.first_time(&command.id) {
                tracing::info!(id = %command.id, "command already carried out; skipping it");
                continue;
            }
            tracing::info!(
                id = %command.id,
                action = %command.action,
                issued_time = %command.issued_time,
                "carrying out a command"
            );
            let ack = self.runner.carry_out(&command).await;
            let pending = PendingAck {
                command_id: command.id,
                ack,
            };
            if let Err(pending) = self.deliver(pending).await {
                self.pending_acks.push_back(pending);
            }
        }
    }

    /// Retries the acknowledgements the server could not take earlier,
    /// oldest first, until one fails again.
    async fn deliver_pending_acks(&mut self) {
        while let Some(pending) = self.pending_acks.pop_front() {
            if let Err(pending) = self.deliver(pending).await {
                self.pending_acks.push_front(pending);
                break;
            }
        }
    }

    /// Sends an acknowledgement; gives it back if it should be tried again.
    async fn deliver(&self, pending: PendingAck) -> Result<(), PendingAck> {
        match self.client.ack(&pending.command_id, &pending.ack).await {
            Ok(()) => {
                tracing::info!(
                    id = %pending.command_id,
                    status = ?pending.ack.status,
                    detail = %pending.ack.detail,
                    "command acknowledged"
                );
                Ok(())
            }
            Err(error) if error.is_transient() => {
                tracing::warn!(id = %pending.command_id, %error, "acknowledgement not delivered; will retry");
                Err(pending)
            }
            Err(error) => {
                tracing::warn!(id = %pending.command_id, %error, "acknowledgement refused; dropping it");
                Ok(())
            }
        }
    }

    /// Waits after a failed heartbeat or long poll.
    async fn pause_after(&mut self, error: &ApiError) {
        let delay = match error {
            ApiError::Unauthorized { .. } => {
                let delay = self.backoff.max();
                tracing::error!(
                    %error,
                    retry_in_seconds = delay.as_secs_f64(),
                    "the server does not accept this device's token: the device was deleted, \
                     or installed again elsewhere; run `devmgr-agent install` to enrol it again"
                );
                delay
            }
            ApiError::Unavailable {
                retry_after: Some(retry_after),
                ..
            } => {
                self.backoff.next_delay();
                let delay = (*retry_after).max(Duration::from_secs(1));
                tracing::warn!(%error, retry_in_seconds = delay.as_secs_f64(), "server unavailable");
                delay
            }
            error if error.is_transient() => {
                let delay = self.backoff.next_delay();
                tracing::warn!(%error, retry_in_seconds = delay.as_secs_f64(), "server unavailable");
                delay
            }
            error => {
                let delay = self.backoff.next_delay();
                tracing::error!(%error, retry_in_seconds = delay.as_secs_f64(), "request refused");
                delay
            }
        };
        tokio::time::sleep(delay).await;
    }
}

/// The `wait` of a long poll when the next heartbeat is due in `left`: the
/// whole seconds left, rounded to the nearest (so that 29.99 s left is one
/// 30 s poll, not a 29 s poll and then a 1 s one), at least 1, at most
/// [`MAX_LONG_POLL_SECONDS`].
pub fn long_poll_wait(left: Duration) -> u64 {
    let rounded = (left + Duration::from_millis(500)).as_secs();
    rounded.clamp(1, MAX_LONG_POLL_SECONDS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_polls_wait_the_whole_seconds_left_within_bounds() {
        assert_eq!(long_poll_wait(Duration::from_millis(29_990)), 30);
        assert_eq!(long_poll_wait(Duration::from_secs(30)), 30);
        assert_eq!(long_poll_wait(Duration::from_millis(29_400)), 29);
        assert_eq!(long_poll_wait(Duration::from_millis(400)), 1);
        assert_eq!(long_poll_wait(Duration::ZERO), 1);
        assert_eq!(long_poll_wait(Duration::from_secs(600)), 60);
    }

    #[test]
    fn an_agent_needs_a_usable_server_url() {
        let config = Config {
            server: "not a url".to_owned(),
            serial: "s".to_owned(),
            device_token: "t".to_owned(),
        };
        let options = RunOptions {
            reboot_command: "true".to_owned(),
            reboot_timeout: Duration::from_secs(1),
            max_backoff: Duration::from_secs(1),
        };
        assert!(matches!(
            Agent::new(&config, options),
            Err(RunError::InvalidServer(_))
        ));
    }
}
