//! The port of monitors and their alerts: what an owner keeps, what the
//! monitor engine observes of the fleet, and the one transaction in which
//! it records what it decided with the notifications that follow.

use async_trait::async_trait;
#[cfg(any(test, feature = "mocks"))]
use mockall::automock;

use super::{StoreError, Window};
use crate::mail::Email;
use chrono::Duration;
use domain::{
    AccountId, AfterSeconds, AlertId, AlertState, AuditNote, DeviceName, MonitorId, MonitorKind,
    MonitorName, Selector, Serial, Timestamp, WebhookEvent,
};

/// A monitor to store.
#[derive(Debug, Clone, PartialEq)]
pub struct NewMonitor {
    /// Its identity.
    pub id: MonitorId,
    /// Its account.
    pub owner: AccountId,
    /// Its name.
    pub name: MonitorName,
    /// What it watches for.
    pub kind: MonitorKind,
    /// Which devices it watches (resolved at each evaluation).
    pub selector: Selector,
    /// The selector as the client sent it (JSON text), shown back as it is.
    pub selector_json: String,
    /// How long a condition lasts before an alert opens.
    pub after: AfterSeconds,
    /// When it was created.
    pub created_time: Timestamp,
}

/// A monitor as stored.
#[derive(Debug, Clone, PartialEq)]
pub struct MonitorRecord {
    /// Its identity.
    pub id: MonitorId,
    /// Its name.
    pub name: MonitorName,
    /// What it watches for.
    pub kind: MonitorKind,
    /// The selector as the client sent it (JSON text).
    pub selector_json: String,
    /// How long a condition lasts before an alert opens.
    pub after: AfterSeconds,
    /// Until when its alerts are not notified (`None`: not snoozed).
    pub snoozed_until: Option<Timestamp>,
    /// When it was created.
    pub created_time: Timestamp,
}

/// A page of an account's monitors, newest first.
#[derive(Debug, Clone, PartialEq)]
pub struct MonitorPage {
    /// How many monitors the account has.
    pub count: u64,
    /// Those of the page.
    pub monitors: Vec<MonitorRecord>,
}

/// An alert as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AlertRecord {
    /// Its identity.
    pub id: AlertId,
    /// The monitor that opened it.
    pub monitor: MonitorId,
    /// The device's serial (`None` for a fleet alert).
    pub serial: Option<Serial>,
    /// Open or resolved.
    pub state: AlertState,
    /// When it opened.
    pub started_time: Timestamp,
    /// When it resolved.
    pub resolved_time: Option<Timestamp>,
    /// Why it opened, in words.
    pub reason: String,
}

/// Which of an account's alerts to list.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct AlertFilter {
    /// Only this monitor's (an id the account lacks matches nothing).
    pub monitor: Option<MonitorId>,
    /// Only those in this state.
    pub state: Option<AlertState>,
}

/// A page of an account's alerts, newest first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AlertPage {
    /// How many alerts match.
    pub count: u64,
    /// Those of the page.
    pub alerts: Vec<AlertRecord>,
}

/// A device a device monitor finds down: selected, seen, and silent for
/// longer than the monitor's `after_seconds`, with no open alert of that
/// monitor.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DownDevice {
    /// Its serial.
    pub serial: Serial,
    /// Its name now.
    pub name: DeviceName,
    /// Its last heartbeat.
    pub last_seen: Timestamp,
}

/// An open alert, with since when its condition has been calm.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OpenAlert {
    /// The alert.
    pub alert: AlertRecord,
    /// Since when its device has been online (its fleet's share at or below
    /// the ratio) without a break; `None`: not calm at the last evaluation.
    pub calm_since: Option<Timestamp>,
}

/// A device monitor's open alert and its device as it is now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WatchedAlert {
    /// The alert.
    pub open: OpenAlert,
    /// Its device now: whether the monitor's selector matches it and its
    /// last heartbeat; `None` when the device is gone.
    pub device: Option<(bool, Option<Timestamp>)>,
}

/// What the engine observed of one monitor's devices.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Observation {
    /// Of a device monitor.
    Devices {
        /// The selected devices down now, without an open alert.
        down: Vec<DownDevice>,
        /// Its open alerts.
        open: Vec<WatchedAlert>,
    },
    /// Of a fleet monitor.
    Fleet {
        /// How many devices the selector matches.
        selected: u64,
        /// How many of them are offline (never seen included).
        offline: u64,
        /// Its open alert, if any.
        open: Option<OpenAlert>,
    },
}

/// One monitor as the engine observes it.
#[derive(Debug, Clone, PartialEq)]
pub struct MonitorWatch {
    /// The monitor.
    pub monitor: MonitorRecord,
    /// Its account.
    pub owner: AccountId,
    /// The account's e-mail address, where its alert mail goes.
    pub owner_email: String,
    /// For a fleet monitor without an open alert: since when its share has
    /// been above the ratio.
    pub above_since: Option<Timestamp>,
    /// Its devices now.
    pub observed: Observation,
}

/// An event for an account's webhooks: what happened, when, and the
/// resource (alert, job, webhook) as JSON, as its GET shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EventRecord {
    /// What happened.
    pub event: WebhookEvent,
    /// When.
    pub time: Timestamp,
    /// The resource as JSON text.
    pub data: String,
}

/// How an alert's opening or resolution is told to its account.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AlertNotice {
    /// The mail of its own (subject `Alert opened: …` or `Alert resolved: …`).
    pub mail: Email,
    /// The event for the account's webhooks.
    pub event: EventRecord,
}

/// An alert that opens or resolves, with its notice (`None` while the
/// monitor is snoozed).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AlertTransition {
    /// The alert as it is after the change.
    pub alert: AlertRecord,
    /// How it is told.
    pub notice: Option<AlertNotice>,
}

/// What the engine decided for one monitor at one evaluation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MonitorVerdict {
    /// The monitor.
    pub monitor: MonitorId,
    /// Its account.
    pub owner: AccountId,
    /// For a fleet monitor: since when its share has been above its ratio
    /// with no alert open (`None` otherwise).
    pub above_since: Option<Timestamp>,
    /// Alerts that open: each only if the monitor still exists and has no
    /// open alert for the same device (or, for a fleet alert, none at all).
    pub opened: Vec<AlertTransition>,
    /// Alerts that resolve: each only if it is still open.
    pub resolved: Vec<AlertTransition>,
    /// Open alerts that stay open, with since when they have been calm.
    pub calm: Vec<(AlertId, Option<Timestamp>)>,
}

/// What of a [`MonitorVerdict`] took effect (the rest had been done by
/// another instance, or its monitor was deleted meanwhile).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct AppliedVerdict {
    /// The alerts that opened.
    pub opened: Vec<AlertId>,
    /// The alerts that resolved.
    pub resolved: Vec<AlertId>,
}

/// One line of a digest: a notification that came after the window's
/// first ten.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DigestLine {
    /// The subject its own mail would have had.
    pub subject: String,
    /// The alert.
    pub alert: AlertId,
}

/// A digest whose window has ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DueDigest {
    /// The account.
    pub owner: AccountId,
    /// Its e-mail address.
    pub owner_email: String,
    /// When the window opened.
    pub window_opened: Timestamp,
    /// Its notifications, in the order they came.
    pub lines: Vec<DigestLine>,
}

/// Monitors, alerts, and the alert mail windows. Nothing here reads,
/// counts or changes another account's monitors or alerts.
#[cfg_attr(any(test, feature = "mocks"), automock)]
#[async_trait]
pub trait MonitorRepository: Send + Sync {
    /// Stores a new monitor.
    /// Appends `audit` in the same transaction.
    async fn create_monitor(
        &self,
        monitor: &NewMonitor,
        audit: &AuditNote,
    ) -> Result<(), StoreError>;
    /// A page of `owner`'s monitors, newest first (in creation order, also
    /// within one second).
    async fn list_monitors(
        &self,
        owner: AccountId,
        window: Window,
    ) -> Result<MonitorPage, StoreError>;
    /// One monitor of `owner`.
    async fn find_monitor(
        &self,
        owner: AccountId,
        id: &MonitorId,
    ) -> Result<Option<MonitorRecord>, StoreError>;
    /// Deletes a monitor of `owner` and its alerts (digest lines already
    /// due stay: those notifications were made); whether it existed.
    /// Appends `audit` when it did.
    async fn delete_monitor(
        &self,
        owner: AccountId,
        id: &MonitorId,
        audit: &AuditNote,
    ) -> Result<bool, StoreError>;
    /// Sets until when a monitor of `owner` is snoozed (`None` ends it);
    /// the monitor after the change, `None` when `owner` has no such one.
    /// Appends `audit` when there was one.
    async fn snooze_monitor(
        &self,
        owner: AccountId,
        id: &MonitorId,
        until: Option<Timestamp>,
        audit: &AuditNote,
    ) -> Result<Option<MonitorRecord>, StoreError>;
    /// A page of `owner`'s alerts matching `filter`, newest first (in
    /// opening order, also within one second).
    async fn list_alerts(
        &self,
        owner: AccountId,
        filter: &AlertFilter,
        window: Window,
    ) -> Result<AlertPage, StoreError>;
    /// One alert of `owner`.
    async fn find_alert(
        &self,
        owner: AccountId,
        id: &AlertId,
    ) -> Result<Option<AlertRecord>, StoreError>;
    /// Every monitor of every account with what it watches now (a device
    /// whose last heartbeat is later than `online_after` is online), in a
    /// bounded number of queries per monitor, whatever the number of
    /// devices: the down devices come from an index on the last heartbeat.
    async fn watch_monitors(
        &self,
        now: Timestamp,
        online_after: Timestamp,
    ) -> Result<Vec<MonitorWatch>, StoreError>;
    /// Records a verdict in one transaction: opens and resolves the alerts
    /// whose condition still holds, keeps `calm` and `above_since`, and for
    /// each alert that opened or resolved with a notice: queues its event
    /// for each of the owner's webhooks subscribed to it (a pending delivery
    /// each, due at once), and admits its mail into the owner's mail window
    /// ([`domain::MailWindow::admit`] with windows of `mail_window`): a mail
    /// of its own goes into the outbox, another becomes a line of the
    /// window's digest.
    async fn apply_verdict(
        &self,
        verdict: &MonitorVerdict,
        now: Timestamp,
        mail_window: Duration,
    ) -> Result<AppliedVerdict, StoreError>;
    /// The digests of windows that have ended by `now` (windows of
    /// `mail_window`) and still hold lines.
    async fn due_digests(
        &self,
        now: Timestamp,
        mail_window: Duration,
    ) -> Result<Vec<DueDigest>, StoreError>;
    /// Atomically deletes the lines of `owner`'s digest of the window that
    /// opened at `window_opened` and, if there were any, queues `mail` in
    /// the outbox as of `now`; whether it queued it (another instance may
    /// have sent it).
    async fn send_digest(
        &self,
        owner: AccountId,
        window_opened: Timestamp,
        mail: &Email,
        now: Timestamp,
    ) -> Result<bool, StoreError>;
}
