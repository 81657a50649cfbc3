//! Unit tests of rebooting a device and reading one of its commands, over
//! mocked ports.

use super::*;
use crate::ports::QueuedReboot;
use crate::use_cases::test_support::{Harness, account, announcements, by, device, now, text};
use chrono::Duration;
use domain::{AccountId, Action, Command, CommandStatus, Timestamp};
use mockall::predicate::eq;

/// The reboot `id` issued at `issued`, never handed out, as the store
/// returns it: `queued` by this request, or joined.
pub(super) fn reboot_command(id: CommandId, issued: Timestamp, queued: bool) -> QueuedReboot {
    QueuedReboot {
        command: record(id, issued, None),
        queued,
    }
}

fn record(id: CommandId, issued: Timestamp, delivered: Option<Timestamp>) -> CommandRecord {
    CommandRecord {
        command: Command {
            id,
            action: Action::Reboot,
            issued_time: issued,
        },
        delivered_time: delivered,
        acked_time: None,
        status: None,
        detail: text(""),
    }
}

fn serial() -> Serial {
    device(None).serial
}

#[tokio::test]
async fn reboot_queues_a_command_that_lapses_after_ten_minutes_and_returns_it() {
    let mut h = Harness::new();
    h.devices.expect_owns().returning(|_, _| Ok(true));
    h.commands
        .expect_queue_reboot()
        .withf(|device, id, at, lapse, _| {
            *device == serial()
                && CommandId::parse(id.as_str()).as_ref() == Ok(id)
                && *at == now()
                && *lapse == now() - Duration::minutes(10)
        })
        .times(1)
        .returning(|_, id, at, _, _| Ok(reboot_command(id.clone(), at, true)));
    h.fleet_signals = announcements(1);
    let view = h
        .app()
        .devices
        .reboot(by(&account(true, None)), &serial())
        .await
        .unwrap();
    assert_eq!(view.state, CommandState::Pending);
    assert_eq!(view.record.command.issued_time, now());
    assert_eq!(view.record.command.action, Action::Reboot);
}

#[tokio::test]
async fn a_reboot_joining_one_under_way_returns_that_one_unannounced() {
    let mut h = Harness::new();
    h.devices.expect_owns().returning(|_, _| Ok(true));
    let earlier = CommandId::from_random_bytes([9; 16]);
    let issued = now() - Duration::minutes(2);
    let joined = record(earlier.clone(), issued, Some(issued));
    h.commands
        .expect_queue_reboot()
        .times(1)
        .returning(move |_, _, _, _, _| {
            Ok(QueuedReboot {
                command: joined.clone(),
                queued: false,
            })
        });
    h.fleet_signals = announcements(0);
    let view = h
        .app()
        .devices
        .reboot(by(&account(true, None)), &serial())
        .await
        .unwrap();
    assert_eq!(view.record.command.id, earlier);
    assert_eq!(view.record.command.issued_time, issued);
    assert_eq!(view.state, CommandState::Delivered);
}

#[tokio::test]
async fn reboot_of_a_missing_device_is_not_found() {
    let mut h = Harness::new();
    h.devices.expect_owns().returning(|_, _| Ok(false));
    h.commands.expect_queue_reboot().never();
    let err = h
        .app()
        .devices
        .reboot(by(&account(true, None)), &serial())
        .await
        .unwrap_err();
    assert!(matches!(err, RebootError::NotFound));
}

#[tokio::test]
async fn reboot_surfaces_storage_failures() {
    let mut h = Harness::new();
    h.devices.expect_owns().returning(|_, _| Ok(true));
    h.commands
        .expect_queue_reboot()
        .returning(|_, _, _, _, _| Err(StoreError::message("gone")));
    let err = h
        .app()
        .devices
        .reboot(by(&account(true, None)), &serial())
        .await
        .unwrap_err();
    assert!(matches!(err, RebootError::Store(_)));
}

#[tokio::test]
async fn one_command_is_read_in_one_look_up_by_owner_device_and_id() {
    let mut h = Harness::new();
    let id = CommandId::from_random_bytes([5; 16]);
    let issued = now() - Duration::minutes(3);
    let mut done = record(id.clone(), issued, Some(issued));
    done.status = Some(CommandStatus::Done);
    done.acked_time = Some(issued + Duration::seconds(4));
    h.devices.expect_find_for().never();
    h.commands
        .expect_find_command()
        .with(eq(AccountId(7)), eq(serial()), eq(id.clone()))
        .times(1)
        .returning(move |_, _, _| Ok(Some(done.clone())));
    let view = h
        .app()
        .devices
        .command(&account(true, None), &serial(), &id)
        .await
        .unwrap()
        .expect("the device's command");
    assert_eq!(view.record.command.id, id);
    assert_eq!(view.state, CommandState::Done);
}

#[tokio::test]
async fn a_command_read_says_where_it_stands_now() {
    let mut h = Harness::new();
    let id = CommandId::from_random_bytes([6; 16]);
    let old = record(id.clone(), now() - Duration::minutes(10), None);
    h.commands
        .expect_find_command()
        .returning(move |_, _, _| Ok(Some(old.clone())));
    let view = h
        .app()
        .devices
        .command(&account(true, None), &serial(), &id)
        .await
        .unwrap()
        .expect("the device's command");
    assert_eq!(view.state, CommandState::Lapsed);
}

#[tokio::test]
async fn an_unknown_or_foreign_command_is_none_and_failures_surface() {
    let mut h = Harness::new();
    let mut answers = vec![Err(StoreError::message("gone")), Ok(None)];
    h.commands
        .expect_find_command()
        .times(2)
        .returning(move |_, _, _| answers.pop().expect("two calls"));
    let app = h.app();
    let id = CommandId::from_random_bytes([7; 16]);
    let owner = account(true, None);
    assert_eq!(
        app.devices.command(&owner, &serial(), &id).await.unwrap(),
        None
    );
    assert!(app.devices.command(&owner, &serial(), &id).await.is_err());
}
