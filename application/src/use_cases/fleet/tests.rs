//! Unit tests of [`super`], over mocked ports.

use super::*;
use crate::ports::MockCommandListener;
use crate::use_cases::test_support::{Harness, Notes, account, client, device, now, text};
use chrono::Duration as Span;
use domain::{AccountId, Action, CommandStatus, Port, Protocol};
use mockall::Sequence;

fn reboot() -> Command {
    Command {
        id: CommandId::parse("0f8fad5b-d9cb-469f-a165-70867728950e").unwrap(),
        action: Action::Reboot,
        issued_time: now(),
    }
}

fn install_token() -> InstallToken {
    InstallToken::parse(&"t".repeat(32)).unwrap()
}

fn command_id() -> CommandId {
    CommandId::from_random_bytes([5; 16])
}

fn request(serial: Option<Serial>) -> InstallRequest {
    InstallRequest {
        install_token: install_token(),
        name: text("kitchen"),
        serial,
        machine_type: None,
        address: Some(client()),
    }
}

#[tokio::test]
async fn install_enrols_in_the_install_tokens_account_with_a_hashed_token() {
    let mut h = Harness::new();
    h.accounts
        .expect_find_by_install_token()
        .withf(|token| *token == install_token())
        .returning(|_| Ok(Some(account(true, None))));
    let serial = Serial::from_random_bytes([9; 16]);
    let wanted = serial.clone();
    let notes = Notes::default();
    let kept = notes.clone();
    h.devices
        .expect_enroll()
        .withf(move |e, _| {
            e.owner == AccountId(7)
                && e.serial == wanted
                && e.name == "kitchen"
                && e.now == now()
                && e.online_after == now() - chrono::Duration::seconds(90)
        })
        .times(1)
        .returning(move |_, audit| {
            kept.keep(audit);
            Ok(device(None))
        });
    let installed = h.app().fleet.install(request(Some(serial))).await.unwrap();
    assert_eq!(installed.device_token.len(), 40);
    assert_eq!(installed.device.name, "pi");
    // The device installs itself, from the request's address.
    let serial = Serial::from_random_bytes([9; 16]);
    let line = format!("device {serial} 203.0.113.9 device.install device:{serial} {{}}");
    assert_eq!(notes.lines(), [line]);
}

#[tokio::test]
async fn the_enrolled_token_is_the_hash_of_the_one_shown() {
    let mut h = Harness::new();
    h.accounts
        .expect_find_by_install_token()
        .returning(|_| Ok(Some(account(true, None))));
    let stored = std::sync::Arc::new(std::sync::Mutex::new(None));
    let seen = stored.clone();
    h.devices.expect_enroll().returning(move |e, _| {
        *seen.lock().unwrap() = Some(e.token.clone());
        Ok(device(None))
    });
    let installed = h.app().fleet.install(request(None)).await.unwrap();
    assert_eq!(
        stored.lock().unwrap().clone(),
        Some(SecretHash::of(&installed.device_token))
    );
}

#[tokio::test]
async fn install_refuses_unknown_tokens_and_foreign_serials() {
    let mut h = Harness::new();
    let mut accounts = vec![Ok(Some(account(true, None))), Ok(None)];
    h.accounts
        .expect_find_by_install_token()
        .times(2)
        .returning(move |_| accounts.pop().expect("two calls"));
    h.devices
        .expect_enroll()
        .returning(|_, _| Err(EnrolError::ForeignSerial));
    let app = h.app();
    assert!(matches!(
        app.fleet.install(request(None)).await,
        Err(InstallError::InvalidInstallToken)
    ));
    assert!(matches!(
        app.fleet.install(request(None)).await,
        Err(InstallError::ForeignSerial)
    ));
}

#[tokio::test]
async fn an_unverified_account_cannot_enrol_devices() {
    let mut h = Harness::new();
    h.accounts
        .expect_find_by_install_token()
        .returning(|_| Ok(Some(account(false, None))));
    h.devices.expect_enroll().never();
    assert!(matches!(
        h.app().fleet.install(request(None)).await,
        Err(InstallError::Unverified)
    ));
}

#[tokio::test]
async fn an_online_device_is_not_re_keyed() {
    let mut h = Harness::new();
    h.accounts
        .expect_find_by_install_token()
        .returning(|_| Ok(Some(account(true, None))));
    h.devices
        .expect_enroll()
        .returning(|_, _| Err(EnrolError::Online));
    assert!(matches!(
        h.app().fleet.install(request(None)).await,
        Err(InstallError::Online)
    ));
}

#[tokio::test]
async fn a_heartbeat_records_sorted_ports_and_hands_out_commands() {
    let mut h = Harness::new();
    h.devices
        .expect_record_heartbeat()
        .withf(|_, report, at| {
            let ports: Vec<u16> = report
                .ports
                .iter()
                .flatten()
                .map(|p| p.number.get())
                .collect();
            ports == [22, 80] && *at == now()
        })
        .times(1)
        .returning(|_, _, _| Ok(()));
    h.commands
        .expect_take_due()
        .withf(|_, at, lapse, redeliver| {
            *at == now()
                && *lapse == now() - Span::minutes(10)
                && *redeliver == now() - Span::seconds(15)
        })
        .returning(|_, _, _, _| Ok(vec![reboot()]));
    let report = FactsReport {
        ports: Some(vec![
            Port::new(
                domain::PortNumber::new(80).unwrap(),
                Protocol::Tcp,
                text("nginx"),
            ),
            Port::new(
                domain::PortNumber::new(22).unwrap(),
                Protocol::Tcp,
                text("sshd"),
            ),
        ]),
        ..FactsReport::default()
    };
    let reply = h
        .app()
        .fleet
        .heartbeat(&device(None), report)
        .await
        .unwrap();
    assert_eq!(reply.commands, [reboot()]);
    assert_eq!(reply.heartbeat_interval, 30);
}

#[tokio::test]
async fn a_poll_returns_pending_commands_without_waiting() {
    let mut h = Harness::new();
    h.commands.expect_listen().times(1).returning(|_| {
        let mut listener = MockCommandListener::new();
        listener.expect_wait().never();
        Box::new(listener)
    });
    h.commands
        .expect_take_due()
        .returning(|_, _, _, _| Ok(vec![reboot()]));
    let commands = h
        .app()
        .fleet
        .poll_commands(&device(None), PollWait::new(30).unwrap())
        .await
        .unwrap();
    assert_eq!(commands, [reboot()]);
}

#[tokio::test]
async fn a_poll_listens_before_looking_and_looks_again_when_woken() {
    let mut h = Harness::new();
    let mut seq = Sequence::new();
    h.commands
        .expect_listen()
        .times(1)
        .in_sequence(&mut seq)
        .returning(|_| {
            let mut listener = MockCommandListener::new();
            listener
                .expect_wait()
                .withf(|timeout| *timeout == Duration::from_secs(30))
                .times(1)
                .returning(|_| ());
            Box::new(listener)
        });
    h.commands
        .expect_take_due()
        .times(1)
        .in_sequence(&mut seq)
        .returning(|_, _, _, _| Ok(vec![]));
    h.commands
        .expect_last_unacknowledged_delivery()
        .times(1)
        .in_sequence(&mut seq)
        .returning(|_, _| Ok(None));
    h.commands
        .expect_take_due()
        .times(1)
        .in_sequence(&mut seq)
        .returning(|_, _, _, _| Ok(vec![reboot()]));
    let commands = h
        .app()
        .fleet
        .poll_commands(&device(None), PollWait::new(30).unwrap())
        .await
        .unwrap();
    assert_eq!(commands, [reboot()]);
}

#[tokio::test]
async fn a_poll_without_wait_looks_once() {
    let mut h = Harness::new();
    h.commands.expect_listen().times(1).returning(|_| {
        let mut listener = MockCommandListener::new();
        listener.expect_wait().never();
        Box::new(listener)
    });
    h.commands
        .expect_take_due()
        .times(1)
        .returning(|_, _, _, _| Ok(vec![]));
    let commands = h
        .app()
        .fleet
        .poll_commands(&device(None), PollWait::NONE)
        .await
        .unwrap();
    assert!(commands.is_empty());
}

#[tokio::test]
async fn a_poll_waits_no_longer_than_until_an_unacknowledged_command_is_due_again() {
    let mut h = Harness::new();
    h.commands.expect_listen().times(1).returning(|_| {
        let mut listener = MockCommandListener::new();
        // Handed out 5 s ago: due again in 10 s (and a little).
        listener
            .expect_wait()
            .withf(|timeout| {
                (Duration::from_secs(10)..Duration::from_millis(10_100)).contains(timeout)
            })
            .times(1)
            .returning(|_| ());
        Box::new(listener)
    });
    let mut seq = Sequence::new();
    h.commands
        .expect_take_due()
        .times(1)
        .in_sequence(&mut seq)
        .returning(|_, _, _, _| Ok(vec![]));
    h.commands
        .expect_last_unacknowledged_delivery()
        .withf(|_, lapse| *lapse == now() - Span::minutes(10))
        .returning(|_, _| Ok(Some(now() - Span::seconds(5))));
    h.commands
        .expect_take_due()
        .times(1)
        .in_sequence(&mut seq)
        .returning(|_, _, _, _| Ok(vec![reboot()]));
    let commands = h
        .app()
        .fleet
        .poll_commands(&device(None), PollWait::new(60).unwrap())
        .await
        .unwrap();
    assert_eq!(commands, [reboot()]);
}

#[tokio::test]
async fn acknowledging_reports_whether_the_command_is_the_devices() {
    let mut h = Harness::new();
    h.commands
        .expect_acknowledge()
        .withf(|_, id, outcome, at| {
            *id == command_id() && outcome.status == CommandStatus::Failed && *at == now()
        })
        .returning(|_, _, _, _| Ok(false));
    let outcome = CommandOutcome {
        status: CommandStatus::Failed,
        detail: text("exit status 1"),
    };
    assert!(
        !h.app()
            .fleet
            .acknowledge(&device(None), &command_id(), outcome)
            .await
            .unwrap()
    );
}

#[tokio::test]
async fn a_device_coming_online_is_announced_and_an_online_one_is_not() {
    use crate::use_cases::test_support::announcements;
    for (last_seen, announced) in [
        (None, 1),
        (Some(now() - chrono::Duration::minutes(5)), 1),
        (Some(now() - chrono::Duration::seconds(20)), 0),
    ] {
        let mut h = Harness::new();
        h.devices
            .expect_record_heartbeat()
            .returning(|_, _, _| Ok(()));
        h.commands
            .expect_take_due()
            .returning(|_, _, _, _| Ok(vec![]));
        h.fleet_signals = announcements(announced);
        h.app()
            .fleet
            .heartbeat(&device(last_seen), FactsReport::default())
            .await
            .unwrap();
    }
}

#[tokio::test]
async fn handing_out_and_acknowledging_commands_are_announced() {
    use crate::use_cases::test_support::announcements;
    let mut h = Harness::new();
    h.commands
        .expect_listen()
        .returning(|_| Box::new(crate::ports::MockCommandListener::new()));
    h.commands
        .expect_take_due()
        .returning(|_, _, _, _| Ok(vec![reboot()]));
    h.commands
        .expect_acknowledge()
        .returning(|_, _, _, _| Ok(true));
    h.fleet_signals = announcements(2);
    let app = h.app();
    let online = device(Some(now()));
    app.fleet
        .poll_commands(&online, domain::PollWait::at_most(0))
        .await
        .unwrap();
    let outcome = CommandOutcome {
        status: domain::CommandStatus::Done,
        detail: domain::AckDetail::default(),
    };
    assert!(
        app.fleet
            .acknowledge(&online, &command_id(), outcome)
            .await
            .unwrap()
    );
}
