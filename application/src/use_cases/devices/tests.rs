//! Unit tests of [`super`], over mocked ports.

use super::reboot_tests::reboot_command;
use super::*;
use crate::use_cases::test_support::{Harness, account, by, device, email, now, text};
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
    let views = h.app().devices.list(&account(true, None)).await.unwrap();
    let online: Vec<bool> = views.iter().map(|v| v.online).collect();
    assert_eq!(online, [true, false, false]);
}

#[tokio::test]
async fn detail_is_none_for_missing_or_foreign_devices() {
    let mut h = Harness::new();
    h.devices.expect_find_for().returning(|_, _| Ok(None));
    let serial = Serial::from_random_bytes([1; 16]);
    assert_eq!(
        h.app()
            .devices
            .get(&account(true, None), &serial)
            .await
            .unwrap(),
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
        .devices
        .get(&account(true, None), &serial)
        .await
        .unwrap()
        .unwrap();
    assert!(view.online);
    assert_eq!(view.device.name, "pi");
}

#[tokio::test]
async fn the_command_history_is_the_owners_and_says_where_each_stands() {
    use domain::{Action, Command, CommandRecord, CommandState, CommandStatus};
    let record = |id: u8, minutes_ago: i64, status: Option<CommandStatus>| CommandRecord {
        command: Command {
            id: CommandId::from_random_bytes([id; 16]),
            action: Action::Reboot,
            issued_time: now() - Duration::minutes(minutes_ago),
        },
        delivered_time: None,
        acked_time: None,
        status,
        detail: text(""),
    };
    let mut h = Harness::new();
    let mut owned = vec![Ok(false), Ok(true)];
    h.devices
        .expect_owns()
        .times(2)
        .returning(move |_, _| owned.pop().expect("two calls"));
    let records = vec![
        record(1, 1, None),
        record(2, 11, None),
        record(3, 12, Some(CommandStatus::Done)),
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
        .devices
        .commands(&owner, &serial)
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
        app.devices
            .commands(&owner, &serial)
            .await
            .unwrap()
            .is_none()
    );
}

#[tokio::test]
async fn update_stores_the_changes_for_the_owner_only() {
    let mut h = Harness::new();
    let mut results = vec![Ok(None), Ok(Some(device(Some(now()))))];
    h.devices
        .expect_update()
        .withf(|owner, _, changes, _| {
            *owner == AccountId(7)
                && changes.name.as_ref().is_some_and(|name| name == "attic")
                && changes.description.is_none()
        })
        .times(2)
        .returning(move |_, _, _, _| results.pop().expect("two calls"));
    let app = h.app();
    let serial = Serial::from_random_bytes([3; 16]);
    let changes = DeviceChanges {
        name: Some(text("attic")),
        description: None,
        tags: None,
    };
    let view = app
        .devices
        .update(by(&account(true, None)), &serial, changes.clone())
        .await
        .unwrap();
    assert!(view.online);
    assert!(matches!(
        app.devices
            .update(by(&account(true, None)), &serial, changes)
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
        tags: domain::TagSet::default(),
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
        .withf(|d, _| d.owner == AccountId(7) && d.name == "kitchen" && d.last_seen == Some(now()))
        .times(1)
        .returning(|_, _| Ok(()));
    let spec = DeviceSpec {
        online: true,
        ..spec("kitchen")
    };
    let view = h.app().devices.add(&email(), spec).await.unwrap();
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
        .returning(|_, _| Err(CreateDeviceError::DuplicateSerial));
    let app = h.app();
    let spec = spec("n");
    assert!(matches!(
        app.devices.add(&email(), spec.clone()).await,
        Err(AddDeviceError::UnknownOwner)
    ));
    assert!(matches!(
        app.devices.add(&email(), spec).await,
        Err(AddDeviceError::DuplicateSerial)
    ));
}

#[tokio::test]
async fn edits_deletions_and_queued_reboots_are_announced() {
    use crate::use_cases::test_support::announcements;
    let mut h = Harness::new();
    h.devices
        .expect_update()
        .returning(|_, _, _, _| Ok(Some(device(None))));
    h.devices.expect_delete().returning(|_, _, _| Ok(true));
    h.devices.expect_owns().returning(|_, _| Ok(true));
    h.commands
        .expect_queue_reboot()
        .returning(|_, id, at, _, _| Ok(reboot_command(id.clone(), at, true)));
    h.fleet_signals = announcements(3);
    let app = h.app();
    let owner = account(true, None);
    let serial = device(None).serial;
    app.devices
        .update(by(&owner), &serial, crate::ports::DeviceChanges::default())
        .await
        .unwrap();
    app.devices.reboot(by(&owner), &serial).await.unwrap();
    assert!(app.devices.delete(by(&owner), &serial).await.unwrap());
}

#[tokio::test]
async fn the_commands_of_a_device_already_found_need_no_second_look_up() {
    let mut h = Harness::new();
    h.devices.expect_find_for().never();
    h.commands
        .expect_history()
        .withf(|serial, limit| *serial == device(None).serial && *limit == COMMAND_HISTORY)
        .times(1)
        .returning(|_, _| Ok(vec![]));
    let view = DeviceView {
        device: device(None),
        online: false,
    };
    assert!(h.app().devices.commands_of(&view).await.unwrap().is_empty());
}

#[path = "audit_tests.rs"]
mod audit;
