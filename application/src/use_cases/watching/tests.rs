//! Unit tests of [`super`]: what changes by time alone, and when.

use crate::use_cases::test_support::{Harness, announcements_ignored, device, now};
use crate::use_cases::{CommandView, DeviceView};
use chrono::Duration;
use domain::{AckDetail, Action, Command, CommandId, CommandRecord, CommandState, CommandStatus};

fn online(seconds_ago: i64) -> DeviceView {
    DeviceView {
        device: device(Some(now() - Duration::seconds(seconds_ago))),
        online: true,
    }
}

fn command(minutes_ago: i64, status: Option<CommandStatus>) -> CommandView {
    let record = CommandRecord {
        command: Command {
            id: CommandId::from_random_bytes([1; 16]),
            action: Action::Reboot,
            issued_time: now() - Duration::minutes(minutes_ago),
        },
        delivered_time: None,
        acked_time: None,
        status,
        detail: AckDetail::default(),
    };
    CommandView {
        state: record.state(now(), Duration::minutes(10)),
        record,
    }
}

#[test]
fn the_next_change_is_the_first_online_device_to_go_offline() {
    let watching = Harness::new().app().watching;
    let views = [online(10), online(60), online(30)];
    // The default window is 90 s: the device seen 60 s ago goes first.
    assert_eq!(
        watching.next_change(&views, &[]),
        Some(now() + Duration::seconds(30))
    );
}

#[test]
fn offline_devices_and_ended_commands_change_nothing_by_time() {
    let watching = Harness::new().app().watching;
    let offline = DeviceView {
        device: device(Some(now() - Duration::minutes(5))),
        online: false,
    };
    let never = DeviceView {
        device: device(None),
        online: false,
    };
    let done = command(1, Some(CommandStatus::Done));
    let received = command(1, Some(CommandStatus::Received));
    assert_eq!(done.state, CommandState::Done);
    assert_eq!(
        watching.next_change(&[offline, never], &[done, received]),
        None
    );
}

#[test]
fn a_pending_command_changes_when_it_lapses() {
    let watching = Harness::new().app().watching;
    let pending = command(4, None);
    assert_eq!(pending.state, CommandState::Pending);
    // Commands lapse 10 minutes after they were requested.
    assert_eq!(
        watching.next_change(&[online(80)], &[pending]),
        Some(now() + Duration::seconds(10))
    );
    assert_eq!(
        watching.next_change(&[], &[command(4, None)]),
        Some(now() + Duration::minutes(6))
    );
}

#[tokio::test]
async fn watching_listens_to_the_accounts_fleet() {
    let mut h = Harness::new();
    let mut signals = announcements_ignored();
    signals
        .expect_watch()
        .withf(|owner| owner.0 == 7)
        .times(1)
        .returning(|_| Box::new(crate::ports::MockFleetListener::new()));
    h.fleet_signals = signals;
    let app = h.app();
    let _listener = app
        .watching
        .watch(&crate::use_cases::test_support::account(true, None));
}
