//! The ports of devices: devices with their credentials and facts, and their commands.

use async_trait::async_trait;
#[cfg(any(test, feature = "mocks"))]
use mockall::automock;

use super::StoreError;
use domain::secret::SecretHash;
use domain::{
    AccountId, AuditNote, Command, CommandId, CommandOutcome, CommandRecord, Device,
    DeviceDescription, DeviceName, DeviceOrdering, FactsReport, MachineType, Origin, Port,
    Selector, Serial, TagChange, TagCount, TagSet, Timestamp,
};
use thiserror::Error;

/// Why a device could not be created.
#[derive(Debug, Error)]
pub enum CreateDeviceError {
    /// A device with this serial exists (in any account).
    #[error("a device with this serial already exists")]
    DuplicateSerial,
    /// Storage failed.
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// Changes to the fields a user may edit; `None` keeps a field as it is.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct DeviceChanges {
    /// A new name.
    pub name: Option<DeviceName>,
    /// A new description.
    pub description: Option<DeviceDescription>,
    /// New tags, replacing the old set.
    pub tags: Option<TagSet>,
}

impl DeviceChanges {
    /// The fields whose value these changes alter on `before`, as a
    /// `device.update` entry names them.
    pub fn fields_changed_from(&self, before: &Device) -> Vec<&'static str> {
        [
            (
                "name",
                self.name.as_ref().is_some_and(|name| *name != before.name),
            ),
            (
                "description",
                self.description
                    .as_ref()
                    .is_some_and(|description| *description != before.description),
            ),
            (
                "tags",
                self.tags.as_ref().is_some_and(|tags| *tags != before.tags),
            ),
        ]
        .into_iter()
        .filter_map(|(field, changed)| changed.then_some(field))
        .collect()
    }
}

/// One page of a listing: `limit` devices after the first `offset`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Window {
    /// At most this many devices (1–1000).
    pub limit: u32,
    /// After skipping this many.
    pub offset: u64,
}

/// What to list: the selected devices in an order, all of them or one page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeviceQuery {
    /// Which devices.
    pub selector: Selector,
    /// In what order.
    pub ordering: DeviceOrdering,
    /// Which of them (`None`: all).
    pub window: Option<Window>,
    /// A device whose last heartbeat is later than this is online (for the
    /// selector's `online`).
    pub online_after: Timestamp,
}

/// Some of the selected devices, and how many were selected in all.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DevicePage {
    /// How many devices the selector selects.
    pub count: u64,
    /// Those in the query's window, in its order.
    pub devices: Vec<Device>,
}

/// An account's fleet version: a number the store moves on whenever a
/// change of the account's devices or of their tags is committed, by any
/// process or statement; equal versions mean the same devices and tags.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct FleetVersion(pub i64);

/// What a bulk change of tags came to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Retagged {
    /// Every selected device was changed; this many were selected.
    Matched(u64),
    /// A selected device would carry more than 20 tags: nothing was changed.
    TooManyTags,
}

/// A device enrolling through its agent, or enrolling again.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Enrolment {
    /// The account of the install token.
    pub owner: AccountId,
    /// The device's serial.
    pub serial: Serial,
    /// Its name.
    pub name: DeviceName,
    /// Its machine type, when the agent sent one.
    pub machine_type: Option<MachineType>,
    /// The hash of its new device token.
    pub token: SecretHash,
    /// A wormhole slug, used only when the device is new.
    pub wormhole_slug: String,
    /// Now: the creation time of a new device.
    pub now: Timestamp,
    /// A device whose last heartbeat is later than this is online, and is
    /// not re-keyed.
    pub online_after: Timestamp,
}

/// Why a device could not enrol.
#[derive(Debug, Error)]
pub enum EnrolError {
    /// The serial belongs to a device of another account.
    #[error("this serial belongs to another account")]
    ForeignSerial,
    /// The account's device with this serial is online: re-keying it would
    /// cut off the running agent.
    #[error("this device is online")]
    Online,
    /// Storage failed.
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// Devices.
#[cfg_attr(any(test, feature = "mocks"), automock)]
#[async_trait]
pub trait DeviceRepository: Send + Sync {
    /// Every device of the account, by creation time then serial.
    async fn list_for(&self, owner: AccountId) -> Result<Vec<Device>, StoreError>;
    /// The account's devices the query selects, in its order and window,
    /// with their count, in one query (whatever the fleet's size; a window
    /// past the end may take a second one for the count).
    async fn query(&self, owner: AccountId, query: &DeviceQuery) -> Result<DevicePage, StoreError>;
    /// The account's [`FleetVersion`] as of now (the last commit), or
    /// `None` when this store keeps none, so that every listing is read
    /// afresh. Read it before the devices it vouches for: devices read
    /// after it are at least as new.
    async fn fleet_version(&self, owner: AccountId) -> Result<Option<FleetVersion>, StoreError>;
    /// Every tag on at least one of the account's devices, by name, with
    /// how many carry it.
    async fn tag_counts(&self, owner: AccountId) -> Result<Vec<TagCount>, StoreError>;
    /// Atomically: each device of the account the selector selects (online
    /// as of `online_after`) loses the change's `remove` tags, then gains its
    /// `add` tags; or, when one would carry more than 20, nothing changes.
    /// Concurrent changes never interleave on one device. Each device whose
    /// tags changed gets a `device.update` entry by `origin` (`{"changed":
    /// ["tags"]}`), in the same transaction, in serial order.
    async fn retag(
        &self,
        owner: AccountId,
        selector: &Selector,
        online_after: Timestamp,
        change: &TagChange,
        origin: &Origin,
    ) -> Result<Retagged, StoreError>;
    /// One device, only if it belongs to `owner`.
    async fn find_for(
        &self,
        owner: AccountId,
        serial: &Serial,
    ) -> Result<Option<Device>, StoreError>;
    /// Whether the device exists and belongs to `owner`: what
    /// [`find_for`](Self::find_for) tells by `Some`, without reading the
    /// device.
    async fn owns(&self, owner: AccountId, serial: &Serial) -> Result<bool, StoreError>;
    /// Stores a new device. Must return [`CreateDeviceError::DuplicateSerial`]
    /// when the serial is taken. Appends `audit`.
    async fn create(&self, device: &Device, audit: &AuditNote) -> Result<(), CreateDeviceError>;
    /// Applies the changes to a device of `owner`; the updated device, or
    /// `None` when `owner` has no such device. When a value changed, appends
    /// a `device.update` entry by `origin` naming the fields that did.
    async fn update(
        &self,
        owner: AccountId,
        serial: &Serial,
        changes: &DeviceChanges,
        origin: &Origin,
    ) -> Result<Option<Device>, StoreError>;
    /// Deletes a device of `owner` with its credential, ports and commands,
    /// and wakes its long polls; appends `audit` when there was one.
    /// Returns whether there was one.
    async fn delete(
        &self,
        owner: AccountId,
        serial: &Serial,
        audit: &AuditNote,
    ) -> Result<bool, StoreError>;
    /// The ports last reported for a device of `owner` (ascending); `None`
    /// when `owner` has no such device.
    async fn ports(
        &self,
        owner: AccountId,
        serial: &Serial,
    ) -> Result<Option<Vec<Port>>, StoreError>;
    /// Atomically: creates the device with the given token, or, when the
    /// owner already has a device with this serial and it is offline, gives
    /// it the new token (ending the old one), the name, and the machine type
    /// when sent. Returns the device as stored; [`EnrolError::Online`] when
    /// the device is online. Appends `audit` when it enrolled.
    async fn enroll(&self, enrolment: &Enrolment, audit: &AuditNote) -> Result<Device, EnrolError>;
    /// The device a device token belongs to, if the token is current.
    async fn find_by_token(&self, token: &SecretHash) -> Result<Option<Device>, StoreError>;
    /// Records a heartbeat at `now` and takes over the facts (and ports)
    /// it reports.
    async fn record_heartbeat(
        &self,
        serial: &Serial,
        report: &FactsReport,
        now: Timestamp,
    ) -> Result<(), StoreError>;
}

/// Waits for commands queued for one device (see [`CommandRepository::listen`]).
#[cfg_attr(any(test, feature = "mocks"), automock)]
#[async_trait]
pub trait CommandListener: Send {
    /// Returns once a command may have been queued for the device since the
    /// listener was made, or after `timeout`.
    async fn wait(&mut self, timeout: std::time::Duration);
}

/// What a reboot request came to: the command that now stands for it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QueuedReboot {
    /// The command queued, or the unfinished reboot the request joined.
    pub command: CommandRecord,
    /// Whether the command was queued by this request (`false`: joined).
    pub queued: bool,
}

/// Commands waiting for devices.
#[cfg_attr(any(test, feature = "mocks"), automock)]
#[async_trait]
pub trait CommandRepository: Send + Sync {
    /// Queues a reboot `command_id` for the device, issued at `now`, unless
    /// one issued after `lapse_before` has not ended yet (pending, delivered
    /// or received): then that one (the latest, if several) is returned, not
    /// queued. Wakes the device's listeners when a command is queued. The
    /// check and the queuing are atomic: of racing requests, one queues and
    /// the others join its command. With `origin` (a person's request, not
    /// a job's wave), appends a `device.reboot` entry naming the command
    /// returned, queued or joined.
    // Named lifetimes: mockall cannot mock an elided one inside `Option<&_>`.
    async fn queue_reboot<'s, 'd, 'c, 'o>(
        &'s self,
        device: &'d Serial,
        command_id: &'c CommandId,
        now: Timestamp,
        lapse_before: Timestamp,
        origin: Option<&'o Origin>,
    ) -> Result<QueuedReboot, StoreError>;
    /// One command of a device of `owner`, by id, in one query; `None` when
    /// `owner` has no such device or the device has no command with this id.
    async fn find_command(
        &self,
        owner: AccountId,
        device: &Serial,
        command_id: &CommandId,
    ) -> Result<Option<CommandRecord>, StoreError>;
    /// Hands out the device's commands that are due, oldest first: never
    /// acknowledged, issued after `lapse_before`, and either never handed out
    /// or last handed out at or before `redeliver_before`. Each is marked
    /// delivered at `now`; of polls racing for one command, one gets it.
    async fn take_due(
        &self,
        device: &Serial,
        now: Timestamp,
        lapse_before: Timestamp,
        redeliver_before: Timestamp,
    ) -> Result<Vec<Command>, StoreError>;
    /// When the earliest of the device's commands that were handed out and
    /// never acknowledged (issued after `lapse_before`) was last handed out:
    /// it is due again a redelivery period later.
    async fn last_unacknowledged_delivery(
        &self,
        device: &Serial,
        lapse_before: Timestamp,
    ) -> Result<Option<Timestamp>, StoreError>;
    /// Records what the agent reports of a command of the device: `received`
    /// only while nothing is reported yet, `done` or `failed` unless one of
    /// them is reported already. Returns whether the device has a command
    /// with this id.
    async fn acknowledge(
        &self,
        device: &Serial,
        command_id: &CommandId,
        outcome: &CommandOutcome,
        now: Timestamp,
    ) -> Result<bool, StoreError>;
    /// The device's `limit` most recently requested commands, newest first
    /// (in the order they were requested, also within one second).
    async fn history(
        &self,
        device: &Serial,
        limit: usize,
    ) -> Result<Vec<CommandRecord>, StoreError>;
    /// Forgets commands issued before `issued_before` (acknowledged or lapsed
    /// long ago).
    async fn purge_commands(&self, issued_before: Timestamp) -> Result<(), StoreError>;
    /// Starts listening for commands queued for the device from now on.
    /// Listen before looking for pending commands, so none slips between.
    fn listen(&self, device: &Serial) -> Box<dyn CommandListener>;
}
