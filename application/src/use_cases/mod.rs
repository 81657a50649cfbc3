//! The use cases, as services by area: each holds only the ports it needs,
//! and [`Services`] builds them all from one set of ports.

mod accounts;
mod audit;
mod devices;
mod fleet;
mod housekeeping;
mod jobs;
mod lockout;
mod mail_delivery;
mod monitors;
mod password_reset;
mod probes;
mod requester;
mod secrets;
mod sessions;
mod store_copy;
#[cfg(test)]
mod test_support;
mod verification;
mod watching;
mod webhooks;

pub use accounts::{
    Accounts, ChangePasswordError, CreateUserError, CreatedUser, OldPasswordProblem, RegisterError,
};
pub use audit::{AUDIT_BATCH, Audit, DEVICE_ACTIVITY};
pub use devices::{
    AddDeviceError, COMMAND_HISTORY, CommandView, DeviceSpec, DeviceView, Devices, DevicesPage,
    Listing, ListingStamp, PREVIEW, RebootError, Relisted, RetagError, UpdateDeviceError,
};
pub use fleet::{Fleet, HeartbeatReply, InstallError, InstallRequest, Installed};
pub use housekeeping::Housekeeping;
pub use jobs::{JobActionError, JobRequest, JobRunner, Jobs};
pub use mail_delivery::{Delivery, MailDelivery};
pub use monitors::{MonitorEngine, MonitorRequest, Monitors};
pub use password_reset::{ConfirmResetError, PasswordReset};
pub use probes::Probes;
pub use requester::Requester;
pub use sessions::{LoginError, Sessions};
pub use store_copy::copy_store;
pub use verification::{Verification, VerifyEmailError};
pub use watching::Watching;
pub use webhooks::{
    CreateWebhookError, CreatedWebhook, DELIVERY_LEASE, WebhookDispatcher, WebhookRequest,
    Webhooks, delivery_body,
};

use crate::ports::{LockoutPolicy, Ports};
use chrono::Duration;
use lockout::Lockout;
use secrets::Secrets;
use verification::VerificationMail;

/// Tunables of the use cases.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Settings {
    /// A device is online while its last heartbeat is younger than this.
    pub online_window: Duration,
    /// How long an e-mail verification key stays valid.
    pub verification_key_lifetime: Duration,
    /// How long a password reset key stays valid.
    pub reset_key_lifetime: Duration,
    /// How long an undelivered device command stays pending.
    pub command_lifetime: Duration,
    /// How long a command is remembered after it was issued.
    pub command_retention: Duration,
    /// How long audit entries are kept.
    pub audit_retention: Duration,
    /// How failed logins lock an account; `None` turns locking off.
    pub login_lockout: Option<LockoutPolicy>,
    /// A console session ends after this long unused.
    pub console_idle: Duration,
    /// How the outbox worker retries.
    pub mail: MailRetry,
    /// Whether anyone may create an account (`POST /register/`, the
    /// console's registration page).
    pub registration: Registration,
    /// How long an account's alert mail window lasts (its first ten
    /// notifications mailed one by one, the rest in a digest when it ends).
    pub alert_mail_window: Duration,
}

/// Whether accounts may be created by registering.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Registration {
    /// Anyone may register.
    #[default]
    Open,
    /// Accounts come only from an operator (`devmgr user create`).
    Closed,
}

/// How the outbox worker retries mail that could not be delivered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MailRetry {
    /// The wait after the first failure; it doubles with each failure…
    pub first_delay: Duration,
    /// …up to this.
    pub max_delay: Duration,
    /// A mail still undelivered this long after it was queued is dropped
    /// (its links have expired by then).
    pub give_up_after: Duration,
    /// A mail being sent is hidden from other workers this long; if the
    /// worker dies meanwhile, the mail is tried again afterwards.
    pub lease: Duration,
    /// The longest the worker sleeps without looking at the outbox (mail
    /// queued by another process is found within this).
    pub idle_check: Duration,
}

impl Default for MailRetry {
    fn default() -> Self {
        Self {
            first_delay: Duration::seconds(1),
            max_delay: Duration::minutes(10),
            give_up_after: Duration::hours(72),
            lease: Duration::minutes(2),
            idle_check: Duration::seconds(30),
        }
    }
}

impl Default for Settings {
    fn default() -> Self {
        Self {
            online_window: Duration::seconds(90),
            verification_key_lifetime: Duration::hours(72),
            reset_key_lifetime: Duration::hours(24),
            command_lifetime: Duration::minutes(10),
            command_retention: Duration::days(30),
            audit_retention: Duration::days(365),
            login_lockout: Some(LockoutPolicy {
                max_failures: 5,
                period: Duration::minutes(15),
            }),
            console_idle: Duration::days(14),
            mail: MailRetry::default(),
            registration: Registration::Open,
            alert_mail_window: Duration::seconds(60),
        }
    }
}

/// The application: every service, built over one set of ports.
#[derive(Clone)]
pub struct Services {
    /// Registering, the profile, passwords, operator-made users.
    pub accounts: Accounts,
    /// Login, logout, token authentication.
    pub sessions: Sessions,
    /// E-mail address verification.
    pub verification: Verification,
    /// Password reset through an e-mailed link.
    pub password_reset: PasswordReset,
    /// An account's devices, and operator-added ones.
    pub devices: Devices,
    /// The agent side: enrolment, heartbeats, commands.
    pub fleet: Fleet,
    /// Fleet jobs: reboots in waves.
    pub jobs: Jobs,
    /// The job engine, driven by the server's ticker.
    pub job_runner: JobRunner,
    /// Monitors and their alerts.
    pub monitors: Monitors,
    /// The monitor engine, driven by the server's ticker.
    pub monitor_engine: MonitorEngine,
    /// Webhooks and their deliveries.
    pub webhooks: Webhooks,
    /// The webhook dispatcher, driven by the server's worker.
    pub webhook_dispatcher: WebhookDispatcher,
    /// Watching a fleet change, for open consoles.
    pub watching: Watching,
    /// The outbox worker.
    pub mail: MailDelivery,
    /// Purges of expired keys, old commands and lapsed login failures.
    pub housekeeping: Housekeeping,
    /// The audit log: reading, export, verification, retention.
    pub audit: Audit,
    /// Readiness and counts, for health checks and metrics.
    pub probes: Probes,
}

impl Services {
    /// Builds every service, each with the ports and settings it needs.
    pub fn new(ports: Ports, settings: Settings) -> Self {
        let secrets = Secrets::new(ports.random.clone());
        let lockout = Lockout::new(
            ports.login_attempts.clone(),
            ports.clock.clone(),
            settings.login_lockout,
        );
        let verification_mail = VerificationMail::new(
            ports.links.clone(),
            ports.clock.clone(),
            secrets.clone(),
            settings.verification_key_lifetime,
        );
        let job_runner = JobRunner {
            jobs: ports.jobs.clone(),
            clock: ports.clock.clone(),
            secrets: secrets.clone(),
            signals: ports.fleet_signals.clone(),
            event_data: ports.event_data.clone(),
            online_window: settings.online_window,
            command_lifetime: settings.command_lifetime,
        };
        Self {
            monitors: Monitors {
                monitors: ports.monitors.clone(),
                clock: ports.clock.clone(),
                secrets: secrets.clone(),
                online_window_seconds: u32::try_from(settings.online_window.num_seconds())
                    .unwrap_or(u32::MAX),
            },
            monitor_engine: MonitorEngine {
                monitors: ports.monitors.clone(),
                clock: ports.clock.clone(),
                secrets: secrets.clone(),
                signals: ports.fleet_signals.clone(),
                event_data: ports.event_data.clone(),
                online_window: settings.online_window,
                mail_window: settings.alert_mail_window,
            },
            webhooks: Webhooks {
                webhooks: ports.webhooks.clone(),
                transport: ports.transport.clone(),
                event_data: ports.event_data.clone(),
                clock: ports.clock.clone(),
                secrets: secrets.clone(),
            },
            webhook_dispatcher: WebhookDispatcher {
                webhooks: ports.webhooks.clone(),
                transport: ports.transport.clone(),
                clock: ports.clock.clone(),
            },
            jobs: Jobs {
                jobs: ports.jobs.clone(),
                clock: ports.clock.clone(),
                secrets: secrets.clone(),
                signals: ports.fleet_signals.clone(),
                runner: job_runner.clone(),
                online_window: settings.online_window,
                command_lifetime: settings.command_lifetime,
            },
            job_runner,
            accounts: Accounts {
                accounts: ports.accounts.clone(),
                hasher: ports.hasher.clone(),
                clock: ports.clock.clone(),
                secrets: secrets.clone(),
                lockout: lockout.clone(),
                verification_mail: verification_mail.clone(),
                registration: settings.registration,
            },
            sessions: Sessions {
                accounts: ports.accounts.clone(),
                audit: ports.audit.clone(),
                tokens: ports.tokens.clone(),
                hasher: ports.hasher.clone(),
                clock: ports.clock.clone(),
                secrets: secrets.clone(),
                lockout: lockout.clone(),
                console_sessions: ports.console_sessions.clone(),
                console_idle: settings.console_idle,
                signals: ports.fleet_signals.clone(),
            },
            verification: Verification {
                accounts: ports.accounts.clone(),
                keys: ports.keys.clone(),
                clock: ports.clock.clone(),
                verification_mail,
            },
            password_reset: PasswordReset {
                accounts: ports.accounts.clone(),
                keys: ports.keys.clone(),
                links: ports.links.clone(),
                hasher: ports.hasher.clone(),
                clock: ports.clock.clone(),
                secrets: secrets.clone(),
                lockout: lockout.clone(),
                console_sessions: ports.console_sessions.clone(),
                reset_key_lifetime: settings.reset_key_lifetime,
            },
            devices: Devices {
                accounts: ports.accounts.clone(),
                devices: ports.devices.clone(),
                commands: ports.commands.clone(),
                clock: ports.clock.clone(),
                secrets: secrets.clone(),
                signals: ports.fleet_signals.clone(),
                online_window: settings.online_window,
                command_lifetime: settings.command_lifetime,
            },
            watching: Watching {
                signals: ports.fleet_signals.clone(),
                clock: ports.clock.clone(),
                online_window: settings.online_window,
                command_lifetime: settings.command_lifetime,
            },
            fleet: Fleet {
                accounts: ports.accounts,
                devices: ports.devices,
                commands: ports.commands.clone(),
                clock: ports.clock.clone(),
                secrets,
                signals: ports.fleet_signals,
                online_window: settings.online_window,
                command_lifetime: settings.command_lifetime,
            },
            mail: MailDelivery {
                outbox: ports.outbox,
                mailer: ports.mailer,
                clock: ports.clock.clone(),
                retry: settings.mail,
            },
            probes: Probes {
                probe: ports.probe,
                clock: ports.clock.clone(),
                online_window: settings.online_window,
                command_lifetime: settings.command_lifetime,
            },
            audit: Audit {
                log: ports.audit.clone(),
                clock: ports.clock.clone(),
                retention: settings.audit_retention,
            },
            housekeeping: Housekeeping {
                keys: ports.keys,
                commands: ports.commands,
                console_sessions: ports.console_sessions,
                clock: ports.clock,
                command_retention: settings.command_retention,
                console_idle: settings.console_idle,
                lockout,
            },
        }
    }
}
