//! Mocks of every port, assembled into an application for unit tests.

use super::{Requester, Services, Settings};
use crate::ports::*;
use chrono::{TimeZone, Utc};
use domain::{
    Account, AccountId, AuditNote, BoundedText, Device, DeviceFacts, EmailAddress, InstallToken,
    Origin, Serial, Timestamp,
};
use std::net::IpAddr;
use std::sync::{Arc, Mutex};

/// The fixed "now" of every unit test.
pub(crate) fn now() -> Timestamp {
    Utc.with_ymd_and_hms(2026, 3, 1, 12, 0, 0)
        .single()
        .expect("valid date")
}

pub(crate) fn email() -> EmailAddress {
    EmailAddress::parse("owner@example.com").expect("valid address")
}

/// Checked text for tests: `value` must pass `T`'s rule.
pub(crate) fn text<T: BoundedText>(value: &str) -> T {
    T::parse(value).expect("text within its rule")
}

/// Account 7, `owner@example.com`, install token `i` × 32.
pub(crate) fn account(verified: bool, password_hash: Option<&str>) -> Account {
    Account {
        id: AccountId(7),
        email: email(),
        name: text("Owner"),
        password_hash: password_hash.map(str::to_owned),
        email_verified: verified,
        install_token: InstallToken::parse(&"i".repeat(32)).expect("32 letters"),
        created_time: now(),
    }
}

/// Device "pi" of account 7, serial from bytes `[3; 16]`, last heard of at `last_seen`.
pub(crate) fn device(last_seen: Option<Timestamp>) -> Device {
    Device {
        serial: Serial::from_random_bytes([3; 16]),
        owner: AccountId(7),
        name: text("pi"),
        description: text(""),
        wormhole_slug: "calm-otter-abc123".into(),
        facts: DeviceFacts::default(),
        tags: domain::TagSet::default(),
        last_seen,
        created_time: now(),
    }
}

/// The client address of the tests' requests.
pub(crate) fn client() -> IpAddr {
    "203.0.113.9".parse().expect("an address")
}

/// `account` asking from [`client`].
pub(crate) fn by(account: &Account) -> Requester<'_> {
    Requester::new(account, Some(client()))
}

/// What a mocked repository was asked to record, in order, as [`line`]s
/// (or [`origin_line`]s), kept for asserting on after the call: a failed
/// `withf` would only say that nothing matched.
#[derive(Clone, Default)]
pub(crate) struct Notes(Arc<Mutex<Vec<String>>>);

impl Notes {
    /// Keeps `note` as its [`line`].
    pub(crate) fn keep(&self, note: &AuditNote) {
        self.push(line(note));
    }

    /// Keeps `note` when there is one.
    pub(crate) fn keep_some(&self, note: Option<&AuditNote>) {
        note.into_iter().for_each(|note| self.keep(note));
    }

    /// Keeps `origin` as its [`origin_line`] (the store builds the note).
    pub(crate) fn keep_origin(&self, origin: &Origin) {
        self.push(origin_line(origin));
    }

    fn push(&self, line: String) {
        self.0.lock().expect("not poisoned").push(line);
    }

    /// Everything kept, in order.
    pub(crate) fn lines(&self) -> Vec<String> {
        self.0.lock().expect("not poisoned").clone()
    }
}

/// A note as one line: `<actor kind> <label> <ip or -> <action> <target>
/// <detail as sealed>`, after asserting it was made at [`now`].
pub(crate) fn line(note: &AuditNote) -> String {
    assert_eq!(note.origin.time, now(), "a note is made at the clock's now");
    let entry = note.seal(None);
    format!(
        "{} {} {} {} {} {}",
        entry.actor_kind,
        entry.actor_label,
        entry.ip.as_deref().unwrap_or("-"),
        entry.action,
        entry.target,
        entry.detail
    )
}

/// An origin as the start of a [`line`]: `<actor kind> <label> <ip or ->`,
/// after asserting it is at [`now`].
pub(crate) fn origin_line(origin: &Origin) -> String {
    assert_eq!(origin.time, now(), "an origin is at the clock's now");
    format!(
        "{} {} {}",
        origin.actor.kind().as_str(),
        origin.actor.label(),
        origin
            .ip
            .map_or_else(|| "-".to_owned(), |ip| ip.to_string())
    )
}

/// Links as the port hands them out; the routes are the adapter's business.
struct TestLinks;

impl MailLinks for TestLinks {
    fn verify_email(&self, key: &str) -> String {
        format!("https://links.test/v?key={key}")
    }

    fn reset_password(&self, key: &str) -> String {
        format!("https://links.test/r?key={key}")
    }
}

/// Event data as short, recognisable JSON; the shapes are the adapter's business.
struct TestEventData;

impl EventData for TestEventData {
    fn alert(&self, alert: &AlertRecord) -> String {
        format!(
            "{{\"alert\":\"{}\",\"state\":\"{}\"}}",
            alert.id,
            alert.state.code()
        )
    }

    fn job(&self, job: &JobRecord) -> String {
        format!(
            "{{\"job\":\"{}\",\"status\":\"{}\"}}",
            job.id,
            job.status.code()
        )
    }

    fn webhook(&self, webhook: &WebhookRecord) -> String {
        format!("{{\"webhook\":\"{}\"}}", webhook.id)
    }
}

/// Fleet signals that accept any announcement.
pub(crate) fn announcements_ignored() -> MockFleetSignals {
    let mut signals = MockFleetSignals::new();
    signals.expect_announce().returning(|_| ());
    signals
}

/// Fleet signals that expect exactly `times` announcements, all for account 7.
pub(crate) fn announcements(times: usize) -> MockFleetSignals {
    let mut signals = MockFleetSignals::new();
    signals
        .expect_announce()
        .withf(|owner| *owner == AccountId(7))
        .times(times)
        .returning(|_| ());
    signals
}

/// One mock per port; set expectations, then call [`Harness::app`].
pub(crate) struct Harness {
    pub accounts: MockAccountRepository,
    pub tokens: MockTokenRepository,
    pub keys: MockEmailKeyRepository,
    pub devices: MockDeviceRepository,
    pub commands: MockCommandRepository,
    pub jobs: MockJobRepository,
    pub monitors: MockMonitorRepository,
    pub webhooks: MockWebhookRepository,
    pub transport: MockWebhookTransport,
    pub outbox: MockOutbox,
    pub login_attempts: MockLoginAttemptRepository,
    pub console_sessions: MockConsoleSessionRepository,
    /// Accepts every announcement unless a test puts its own in.
    pub fleet_signals: MockFleetSignals,
    pub probe: MockStoreProbe,
    pub audit: MockAuditLog,
    pub mailer: MockMailer,
    pub hasher: MockPasswordHasher,
}

impl Harness {
    pub(crate) fn new() -> Self {
        Self {
            accounts: MockAccountRepository::new(),
            tokens: MockTokenRepository::new(),
            keys: MockEmailKeyRepository::new(),
            devices: MockDeviceRepository::new(),
            commands: MockCommandRepository::new(),
            jobs: MockJobRepository::new(),
            monitors: MockMonitorRepository::new(),
            webhooks: MockWebhookRepository::new(),
            transport: MockWebhookTransport::new(),
            outbox: MockOutbox::new(),
            login_attempts: MockLoginAttemptRepository::new(),
            console_sessions: MockConsoleSessionRepository::new(),
            fleet_signals: announcements_ignored(),
            probe: MockStoreProbe::new(),
            audit: MockAuditLog::new(),
            mailer: MockMailer::new(),
            hasher: MockPasswordHasher::new(),
        }
    }

    /// Every password attempt is admitted (for tests about other things).
    pub(crate) fn never_locked(mut self) -> Self {
        self.login_attempts
            .expect_admit()
            .returning(|_, _, _| Ok(Admission::Admitted));
        self.login_attempts.expect_clear().returning(|_| Ok(()));
        self
    }

    /// The application over these mocks, a fixed clock and counting "random" bytes.
    pub(crate) fn app(self) -> Services {
        self.app_with(|_| {})
    }

    /// Like [`app`](Self::app), with settings changed by `change`.
    pub(crate) fn app_with(self, change: impl FnOnce(&mut Settings)) -> Services {
        let mut settings = Settings::default();
        change(&mut settings);
        let mut clock = MockClock::new();
        clock.expect_now().returning(now);
        let mut random = MockRandomSource::new();
        random
            .expect_bytes()
            .returning(|len| (0..len).map(|i| i as u8).collect());
        Services::new(
            Ports {
                accounts: Arc::new(self.accounts),
                tokens: Arc::new(self.tokens),
                keys: Arc::new(self.keys),
                devices: Arc::new(self.devices),
                commands: Arc::new(self.commands),
                jobs: Arc::new(self.jobs),
                monitors: Arc::new(self.monitors),
                webhooks: Arc::new(self.webhooks),
                transport: Arc::new(self.transport),
                event_data: Arc::new(TestEventData),
                outbox: Arc::new(self.outbox),
                login_attempts: Arc::new(self.login_attempts),
                console_sessions: Arc::new(self.console_sessions),
                fleet_signals: Arc::new(self.fleet_signals),
                probe: Arc::new(self.probe),
                audit: Arc::new(self.audit),
                mailer: Arc::new(self.mailer),
                links: Arc::new(TestLinks),
                hasher: Arc::new(self.hasher),
                clock: Arc::new(clock),
                random: Arc::new(random),
            },
            settings,
        )
    }
}
