//! The ports: every way a use case reaches storage, mail, time, randomness
//! and password hashing. Adapters implement them; tests mock them.

use async_trait::async_trait;
use domain::secret::SecretHash;
use domain::{
    Account, AccountId, Command, CommandOutcome, CommandRecord, Device, EmailAddress, FactsReport,
    MachineType, Port, Serial, Timestamp,
};
use std::sync::Arc;
use thiserror::Error;

use crate::mail::Email;

#[cfg(any(test, feature = "mocks"))]
use mockall::automock;

/// An infrastructure failure (database, disk, network). Clients see a generic
/// 500; the cause chain goes to the log.
#[derive(Debug, Error)]
#[error("{context}")]
pub struct StoreError {
    context: String,
    #[source]
    source: Option<Box<dyn std::error::Error + Send + Sync>>,
    busy: bool,
}

impl StoreError {
    /// Wraps an adapter's error with a short description of what failed.
    pub fn new(
        context: impl Into<String>,
        source: impl Into<Box<dyn std::error::Error + Send + Sync>>,
    ) -> Self {
        Self {
            context: context.into(),
            source: Some(source.into()),
            busy: false,
        }
    }

    /// A failure with no underlying error value.
    pub fn message(context: impl Into<String>) -> Self {
        Self {
            context: context.into(),
            source: None,
            busy: false,
        }
    }

    /// The resource is saturated (too much work is waiting for it): nothing
    /// failed, and the same request may succeed shortly. Clients see 503.
    pub fn busy(context: impl Into<String>) -> Self {
        Self {
            context: context.into(),
            source: None,
            busy: true,
        }
    }

    /// Whether this is [`busy`](Self::busy).
    pub fn is_busy(&self) -> bool {
        self.busy
    }
}

/// What an e-mailed key is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyPurpose {
    /// Proves the account owner reads the address.
    VerifyEmail,
    /// Lets the owner set a new password.
    ResetPassword,
}

/// A key to be stored (only its hash) for an e-mailed link.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewEmailKey {
    /// SHA-256 of the key sent in the mail.
    pub hash: SecretHash,
    /// What the key is for.
    pub purpose: KeyPurpose,
    /// After this instant the key is refused.
    pub expires: Timestamp,
}

/// A key and the mail that carries it: stored together, in one transaction,
/// so the mail is queued exactly when the key exists.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MailedKey {
    /// The key (its hash) to store.
    pub key: NewEmailKey,
    /// The mail with the link, for the outbox.
    pub mail: Email,
    /// When the key was made and its mail queued.
    pub created: Timestamp,
}

/// An account to create, with what must be created atomically alongside it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewAccount {
    /// Login address.
    pub email: EmailAddress,
    /// Display name.
    pub name: String,
    /// PHC hash of the password, when one is set at creation.
    pub password_hash: Option<String>,
    /// Whether the address counts as verified from the start.
    pub email_verified: bool,
    /// The account's install token.
    pub install_token: String,
    /// Creation time.
    pub created_time: Timestamp,
    /// An API token to issue in the same transaction.
    pub first_token: Option<SecretHash>,
    /// A verification key, and its mail for the outbox, stored in the same transaction.
    pub verification: Option<MailedKey>,
}

/// Why an account could not be created.
#[derive(Debug, Error)]
pub enum CreateAccountError {
    /// An account with this address (ignoring case) exists.
    #[error("an account with this e-mail already exists")]
    DuplicateEmail,
    /// Storage failed.
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// Accounts.
#[cfg_attr(any(test, feature = "mocks"), automock)]
#[async_trait]
pub trait AccountRepository: Send + Sync {
    /// Creates an account and, atomically, its first token, its verification
    /// key and the queued mail that carries the key.
    /// Must return [`CreateAccountError::DuplicateEmail`] when the address is taken.
    async fn create(&self, account: NewAccount) -> Result<Account, CreateAccountError>;
    /// The account with this address, ignoring letter case.
    async fn find_by_email(&self, email: &EmailAddress) -> Result<Option<Account>, StoreError>;
    /// Sets the display name and returns the updated account.
    async fn update_name(&self, id: AccountId, name: &str) -> Result<Account, StoreError>;
    /// Sets a new password hash and, in the same transaction, ends every
    /// outstanding reset key of the account (a link mailed before the change
    /// must not undo it).
    async fn set_password(&self, id: AccountId, password_hash: &str) -> Result<(), StoreError>;
    /// Gives the account a new install token (the old one ends at once) and
    /// returns the updated account. Enrolled devices keep their tokens.
    async fn replace_install_token(
        &self,
        id: AccountId,
        install_token: &str,
    ) -> Result<Account, StoreError>;
    /// The account with this install token.
    async fn find_by_install_token(&self, token: &str) -> Result<Option<Account>, StoreError>;
}

/// API tokens, stored only as hashes.
#[cfg_attr(any(test, feature = "mocks"), automock)]
#[async_trait]
pub trait TokenRepository: Send + Sync {
    /// Stores a new token of the account.
    async fn issue(
        &self,
        account: AccountId,
        token: &SecretHash,
        created: Timestamp,
    ) -> Result<(), StoreError>;
    /// The account a token belongs to, if the token exists.
    async fn account_for(&self, token: &SecretHash) -> Result<Option<Account>, StoreError>;
    /// Deletes one token; other tokens of the account stay valid.
    async fn revoke(&self, token: &SecretHash) -> Result<(), StoreError>;
    /// Deletes every token of the account.
    async fn revoke_all(&self, account: AccountId) -> Result<(), StoreError>;
}

/// The most reset keys an account has outstanding: storing another ends the
/// oldest, so requests cannot pile keys up.
pub const MAX_OUTSTANDING_RESET_KEYS: usize = 5;

/// Keys sent in e-mailed links, stored only as hashes.
#[cfg_attr(any(test, feature = "mocks"), automock)]
#[async_trait]
pub trait EmailKeyRepository: Send + Sync {
    /// Stores a key of the account and queues its mail, in one transaction.
    /// Of the account's outstanding (unused, unexpired) reset keys, only the
    /// newest [`MAX_OUTSTANDING_RESET_KEYS`] are kept.
    async fn store(&self, account: AccountId, key: MailedKey) -> Result<(), StoreError>;
    /// If `key` is a verification key that has not expired at `now`, marks the
    /// address of its account verified (again, if it was) and returns true.
    async fn verify_email(&self, key: &SecretHash, now: Timestamp) -> Result<bool, StoreError>;
    /// The account a reset key opens, while the key is unused and unexpired.
    async fn reset_account(
        &self,
        key: &SecretHash,
        now: Timestamp,
    ) -> Result<Option<Account>, StoreError>;
    /// Atomically, if the reset key is still unused and unexpired: sets the
    /// password hash, marks the address verified, ends every reset key and
    /// every API token of the account, and replaces its install token.
    /// Returns whether it did (false when another request used the key first).
    async fn complete_reset(
        &self,
        key: &SecretHash,
        reset: &CompletedReset,
    ) -> Result<bool, StoreError>;
    /// Forgets keys that have expired at `now`, and reset keys already used.
    async fn purge_keys(&self, now: Timestamp) -> Result<(), StoreError>;
}

/// What a successful password reset changes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompletedReset {
    /// When the key is used.
    pub now: Timestamp,
    /// PHC hash of the new password.
    pub password_hash: String,
    /// The account's new install token.
    pub install_token: String,
}

/// A mail waiting in the outbox.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QueuedEmail {
    /// The mail (its `id` names it in the outbox).
    pub email: Email,
    /// Failed delivery attempts so far.
    pub attempts: u32,
    /// When the change that caused it was committed.
    pub queued_time: Timestamp,
}

/// Mail recorded with the change that causes it, waiting for delivery.
/// Mail is added by the repositories that make those changes
/// ([`AccountRepository::create`], [`EmailKeyRepository::store`]).
#[cfg_attr(any(test, feature = "mocks"), automock)]
#[async_trait]
pub trait Outbox: Send + Sync {
    /// Takes the mail due longest, if any is due at `now`, and hides it from
    /// other workers until `lease_until` (after which a crash is retried).
    async fn claim_due(
        &self,
        now: Timestamp,
        lease_until: Timestamp,
    ) -> Result<Option<QueuedEmail>, StoreError>;
    /// Forgets a mail: delivered, or never deliverable. Its links are secrets.
    async fn remove(&self, id: &str) -> Result<(), StoreError>;
    /// Schedules another attempt at `next_attempt`, recording the failure.
    async fn retry_at(
        &self,
        id: &str,
        attempts: u32,
        next_attempt: Timestamp,
        error: &str,
    ) -> Result<(), StoreError>;
    /// When the next queued mail falls due, if any is queued.
    async fn next_due(&self) -> Result<Option<Timestamp>, StoreError>;
    /// Returns once this process may have queued mail, or after `timeout`.
    async fn wait_for_mail(&self, timeout: std::time::Duration);
}

/// How failed logins lock an account.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LockoutPolicy {
    /// This many failed logins within `period` lock the account…
    pub max_failures: u32,
    /// …for this long, and failures older than this are forgotten.
    pub period: chrono::Duration,
}

/// Whether a login attempt may check a password.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Admission {
    /// Yes; the attempt counts as a failure until [`LoginAttemptRepository::clear`].
    Admitted,
    /// No: the address is locked until then.
    Locked(Timestamp),
}

/// Failed logins per account (keyed by the lowercased address, whether or
/// not an account has it, so a lock reveals nothing), shared by every
/// instance on the database.
///
/// An attempt is counted as a failure *before* its password is checked, so
/// concurrent attempts cannot all slip past the lockout: of any number of
/// them, no more are admitted than the failures the lockout still allows.
#[cfg_attr(any(test, feature = "mocks"), automock)]
#[async_trait]
pub trait LoginAttemptRepository: Send + Sync {
    /// Atomically: refuses the attempt while the address is locked at `now`;
    /// otherwise counts it as a failure (the `policy.max_failures`-th within
    /// `policy.period` locks the address until `now + policy.period`) and
    /// admits it.
    async fn admit(
        &self,
        address: &str,
        now: Timestamp,
        policy: LockoutPolicy,
    ) -> Result<Admission, StoreError>;
    /// Forgets the failures (and lock) of an address: its password was right.
    async fn clear(&self, address: &str) -> Result<(), StoreError>;
    /// Forgets addresses with no lock in force at `now` and no failure
    /// younger than `period`.
    async fn purge(&self, now: Timestamp, period: chrono::Duration) -> Result<(), StoreError>;
}

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
    pub name: Option<String>,
    /// A new description.
    pub description: Option<String>,
}

/// A device enrolling through its agent, or enrolling again.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Enrolment {
    /// The account of the install token.
    pub owner: AccountId,
    /// The device's serial.
    pub serial: Serial,
    /// Its name.
    pub name: String,
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
    /// One device, only if it belongs to `owner`.
    async fn find_for(
        &self,
        owner: AccountId,
        serial: &Serial,
    ) -> Result<Option<Device>, StoreError>;
    /// Stores a new device. Must return [`CreateDeviceError::DuplicateSerial`]
    /// when the serial is taken.
    async fn create(&self, device: &Device) -> Result<(), CreateDeviceError>;
    /// Applies the changes to a device of `owner`; the updated device, or
    /// `None` when `owner` has no such device.
    async fn update(
        &self,
        owner: AccountId,
        serial: &Serial,
        changes: &DeviceChanges,
    ) -> Result<Option<Device>, StoreError>;
    /// Deletes a device of `owner` with its credential, ports and commands,
    /// and wakes its long polls. Returns whether there was one.
    async fn delete(&self, owner: AccountId, serial: &Serial) -> Result<bool, StoreError>;
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
    /// the device is online.
    async fn enroll(&self, enrolment: &Enrolment) -> Result<Device, EnrolError>;
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

/// Commands waiting for devices.
#[cfg_attr(any(test, feature = "mocks"), automock)]
#[async_trait]
pub trait CommandRepository: Send + Sync {
    /// Queues a reboot for the device unless one issued after `lapse_before`
    /// has not ended yet (pending, delivered or received), and wakes its
    /// listeners. Returns whether a new command was queued.
    async fn queue_reboot(
        &self,
        device: &Serial,
        command_id: &str,
        now: Timestamp,
        lapse_before: Timestamp,
    ) -> Result<bool, StoreError>;
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
        command_id: &str,
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

/// Why a mail was not delivered.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum MailError {
    /// Worth another try later: the server is unreachable, busy, or
    /// answered with a temporary (4xx) refusal.
    #[error("temporary failure: {0}")]
    Transient(String),
    /// Trying again cannot help: a malformed address, or a permanent (5xx)
    /// refusal.
    #[error("permanent failure: {0}")]
    Permanent(String),
}

/// Delivers e-mail (called by the outbox worker only).
#[cfg_attr(any(test, feature = "mocks"), automock)]
#[async_trait]
pub trait Mailer: Send + Sync {
    /// Delivers one message. `email.id` makes its `Message-ID`, so a retried
    /// mail keeps the same one.
    async fn send(&self, email: &Email) -> Result<(), MailError>;
}

/// Where the links in mail lead: the adapter that serves them knows their
/// URLs; the use cases only hand it the key.
#[cfg_attr(any(test, feature = "mocks"), automock)]
pub trait MailLinks: Send + Sync {
    /// The link that verifies an e-mail address with `key`.
    fn verify_email(&self, key: &str) -> String;
    /// The link that opens the form for a new password with `key`.
    fn reset_password(&self, key: &str) -> String;
}

/// Hashes and checks passwords (slowly, by design).
#[cfg_attr(any(test, feature = "mocks"), automock)]
#[async_trait]
pub trait PasswordHasher: Send + Sync {
    /// Hashes a password into a PHC string.
    async fn hash(&self, password: &str) -> Result<String, StoreError>;
    /// Checks a password against a hash. With no hash, checks it against a
    /// dummy one and returns `false`, so both take the same time.
    async fn verify(&self, password: &str, hash: Option<String>) -> Result<bool, StoreError>;
}

/// The current time.
#[cfg_attr(any(test, feature = "mocks"), automock)]
pub trait Clock: Send + Sync {
    /// Now, in UTC.
    fn now(&self) -> Timestamp;
}

/// Cryptographically secure random bytes.
#[cfg_attr(any(test, feature = "mocks"), automock)]
pub trait RandomSource: Send + Sync {
    /// Exactly `len` random bytes.
    fn bytes(&self, len: usize) -> Vec<u8>;
}

/// Every port, as the use cases hold them.
#[derive(Clone)]
pub struct Ports {
    /// Accounts.
    pub accounts: Arc<dyn AccountRepository>,
    /// API tokens.
    pub tokens: Arc<dyn TokenRepository>,
    /// E-mailed keys.
    pub keys: Arc<dyn EmailKeyRepository>,
    /// Devices.
    pub devices: Arc<dyn DeviceRepository>,
    /// Device commands.
    pub commands: Arc<dyn CommandRepository>,
    /// Mail waiting for delivery.
    pub outbox: Arc<dyn Outbox>,
    /// Failed logins.
    pub login_attempts: Arc<dyn LoginAttemptRepository>,
    /// Mail delivery.
    pub mailer: Arc<dyn Mailer>,
    /// The links in mail.
    pub links: Arc<dyn MailLinks>,
    /// Password hashing.
    pub hasher: Arc<dyn PasswordHasher>,
    /// Time.
    pub clock: Arc<dyn Clock>,
    /// Randomness.
    pub random: Arc<dyn RandomSource>,
}
