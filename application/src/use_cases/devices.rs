//! Listing, showing, editing, deleting and rebooting devices, and (for
//! operators) adding them.

use super::DevMgr;
use crate::ports::{CreateDeviceError, DeviceChanges, StoreError};
use domain::device::wormhole_slug;
use domain::{
    Account, CommandRecord, CommandState, Device, DeviceDescription, DeviceFacts, DeviceName,
    EmailAddress, Port, Serial,
};
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

impl DevMgr {
    fn view(&self, device: Device, now: domain::Timestamp) -> DeviceView {
        let online = device.is_online(now, self.settings.online_window);
        DeviceView { device, online }
    }

    /// Whether the account has a device with this serial.
    async fn owns(&self, owner: &Account, serial: &Serial) -> Result<bool, StoreError> {
        Ok(self
            .ports
            .devices
            .find_for(owner.id, serial)
            .await?
            .is_some())
    }

    /// Every device of the account, by creation time then serial.
    pub async fn list_devices(&self, owner: &Account) -> Result<Vec<DeviceView>, StoreError> {
        let devices = self.ports.devices.list_for(owner.id).await?;
        let now = self.ports.clock.now();
        Ok(devices
            .into_iter()
            .map(|device| self.view(device, now))
            .collect())
    }

    /// One device of the account; `None` for a missing or foreign device alike.
    pub async fn device(
        &self,
        owner: &Account,
        serial: &Serial,
    ) -> Result<Option<DeviceView>, StoreError> {
        let device = self.ports.devices.find_for(owner.id, serial).await?;
        let now = self.ports.clock.now();
        Ok(device.map(|device| self.view(device, now)))
    }

    /// Renames or describes one of the account's devices.
    pub async fn update_device(
        &self,
        owner: &Account,
        serial: &Serial,
        changes: DeviceChanges,
    ) -> Result<DeviceView, UpdateDeviceError> {
        let device = self
            .ports
            .devices
            .update(owner.id, serial, &changes)
            .await?
            .ok_or(UpdateDeviceError::NotFound)?;
        Ok(self.view(device, self.ports.clock.now()))
    }

    /// Deletes one of the account's devices; its device token ends with it.
    /// Returns whether the account had it.
    pub async fn delete_device(
        &self,
        owner: &Account,
        serial: &Serial,
    ) -> Result<bool, StoreError> {
        self.ports.devices.delete(owner.id, serial).await
    }

    /// The ports an account's device last reported; `None` for a missing or
    /// foreign device.
    pub async fn device_ports(
        &self,
        owner: &Account,
        serial: &Serial,
    ) -> Result<Option<Vec<Port>>, StoreError> {
        self.ports.devices.ports(owner.id, serial).await
    }

    /// The most recent commands of one of the account's devices (at most
    /// [`COMMAND_HISTORY`]), newest first, each with where it stands now;
    /// `None` for a missing or foreign device.
    pub async fn device_commands(
        &self,
        owner: &Account,
        serial: &Serial,
    ) -> Result<Option<Vec<CommandView>>, StoreError> {
        if !self.owns(owner, serial).await? {
            return Ok(None);
        }
        let records = self.ports.commands.history(serial, COMMAND_HISTORY).await?;
        let now = self.ports.clock.now();
        let lifetime = self.settings.command_lifetime;
        Ok(Some(
            records
                .into_iter()
                .map(|record| CommandView {
                    state: record.state(now, lifetime),
                    record,
                })
                .collect(),
        ))
    }

    /// Queues a reboot for one of the account's devices. A reboot that has
    /// not ended (pending, delivered or received) is not queued twice; either
    /// way the signal counts as dispatched.
    pub async fn reboot(&self, owner: &Account, serial: &Serial) -> Result<(), RebootError> {
        if !self.owns(owner, serial).await? {
            return Err(RebootError::NotFound);
        }
        let now = self.ports.clock.now();
        let command_id = Serial::from_random_bytes(self.random_bytes()).to_string();
        let lapse_before = now - self.settings.command_lifetime;
        self.ports
            .commands
            .queue_reboot(serial, &command_id, now, lapse_before)
            .await?;
        Ok(())
    }

    /// Adds a device to the account with the owner's address.
    pub async fn add_device(
        &self,
        owner: &EmailAddress,
        spec: DeviceSpec,
    ) -> Result<DeviceView, AddDeviceError> {
        let account = self
            .ports
            .accounts
            .find_by_email(owner)
            .await?
            .ok_or(AddDeviceError::UnknownOwner)?;
        let now = self.ports.clock.now();
        let serial = spec
            .serial
            .unwrap_or_else(|| Serial::from_random_bytes(self.random_bytes()));
        let device = Device {
            serial,
            owner: account.id,
            name: spec.name,
            description: spec.description,
            wormhole_slug: wormhole_slug(self.random_bytes()),
            facts: spec.facts,
            last_seen: spec.online.then_some(now),
            created_time: now,
        };
        self.ports
            .devices
            .create(&device)
            .await
            .map_err(|e| match e {
                CreateDeviceError::DuplicateSerial => AddDeviceError::DuplicateSerial,
                CreateDeviceError::Store(e) => AddDeviceError::Store(e),
            })?;
        Ok(self.view(device, now))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::use_cases::test_support::{Harness, account, device, email, now, text};
    use chrono::Duration;
    use domain::AccountId;
    use mockall::predicate::eq;

    #[tokio::test]
    async fn list_marks_devices_online_by_their_last_heartbeat() {
        let mut h = Harness::new();
        h.devices
            .expect_list_for()
            .with(eq(AccountId(7)))
            .returning(|_| {
                Ok(vec![
                    device(Some(now() - Duration::seconds(10))),
                    device(Some(now() - Duration::seconds(300))),
                    device(None),
                ])
            });
        let views = h.app().list_devices(&account(true, None)).await.unwrap();
        let online: Vec<bool> = views.iter().map(|v| v.online).collect();
        assert_eq!(online, [true, false, false]);
    }

    #[tokio::test]
    async fn detail_is_none_for_missing_or_foreign_devices() {
        let mut h = Harness::new();
        h.devices.expect_find_for().returning(|_, _| Ok(None));
        let serial = Serial::from_random_bytes([1; 16]);
        assert_eq!(
            h.app().device(&account(true, None), &serial).await.unwrap(),
            None
        );
    }

    #[tokio::test]
    async fn detail_of_an_own_device_carries_its_online_state() {
        let mut h = Harness::new();
        h.devices
            .expect_find_for()
            .withf(|owner, serial| owner.0 == 7 && *serial == Serial::from_random_bytes([3; 16]))
            .returning(|_, _| Ok(Some(device(Some(now())))));
        let serial = Serial::from_random_bytes([3; 16]);
        let view = h
            .app()
            .device(&account(true, None), &serial)
            .await
            .unwrap()
            .unwrap();
        assert!(view.online);
        assert_eq!(view.device.name, "pi");
    }

    #[tokio::test]
    async fn reboot_queues_a_command_that_lapses_after_ten_minutes() {
        let mut h = Harness::new();
        h.devices
            .expect_find_for()
            .returning(|_, _| Ok(Some(device(None))));
        h.commands
            .expect_queue_reboot()
            .withf(|_, id, at, lapse| {
                id.len() == 36 && *at == now() && *lapse == now() - Duration::minutes(10)
            })
            .times(1)
            .returning(|_, _, _, _| Ok(true));
        let serial = Serial::from_random_bytes([3; 16]);
        h.app().reboot(&account(true, None), &serial).await.unwrap();
    }

    #[tokio::test]
    async fn a_pending_reboot_still_counts_as_dispatched() {
        let mut h = Harness::new();
        h.devices
            .expect_find_for()
            .returning(|_, _| Ok(Some(device(None))));
        h.commands
            .expect_queue_reboot()
            .returning(|_, _, _, _| Ok(false));
        let serial = Serial::from_random_bytes([3; 16]);
        assert!(h.app().reboot(&account(true, None), &serial).await.is_ok());
    }

    #[tokio::test]
    async fn reboot_of_a_missing_device_is_not_found() {
        let mut h = Harness::new();
        h.devices.expect_find_for().returning(|_, _| Ok(None));
        h.commands.expect_queue_reboot().never();
        let serial = Serial::from_random_bytes([3; 16]);
        let err = h
            .app()
            .reboot(&account(true, None), &serial)
            .await
            .unwrap_err();
        assert!(matches!(err, RebootError::NotFound));
    }

    #[tokio::test]
    async fn the_command_history_is_the_owners_and_says_where_each_stands() {
        use domain::{Action, Command, CommandRecord, CommandState, CommandStatus};
        let record = |id: &str, minutes_ago: i64, status: Option<CommandStatus>| CommandRecord {
            command: Command {
                id: id.into(),
                action: Action::Reboot,
                issued_time: now() - Duration::minutes(minutes_ago),
            },
            delivered_time: None,
            acked_time: None,
            status,
            detail: text(""),
        };
        let mut h = Harness::new();
        let mut owned = vec![Ok(None), Ok(Some(device(None)))];
        h.devices
            .expect_find_for()
            .times(2)
            .returning(move |_, _| owned.pop().expect("two calls"));
        let records = vec![
            record("new", 1, None),
            record("old", 11, None),
            record("ok", 12, Some(CommandStatus::Done)),
        ];
        h.commands
            .expect_history()
            .withf(|_, limit| *limit == 100)
            .times(1)
            .returning(move |_, _| Ok(records.clone()));
        let app = h.app();
        let serial = Serial::from_random_bytes([3; 16]);
        let owner = account(true, None);
        let states: Vec<CommandState> = app
            .device_commands(&owner, &serial)
            .await
            .unwrap()
            .expect("an own device")
            .iter()
            .map(|view| view.state)
            .collect();
        assert_eq!(
            states,
            [
                CommandState::Pending,
                CommandState::Lapsed,
                CommandState::Done
            ]
        );
        assert!(
            app.device_commands(&owner, &serial)
                .await
                .unwrap()
                .is_none()
        );
    }

    #[tokio::test]
    async fn reboot_surfaces_storage_failures() {
        let mut h = Harness::new();
        h.devices
            .expect_find_for()
            .returning(|_, _| Err(StoreError::message("gone")));
        let serial = Serial::from_random_bytes([3; 16]);
        let err = h
            .app()
            .reboot(&account(true, None), &serial)
            .await
            .unwrap_err();
        assert!(matches!(err, RebootError::Store(_)));
    }

    #[tokio::test]
    async fn update_stores_the_changes_for_the_owner_only() {
        let mut h = Harness::new();
        let mut results = vec![Ok(None), Ok(Some(device(Some(now()))))];
        h.devices
            .expect_update()
            .withf(|owner, _, changes| {
                *owner == AccountId(7)
                    && changes.name.as_ref().is_some_and(|name| name == "attic")
                    && changes.description.is_none()
            })
            .times(2)
            .returning(move |_, _, _| results.pop().expect("two calls"));
        let app = h.app();
        let serial = Serial::from_random_bytes([3; 16]);
        let changes = DeviceChanges {
            name: Some(text("attic")),
            description: None,
        };
        let view = app
            .update_device(&account(true, None), &serial, changes.clone())
            .await
            .unwrap();
        assert!(view.online);
        assert!(matches!(
            app.update_device(&account(true, None), &serial, changes)
                .await,
            Err(UpdateDeviceError::NotFound)
        ));
    }

    fn spec(name: &str) -> DeviceSpec {
        DeviceSpec {
            name: text(name),
            serial: None,
            description: text(""),
            facts: DeviceFacts::default(),
            online: false,
        }
    }

    #[tokio::test]
    async fn add_device_stores_it_for_the_owner() {
        let mut h = Harness::new();
        h.accounts
            .expect_find_by_email()
            .returning(|_| Ok(Some(account(true, None))));
        h.devices
            .expect_create()
            .withf(|d| d.owner == AccountId(7) && d.name == "kitchen" && d.last_seen == Some(now()))
            .times(1)
            .returning(|_| Ok(()));
        let spec = DeviceSpec {
            online: true,
            ..spec("kitchen")
        };
        let view = h.app().add_device(&email(), spec).await.unwrap();
        assert!(view.online);
        assert_eq!(view.device.created_time, now());
    }

    #[tokio::test]
    async fn add_device_refuses_unknown_owners_and_taken_serials() {
        let mut h = Harness::new();
        let mut owners = vec![Ok(Some(account(true, None))), Ok(None)];
        h.accounts
            .expect_find_by_email()
            .returning(move |_| owners.pop().expect("two calls"));
        h.devices
            .expect_create()
            .returning(|_| Err(CreateDeviceError::DuplicateSerial));
        let app = h.app();
        let spec = spec("n");
        assert!(matches!(
            app.add_device(&email(), spec.clone()).await,
            Err(AddDeviceError::UnknownOwner)
        ));
        assert!(matches!(
            app.add_device(&email(), spec).await,
            Err(AddDeviceError::DuplicateSerial)
        ));
    }
}
