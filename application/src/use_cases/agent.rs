//! The device side: enrolment with an install token, device credentials,
//! heartbeats, handing out commands (with a long poll) and their outcomes.

use super::DevMgr;
use crate::ports::{EnrolError, Enrolment, StoreError};
use domain::command::{REDELIVERY_AFTER, heartbeat_interval};
use domain::device::wormhole_slug;
use domain::secret::SecretHash;
use domain::{Command, CommandOutcome, Device, DeviceName, FactsReport, MachineType, Serial};
use std::time::Duration;
use thiserror::Error;

/// What an agent sends to enrol its device.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InstallRequest {
    /// The account's install token.
    pub install_token: String,
    /// The device's name.
    pub name: DeviceName,
    /// The device's serial; a random one when absent.
    pub serial: Option<Serial>,
    /// The device's hardware, when known.
    pub machine_type: Option<MachineType>,
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

impl DevMgr {
    /// Enrols a device in the account of the install token, or re-keys the
    /// account's device with that serial while it is offline. The old device
    /// token, if any, ends. Only verified accounts enrol devices.
    pub async fn install(&self, request: InstallRequest) -> Result<Installed, InstallError> {
        let account = self
            .ports
            .accounts
            .find_by_install_token(&request.install_token)
            .await?
            .ok_or(InstallError::InvalidInstallToken)?;
        if !account.email_verified {
            return Err(InstallError::Unverified);
        }
        let token = self.mint_api_token();
        let now = self.ports.clock.now();
        let enrolment = Enrolment {
            owner: account.id,
            serial: request
                .serial
                .unwrap_or_else(|| Serial::from_random_bytes(self.random_bytes())),
            name: request.name,
            machine_type: request.machine_type,
            token: token.hash,
            wormhole_slug: wormhole_slug(self.random_bytes()),
            now,
            online_after: now - self.settings.online_window,
        };
        let device = self
            .ports
            .devices
            .enroll(&enrolment)
            .await
            .map_err(|e| match e {
                EnrolError::ForeignSerial => InstallError::ForeignSerial,
                EnrolError::Online => InstallError::Online,
                EnrolError::Store(e) => InstallError::Store(e),
            })?;
        Ok(Installed {
            device,
            device_token: token.secret,
        })
    }

    /// Whether an account has this install token.
    pub async fn install_token_exists(&self, install_token: &str) -> Result<bool, StoreError> {
        Ok(self
            .ports
            .accounts
            .find_by_install_token(install_token)
            .await?
            .is_some())
    }

    /// The device a device token belongs to, if it is current.
    pub async fn authenticate_device(&self, token: &str) -> Result<Option<Device>, StoreError> {
        self.ports
            .devices
            .find_by_token(&SecretHash::of(token))
            .await
    }

    /// Records a heartbeat with its facts (the device is online from now)
    /// and hands out the pending commands.
    pub async fn heartbeat(
        &self,
        device: &Device,
        report: FactsReport,
    ) -> Result<HeartbeatReply, StoreError> {
        let mut report = report;
        report.ports = report.ports.map(domain::listening_port::normalize_ports);
        let now = self.ports.clock.now();
        self.ports
            .devices
            .record_heartbeat(&device.serial, &report, now)
            .await?;
        let commands = self.take_commands(&device.serial).await?;
        Ok(HeartbeatReply {
            commands,
            heartbeat_interval: heartbeat_interval(self.settings.online_window),
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
        wait: Duration,
    ) -> Result<Vec<Command>, StoreError> {
        let mut listener = self.ports.commands.listen(&device.serial);
        let commands = self.take_commands(&device.serial).await?;
        if !commands.is_empty() || wait.is_zero() {
            return Ok(commands);
        }
        let wait = match self.until_redelivery(&device.serial).await? {
            Some(due) => wait.min(due),
            None => wait,
        };
        listener.wait(wait).await;
        self.take_commands(&device.serial).await
    }

    /// How long until a command handed out and never acknowledged is due
    /// again, if there is one.
    async fn until_redelivery(&self, serial: &Serial) -> Result<Option<Duration>, StoreError> {
        let now = self.ports.clock.now();
        let delivered = self
            .ports
            .commands
            .last_unacknowledged_delivery(serial, now - self.settings.command_lifetime)
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
        command_id: &str,
        outcome: CommandOutcome,
    ) -> Result<bool, StoreError> {
        let now = self.ports.clock.now();
        self.ports
            .commands
            .acknowledge(&device.serial, command_id, &outcome, now)
            .await
    }

    /// Hands out the device's due commands: new ones, and ones handed out
    /// [`REDELIVERY_AFTER`] ago or longer without an acknowledgement.
    async fn take_commands(&self, serial: &Serial) -> Result<Vec<Command>, StoreError> {
        let now = self.ports.clock.now();
        self.ports
            .commands
            .take_due(
                serial,
                now,
                now - self.settings.command_lifetime,
                now - REDELIVERY_AFTER,
            )
            .await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ports::MockCommandListener;
    use crate::use_cases::test_support::{Harness, account, device, now, text};
    use chrono::Duration as Span;
    use domain::{AccountId, Action, CommandStatus, Port, Protocol};
    use mockall::Sequence;

    fn reboot() -> Command {
        Command {
            id: "0f8fad5b-d9cb-469f-a165-70867728950e".into(),
            action: Action::Reboot,
            issued_time: now(),
        }
    }

    fn request(serial: Option<Serial>) -> InstallRequest {
        InstallRequest {
            install_token: "t".repeat(32),
            name: text("kitchen"),
            serial,
            machine_type: None,
        }
    }

    #[tokio::test]
    async fn install_enrols_in_the_install_tokens_account_with_a_hashed_token() {
        let mut h = Harness::new();
        h.accounts
            .expect_find_by_install_token()
            .withf(|token| token == "t".repeat(32))
            .returning(|_| Ok(Some(account(true, None))));
        let serial = Serial::from_random_bytes([9; 16]);
        let wanted = serial.clone();
        h.devices
            .expect_enroll()
            .withf(move |e| {
                e.owner == AccountId(7)
                    && e.serial == wanted
                    && e.name == "kitchen"
                    && e.now == now()
                    && e.online_after == now() - chrono::Duration::seconds(90)
            })
            .times(1)
            .returning(|_| Ok(device(None)));
        let installed = h.app().install(request(Some(serial))).await.unwrap();
        assert_eq!(installed.device_token.len(), 40);
        assert_eq!(installed.device.name, "pi");
    }

    #[tokio::test]
    async fn the_enrolled_token_is_the_hash_of_the_one_shown() {
        let mut h = Harness::new();
        h.accounts
            .expect_find_by_install_token()
            .returning(|_| Ok(Some(account(true, None))));
        let stored = std::sync::Arc::new(std::sync::Mutex::new(None));
        let seen = stored.clone();
        h.devices.expect_enroll().returning(move |e| {
            *seen.lock().unwrap() = Some(e.token.clone());
            Ok(device(None))
        });
        let installed = h.app().install(request(None)).await.unwrap();
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
            .returning(|_| Err(EnrolError::ForeignSerial));
        let app = h.app();
        assert!(matches!(
            app.install(request(None)).await,
            Err(InstallError::InvalidInstallToken)
        ));
        assert!(matches!(
            app.install(request(None)).await,
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
            h.app().install(request(None)).await,
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
            .returning(|_| Err(EnrolError::Online));
        assert!(matches!(
            h.app().install(request(None)).await,
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
        let reply = h.app().heartbeat(&device(None), report).await.unwrap();
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
            .poll_commands(&device(None), Duration::from_secs(30))
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
            .poll_commands(&device(None), Duration::from_secs(30))
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
            .poll_commands(&device(None), Duration::ZERO)
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
            .poll_commands(&device(None), Duration::from_secs(60))
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
                id == "abc" && outcome.status == CommandStatus::Failed && *at == now()
            })
            .returning(|_, _, _, _| Ok(false));
        let outcome = CommandOutcome {
            status: CommandStatus::Failed,
            detail: text("exit status 1"),
        };
        assert!(
            !h.app()
                .acknowledge(&device(None), "abc", outcome)
                .await
                .unwrap()
        );
    }
}
