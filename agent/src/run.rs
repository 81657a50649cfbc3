//! The agent's loop: heartbeat, long-poll until the next heartbeat is due,
//! carry out and acknowledge commands, back off while the server is away,
//! and read the configuration again while it refuses the device token.

use crate::acknowledgements::Acknowledgements;
use crate::backoff::Backoff;
use crate::client::{ApiError, ClientSetupError, DeviceClient};
use crate::command_decision::{self, Decision};
use crate::command_journal::{self, CommandJournal};
use crate::commands::CommandRunner;
use crate::config::Config;
use crate::endpoints::{Endpoints, InvalidServerUrl};
use crate::facts::Facts;
use crate::file_change;
use crate::protocol::{Ack, Command};
use domain::PollWait;
use std::convert::Infallible;
use std::path::{Path, PathBuf};
use std::time::Duration;
use tokio::time::Instant;

/// The longest wait between attempts while the server refuses the device
/// token (401): an hour.
pub const MAX_UNAUTHORIZED_BACKOFF: Duration = Duration::from_secs(3600);

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

/// The running agent and what it remembers between heartbeats.
#[derive(Debug)]
pub struct Agent {
    config_path: PathBuf,
    config: Config,
    client: DeviceClient,
    runner: CommandRunner,
    journal: CommandJournal,
    acks: Acknowledgements,
    backoff: Backoff,
    /// Waits after 401: the device token may come back only with a new
    /// `devmgr-agent install`, so they grow longer, up to an hour.
    unauthorized_backoff: Backoff,
    connected: bool,
}

impl Agent {
    /// An agent for the device of `config`, read from `config_path`; the
    /// commands it carries out are recorded beside that file
    /// ([`command_journal::journal_path`]).
    pub fn new(config_path: &Path, config: &Config, options: RunOptions) -> Result<Self, RunError> {
        let client = device_client(config)?;
        let mut journal = CommandJournal::load(command_journal::journal_path(config_path));
        let interrupted = journal.finish_interrupted();
        for (id, ack) in &interrupted {
            tracing::info!(
                %id,
                status = ?ack.status,
                detail = %ack.detail,
                "the agent stopped (or the device restarted) while carrying out this command; \
                 it is not carried out again"
            );
        }
        if !interrupted.is_empty() {
            journal.save_or_warn();
        }
        let mut acks = Acknowledgements::default();
        for (id, ack) in journal.unreported() {
            acks.queue(id, ack);
        }
        Ok(Self {
            config_path: config_path.to_path_buf(),
            config: config.clone(),
            client,
            runner: CommandRunner::new(options.reboot_command, options.reboot_timeout),
            journal,
            acks,
            backoff: Backoff::new(options.max_backoff),
            unauthorized_backoff: Backoff::new(MAX_UNAUTHORIZED_BACKOFF),
            connected: false,
        })
    }

    /// Runs until the future is dropped (on a signal): it never ends by itself.
    pub async fn run(&mut self) -> Infallible {
        loop {
            self.acks
                .deliver_pending(&self.client, &mut self.journal)
                .await;
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
        self.unauthorized_backoff.reset();
        if !self.connected {
            self.connected = true;
            tracing::info!("connected to the server");
        }
    }

    /// Deals with each command in turn: carries out the new ones, and
    /// acknowledges again the ones already recorded.
    async fn carry_out(&mut self, commands: Vec<Command>) {
        for command in commands {
            match command_decision::decide(&self.journal, &command) {
                Decision::Run => self.carry_out_new(&command).await,
                Decision::Refuse(ack) => {
                    tracing::warn!(
                        id = %command.id,
                        action = %command.action,
                        issued_time = %command.issued_time,
                        "refusing a command this agent cannot carry out"
                    );
                    self.finish(&command, ack).await;
                }
                Decision::AcknowledgeAgain(ack) => self.acknowledge_again(&command, ack).await,
                Decision::Ignore => tracing::warn!(
                    id_bytes = command.id.len(),
                    "ignoring a command whose id is empty or too long"
                ),
            }
        }
    }

    /// Records the command as started (on disk, first), acknowledges
    /// `received`, carries it out, then records and acknowledges how it ended.
    async fn carry_out_new(&mut self, command: &Command) {
        tracing::info!(
            id = %command.id,
            action = %command.action,
            issued_time = %command.issued_time,
            "carrying out a command"
        );
        self.journal.record_started(command);
        // Even without a record on disk the command is carried out: the
        // `received` acknowledgement alone stops the server handing it out.
        self.journal.save_or_warn();
        Acknowledgements::send_received(&self.client, &command.id).await;
        let ack = self.runner.carry_out(command).await;
        self.finish(command, ack).await;
    }

    async fn finish(&mut self, command: &Command, ack: Ack) {
        self.journal.record_finished(command, &ack);
        self.journal.save_or_warn();
        self.acks
            .send_final(&self.client, &mut self.journal, &command.id, ack)
            .await;
    }

    /// Sends a recorded command's last acknowledgement again, so that the
    /// server stops handing it out, unless it already waits to be sent.
    async fn acknowledge_again(&mut self, command: &Command, ack: Ack) {
        tracing::info!(
            id = %command.id,
            status = ?ack.status,
            "command already carried out; acknowledging it again"
        );
        if !ack.is_final() {
            Acknowledgements::send_received(&self.client, &command.id).await;
        } else if !self.acks.is_pending(&command.id) {
            self.acks
                .send_final(&self.client, &mut self.journal, &command.id, ack)
                .await;
        }
    }

    /// Waits after a failed heartbeat or long poll.
    async fn pause_after(&mut self, error: &ApiError) {
        let delay = match error {
            ApiError::Unauthorized { .. } => {
                self.pause_while_unauthorized(error).await;
                return;
            }
            ApiError::Unavailable {
                retry_after: Some(retry_after),
                ..
            } => {
                self.backoff.next_delay();
                let delay = unavailable_delay(*retry_after);
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

    /// After 401: waits (1 s, 2 s, 4 s, … up to an hour, less if the
    /// configuration file changes meanwhile), then reads the configuration
    /// again, so that a `devmgr-agent install` run meanwhile takes effect.
    async fn pause_while_unauthorized(&mut self, error: &ApiError) {
        let delay = self.unauthorized_backoff.next_delay();
        tracing::error!(
            %error,
            retry_in_seconds = delay.as_secs_f64(),
            config = %self.config_path.display(),
            "the server does not accept this device's token: the device was deleted, \
             or installed again elsewhere; run `devmgr-agent install` to enrol it again \
             (this agent reads its configuration again before each attempt)"
        );
        file_change::sleep_until_changed(&self.config_path, delay).await;
        self.reload_config();
    }

    /// Reads the configuration file again and, when it changed, talks to its
    /// server with its device token from now on.
    fn reload_config(&mut self) {
        let config = match Config::load(&self.config_path) {
            Ok(config) => config,
            Err(error) => {
                tracing::warn!(%error, "keeping the configuration in use");
                return;
            }
        };
        if config == self.config {
            tracing::debug!("the configuration is unchanged");
            return;
        }
        match device_client(&config) {
            Ok(client) => {
                tracing::info!(
                    server = %config.server,
                    serial = %config.serial,
                    "the configuration changed; using its server and device token"
                );
                self.client = client;
                self.config = config;
                self.unauthorized_backoff.reset();
            }
            Err(error) => tracing::warn!(
                %error,
                "the new configuration cannot be used; keeping the one in use"
            ),
        }
    }
}

/// A client for the server and device token of `config`.
fn device_client(config: &Config) -> Result<DeviceClient, RunError> {
    let endpoints = Endpoints::new(&config.server)?;
    endpoints.warn_if_cleartext();
    Ok(DeviceClient::new(endpoints, &config.device_token)?)
}

/// The `wait` of a long poll when the next heartbeat is due in `left`: the
/// whole seconds left, rounded to the nearest (so that 29.99 s left is one
/// 30 s poll, not a 29 s poll and then a 1 s one), at least 1, at most
/// [`PollWait::MAX_SECS`].
pub fn long_poll_wait(left: Duration) -> PollWait {
    let rounded = (left + Duration::from_millis(500)).as_secs();
    PollWait::at_most(rounded.max(1))
}

/// The wait the server asked for with `Retry-After`: at least 1 s, at most
/// an hour, so no answer can silence the agent for good.
fn unavailable_delay(retry_after: Duration) -> Duration {
    retry_after.clamp(Duration::from_secs(1), crate::retry::MAX_RETRY_AFTER)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_retry_after_is_obeyed_between_a_second_and_an_hour() {
        assert_eq!(unavailable_delay(Duration::ZERO), Duration::from_secs(1));
        assert_eq!(
            unavailable_delay(Duration::from_secs(90)),
            Duration::from_secs(90)
        );
        assert_eq!(
            unavailable_delay(Duration::from_secs(u64::MAX)),
            Duration::from_secs(3600)
        );
    }

    #[test]
    fn long_polls_wait_the_whole_seconds_left_within_bounds() {
        assert_eq!(long_poll_wait(Duration::from_millis(29_990)).secs(), 30);
        assert_eq!(long_poll_wait(Duration::from_secs(30)).secs(), 30);
        assert_eq!(long_poll_wait(Duration::from_millis(29_400)).secs(), 29);
        assert_eq!(long_poll_wait(Duration::from_millis(400)).secs(), 1);
        assert_eq!(long_poll_wait(Duration::ZERO).secs(), 1);
        assert_eq!(long_poll_wait(Duration::from_secs(600)).secs(), 60);
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
            Agent::new(Path::new("config.json"), &config, options),
            Err(RunError::InvalidServer(_))
        ));
    }
}
