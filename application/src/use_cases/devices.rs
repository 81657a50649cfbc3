//! Listing, showing, editing, deleting and rebooting devices, and (for
//! operators) adding them.

use super::Requester;
use super::secrets::Secrets;
use crate::ports::{
    AccountRepository, Clock, CommandRepository, CreateDeviceError, DeviceChanges,
    DeviceRepository, FleetSignals, StoreError,
};
use chrono::Duration;
use domain::device::wormhole_slug;
use domain::{
    Account, AuditAction, AuditNote, AuditTarget, CommandId, CommandRecord, CommandState, Device,
    DeviceDescription, DeviceFacts, DeviceName, EmailAddress, Origin, Port, Serial, TagSet,
};
use std::sync::Arc;
use thiserror::Error;

/// A device with its online state as of the request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeviceView {
    /// The stored device.
    pub device: Device,
    /// Whether its last heartbeat is within the online window.
    pub online: bool,
}

/// How many of a device's commands its history shows.
pub const COMMAND_HISTORY: usize = 100;

/// A command of a device's history, with where it stands now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommandView {
    /// The command as stored.
    pub record: CommandRecord,
    /// Where it stands.
    pub state: CommandState,
}

/// Why a reboot could not be requested.
#[derive(Debug, Error)]
pub enum RebootError {
    /// No such device in the account.
    #[error("device not found")]
    NotFound,
    /// Infrastructure failure.
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// Why a device could not be edited.
#[derive(Debug, Error)]
pub enum UpdateDeviceError {
    /// No such device in the account.
    #[error("device not found")]
    NotFound,
    /// Infrastructure failure.
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// A device an operator adds from the command line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeviceSpec {
    /// Name.
    pub name: DeviceName,
    /// A serial to use instead of a random one.
    pub serial: Option<Serial>,
    /// Description.
    pub description: DeviceDescription,
    /// Facts as an agent would report them.
    pub facts: DeviceFacts,
    /// Whether to record a heartbeat now, so the device shows online.
    pub online: bool,
    /// Its tags.
    pub tags: TagSet,
}

/// Why a device could not be added.
#[derive(Debug, Error)]
pub enum AddDeviceError {
    /// No account has the owner's address.
    #[error("no account has this e-mail address")]
    UnknownOwner,
    /// The serial is taken.
    #[error("a device with this serial already exists")]
    DuplicateSerial,
    /// Infrastructure failure.
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// An account's devices: listing, editing, deleting, rebooting; adding them (operators).
#[derive(Clone)]
pub struct Devices {
    pub(super) accounts: Arc<dyn AccountRepository>,
    pub(super) devices: Arc<dyn DeviceRepository>,
    pub(super) commands: Arc<dyn CommandRepository>,
    pub(super) clock: Arc<dyn Clock>,
    pub(super) secrets: Secrets,
    pub(super) signals: Arc<dyn FleetSignals>,
    pub(super) online_window: Duration,
    pub(super) command_lifetime: Duration,
}

impl Devices {
    fn view(&self, device: Device, now: domain::Timestamp) -> DeviceView {
        let online = device.is_online(now, self.online_window);
        DeviceView { device, online }
    }

    /// Whether the account has a device with this serial.
    async fn owns(&self, owner: &Account, serial: &Serial) -> Result<bool, StoreError> {
        self.devices.owns(owner.id, serial).await
    }

    /// Every device of the account, by creation time then serial.
    pub async fn list(&self, owner: &Account) -> Result<Vec<DeviceView>, StoreError> {
        let devices = self.devices.list_for(owner.id).await?;
        let now = self.clock.now();
        Ok(devices
            .into_iter()
            .map(|device| self.view(device, now))
            .collect())
    }

    /// One device of the account; `None` for a missing or foreign device alike.
    pub async fn get(
        &self,
        owner: &Account,
        serial: &Serial,
    ) -> Result<Option<DeviceView>, StoreError> {
        let device = self.devices.find_for(owner.id, serial).await?;
        let now = self.clock.now();
        Ok(device.map(|device| self.view(device, now)))
    }

    /// Renames or describes one of the account's devices.
    pub async fn update(
        &self,
        by: Requester<'_>,
        serial: &Serial,
        changes: DeviceChanges,
    ) -> Result<DeviceView, UpdateDeviceError> {
        let now = self.clock.now();
        let device = self
            .devices
            .update(by.account.id, serial, &changes, &by.origin(now))
            .await?
            .ok_or(UpdateDeviceError::NotFound)?;
        self.signals.announce(by.account.id).await;
        Ok(self.view(device, now))
    }

    /// Deletes one of the account's devices; its device token ends with it.
    /// Returns whether the account had it.
    pub async fn delete(&self, by: Requester<'_>, serial: &Serial) -> Result<bool, StoreError> {
        let audit = by.note(
            self.clock.now(),
            AuditAction::DeviceDelete,
            AuditTarget::device(serial),
        );
        let deleted = self.devices.delete(by.account.id, serial, &audit).await?;
        if deleted {
            self.signals.announce(by.account.id).await;
        }
        Ok(deleted)
    }

    /// The ports an account's device last reported; `None` for a missing or
    /// foreign device.
    pub async fn ports(
        &self,
        owner: &Account,
        serial: &Serial,
    ) -> Result<Option<Vec<Port>>, StoreError> {
        self.devices.ports(owner.id, serial).await
    }

    /// The most recent commands of one of the account's devices (at most
    /// [`COMMAND_HISTORY`]), newest first, each with where it stands now;
    /// `None` for a missing or foreign device.
    pub async fn commands(
        &self,
        owner: &Account,
        serial: &Serial,
    ) -> Result<Option<Vec<CommandView>>, StoreError> {
        if !self.owns(owner, serial).await? {
            return Ok(None);
        }
        Ok(Some(self.history(serial).await?))
    }

    /// The most recent commands of a device already found in the caller's
    /// account (by [`get`](Self::get)), as [`commands`](Self::commands)
    /// lists them, without looking the device up again.
    pub async fn commands_of(&self, device: &DeviceView) -> Result<Vec<CommandView>, StoreError> {
        self.history(&device.device.serial).await
    }

    /// One command of one of the account's devices, with where it stands
    /// now; `None` for a missing or foreign device, and for an id that is
    /// not one of the device's commands.
    pub async fn command(
        &self,
        owner: &Account,
        serial: &Serial,
        id: &CommandId,
    ) -> Result<Option<CommandView>, StoreError> {
        let record = self.commands.find_command(owner.id, serial, id).await?;
        let now = self.clock.now();
        Ok(record.map(|record| self.command_view(record, now)))
    }

    async fn history(&self, serial: &Serial) -> Result<Vec<CommandView>, StoreError> {
        let records = self.commands.history(serial, COMMAND_HISTORY).await?;
        let now = self.clock.now();
        Ok(records
            .into_iter()
            .map(|record| self.command_view(record, now))
            .collect())
    }

    fn command_view(&self, record: CommandRecord, now: domain::Timestamp) -> CommandView {
        CommandView {
            state: record.state(now, self.command_lifetime),
            record,
        }
    }

    /// Queues a reboot for one of the account's devices. A reboot that has
    /// not ended (pending, delivered or received) is not queued twice; either
    /// way the signal counts as dispatched. Returns the command that stands
    /// for the reboot: the new one, or the unfinished one it joined.
    pub async fn reboot(
        &self,
        by: Requester<'_>,
        serial: &Serial,
    ) -> Result<CommandView, RebootError> {
        let owner = by.account;
        if !self.owns(owner, serial).await? {
            return Err(RebootError::NotFound);
        }
        let now = self.clock.now();
        let command_id = CommandId::from_random_bytes(self.secrets.random_bytes());
        let lapse_before = now - self.command_lifetime;
        let reboot = self
            .commands
            .queue_reboot(
                serial,
                &command_id,
                now,
                lapse_before,
                Some(&by.origin(now)),
            )
            .await?;
        if reboot.queued {
            self.signals.announce(owner.id).await;
        }
        Ok(self.command_view(reboot.command, now))
    }

    /// Adds a device to the account with the owner's address.
    pub async fn add(
        &self,
        owner: &EmailAddress,
        spec: DeviceSpec,
    ) -> Result<DeviceView, AddDeviceError> {
        let account = self
            .accounts
            .find_by_email(owner)
            .await?
            .ok_or(AddDeviceError::UnknownOwner)?;
        let now = self.clock.now();
        let serial = spec
            .serial
            .unwrap_or_else(|| Serial::from_random_bytes(self.secrets.random_bytes()));
        let device = Device {
            serial,
            owner: account.id,
            name: spec.name,
            description: spec.description,
            wormhole_slug: wormhole_slug(self.secrets.random_bytes()),
            facts: spec.facts,
            tags: spec.tags,
            last_seen: spec.online.then_some(now),
            created_time: now,
        };
        let audit = AuditNote::new(
            Origin::cli(now),
            AuditAction::DeviceCreate,
            AuditTarget::device(&device.serial),
        );
        self.devices
            .create(&device, &audit)
            .await
            .map_err(|e| match e {
                CreateDeviceError::DuplicateSerial => AddDeviceError::DuplicateSerial,
                CreateDeviceError::Store(e) => AddDeviceError::Store(e),
            })?;
        self.signals.announce(account.id).await;
        Ok(self.view(device, now))
    }
}

mod relisting;
mod selection;
pub use relisting::{ListingStamp, Relisted};
pub use selection::{DevicesPage, Listing, PREVIEW, RetagError};

#[cfg(test)]
mod reboot_tests;
#[cfg(test)]
mod relisting_tests;
#[cfg(test)]
mod selection_tests;
#[cfg(test)]
mod tests;
