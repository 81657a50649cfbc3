//! The device side: enrolment with an install token, device credentials,
//! heartbeats, handing out commands (with a long poll) and their outcomes.

use super::secrets::Secrets;
use crate::ports::{
    AccountRepository, Clock, CommandRepository, DeviceRepository, EnrolError, Enrolment,
    FleetSignals, StoreError,
};
use domain::command::{REDELIVERY_AFTER, heartbeat_interval};
use domain::device::wormhole_slug;
use domain::secret::SecretHash;
use domain::{
    Actor, AuditAction, AuditNote, AuditTarget, Command, CommandId, CommandOutcome, Device,
    DeviceName, FactsReport, InstallToken, MachineType, Origin, PollWait, Serial,
};
use std::sync::Arc;
use std::time::Duration;
use thiserror::Error;

/// What an agent sends to enrol its device.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InstallRequest {
    /// The account's install token.
    pub install_token: InstallToken,
    /// The device's name.
    pub name: DeviceName,
    /// The device's serial; a random one when absent.
    pub serial: Option<Serial>,
    /// The device's hardware, when known.
    pub machine_type: Option<MachineType>,
    /// The client's address, as throttling takes it.
    pub address: Option<std::net::IpAddr>,
}

/// An enrolled device and its new credential.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Installed {
    /// The device as stored.
    pub device: Device,
    /// The device token, shown once.
    pub device_token: String,
}

/// Why a device could not enrol.
#[derive(Debug, Error)]
pub enum InstallError {
    /// No account has this install token.
    #[error("invalid install token")]
    InvalidInstallToken,
    /// The account's address is not verified yet: whoever registered it may
    /// not own it, so it cannot enrol devices.
    #[error("the account's e-mail address is not verified")]
    Unverified,
    /// The serial belongs to another account's device.
    #[error("this serial belongs to another account")]
    ForeignSerial,
    /// The account's device with this serial is online: re-keying it would
    /// take it from its running agent.
    #[error("this device is online")]
    Online,
    /// Infrastructure failure.
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// The answer to a heartbeat.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HeartbeatReply {
    /// Commands handed out with it.
    pub commands: Vec<Command>,
    /// Seconds within which the next heartbeat should come.
    pub heartbeat_interval: i64,
}

/// The device side: enrolment, device credentials, heartbeats, commands.
#[derive(Clone)]
pub struct Fleet {
    pub(super) accounts: Arc<dyn AccountRepository>,
    pub(super) devices: Arc<dyn DeviceRepository>,
    pub(super) commands: Arc<dyn CommandRepository>,
    pub(super) clock: Arc<dyn Clock>,
    pub(super) secrets: Secrets,
    pub(super) signals: Arc<dyn FleetSignals>,
    pub(super) online_window: chrono::Duration,
    pub(super) command_lifetime: chrono::Duration,
}

impl Fleet {
    /// Enrols a device in the account of the install token, or re-keys the
    /// account's device with that serial while it is offline. The old device
    /// token, if any, ends. Only verified accounts enrol devices.
    pub async fn install(&self, request: InstallRequest) -> Result<Installed, InstallError> {
        let account = self
            .accounts
            .find_by_install_token(&request.install_token)
            .await?
            .ok_or(InstallError::InvalidInstallToken)?;
        if !account.email_verified {
            return Err(InstallError::Unverified);
        }
        let token = self.secrets.mint_api_token();
        let now = self.clock.now();
        let enrolment = Enrolment {
            owner: account.id,
            serial: request
                .serial
                .unwrap_or_else(|| Serial::from_random_bytes(self.secrets.random_bytes())),
            name: request.name,
            machine_type: request.machine_type,
            token: token.hash,
            wormhole_slug: wormhole_slug(self.secrets.random_bytes()),
            now,
            online_after: now - self.online_window,
        };
        let audit = AuditNote::new(
            Origin::new(now, Actor::device(&enrolment.serial), request.address),
            AuditAction::DeviceInstall,
            AuditTarget::device(&enrolment.serial),
        );
        let device = self
            .devices
            .enroll(&enrolment, &audit)
            .await
            .map_err(|e| match e {
                EnrolError::ForeignSerial => InstallError::ForeignSerial,
                EnrolError::Online => InstallError::Online,
                EnrolError::Store(e) => InstallError::Store(e),
            })?;
        self.signals.announce(account.id).await;
        Ok(Installed {
            device,
            device_token: token.secret,
        })
    }

    /// Whether an account has this install token.
    pub async fn install_token_exists(
        &self,
        install_token: &InstallToken,
    ) -> Result<bool, StoreError> {
        Ok(self
            .accounts
            .find_by_install_token(install_token)
            .await?
            .is_some())
    }

    /// The device a device token belongs to, if it is current.
    pub async fn authenticate(&self, token: &str) -> Result<Option<Device>, StoreError> {
        self.devices.find_by_token(&SecretHash::of(token)).await
    }

    /// Records a heartbeat with its facts (the device is online from now)
    /// and hands out the pending commands. A device that was offline coming
    /// online is announced to whoever watches its fleet.
    pub async fn heartbeat(
        &self,
        device: &Device,
        report: FactsReport,
    ) -> Result<HeartbeatReply, StoreError> {
        let mut report = report;
        report.ports = report.ports.map(domain::listening_port::normalize_ports);
        let now = self.clock.now();
        self.devices
            .record_heartbeat(&device.serial, &report, now)
            .await?;
        if !device.is_online(now, self.online_window) {
            self.signals.announce(device.owner).await;
        }
        let commands = self.take_commands(device).await?;
        Ok(HeartbeatReply {
            commands,
            heartbeat_interval: heartbeat_interval(self.online_window),
        })
    }

    /// Hands out the device's due commands as soon as there are any, waiting
    /// at most `wait` for one. The wait is woken by the queuing itself (or the
    /// device's deletion), not by polling, and ends when a command handed out
    /// earlier and never acknowledged falls due again. After a wake-up the
    /// answer may be empty (another poll of the same device took the command
    /// first, it was acknowledged meanwhile, or the device is gone); agents
    /// simply poll again.
    pub async fn poll_commands(
        &self,
        device: &Device,
        wait: PollWait,
    ) -> Result<Vec<Command>, StoreError> {
        let wait = wait.duration();
        let mut listener = self.commands.listen(&device.serial);
        let commands = self.take_commands(device).await?;
        if !commands.is_empty() || wait.is_zero() {
            return Ok(commands);
        }
        let wait = match self.until_redelivery(&device.serial).await? {
            Some(due) => wait.min(due),
            None => wait,
        };
        listener.wait(wait).await;
        self.take_commands(device).await
    }

    /// How long until a command handed out and never acknowledged is due
    /// again, if there is one.
    async fn until_redelivery(&self, serial: &Serial) -> Result<Option<Duration>, StoreError> {
        let now = self.clock.now();
        let delivered = self
            .commands
            .last_unacknowledged_delivery(serial, now - self.command_lifetime)
            .await?;
        Ok(delivered.map(|at| {
            // Times are stored in whole seconds: a little past the due second.
            let due = at + REDELIVERY_AFTER - now + chrono::Duration::milliseconds(20);
            due.to_std().unwrap_or(Duration::ZERO)
        }))
    }

    /// Records what the agent reports of one of the device's commands:
    /// `received` while nothing is reported yet, then `done` or `failed`
    /// (the first of those counts). Returns whether the device has a command
    /// with this id.
    pub async fn acknowledge(
        &self,
        device: &Device,
        command_id: &CommandId,
        outcome: CommandOutcome,
    ) -> Result<bool, StoreError> {
        let now = self.clock.now();
        let known = self
            .commands
            .acknowledge(&device.serial, command_id, &outcome, now)
            .await?;
        if known {
            self.signals.announce(device.owner).await;
        }
        Ok(known)
    }

    /// Hands out the device's due commands: new ones, and ones handed out
    /// [`REDELIVERY_AFTER`] ago or longer without an acknowledgement.
    /// Handing one out changes its status, which is announced.
    async fn take_commands(&self, device: &Device) -> Result<Vec<Command>, StoreError> {
        let now = self.clock.now();
        let commands = self
            .commands
            .take_due(
                &device.serial,
                now,
                now - self.command_lifetime,
                now - REDELIVERY_AFTER,
            )
            .await?;
        if !commands.is_empty() {
            self.signals.announce(device.owner).await;
        }
        Ok(commands)
    }
}

#[cfg(test)]
mod tests;
