//! The ports: every way a use case reaches storage, mail, time, randomness
//! and password hashing. Adapters implement them; tests mock them.

use async_trait::async_trait;
use domain::secret::SecretHash;
use domain::{Account, AccountId, Device, EmailAddress, Serial, Timestamp};
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
        }
    }

    /// A failure with no underlying error value.
    pub fn message(context: impl Into<String>) -> Self {
        Self {
            context: context.into(),
            source: None,
        }
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
    /// A verification key to store in the same transaction.
    pub verification_key: Option<NewEmailKey>,
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
    /// Creates an account and, atomically, its first token and verification key.
    /// Must return [`CreateAccountError::DuplicateEmail`] when the address is taken.
    async fn create(&self, account: NewAccount) -> Result<Account, CreateAccountError>;
    /// The account with this address, ignoring letter case.
    async fn find_by_email(&self, email: &EmailAddress) -> Result<Option<Account>, StoreError>;
    /// Sets the display name and returns the updated account.
    async fn update_name(&self, id: AccountId, name: &str) -> Result<Account, StoreError>;
    /// Sets a new password hash.
    async fn set_password(&self, id: AccountId, password_hash: &str) -> Result<(), StoreError>;
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
}

/// Keys sent in e-mailed links, stored only as hashes.
#[cfg_attr(any(test, feature = "mocks"), automock)]
#[async_trait]
pub trait EmailKeyRepository: Send + Sync {
    /// Stores a key of the account.
    async fn store(&self, account: AccountId, key: NewEmailKey) -> Result<(), StoreError>;
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
}

/// Commands waiting for devices.
#[cfg_attr(any(test, feature = "mocks"), automock)]
#[async_trait]
pub trait CommandRepository: Send + Sync {
    /// Queues a reboot for the device unless one issued after `lapse_before`
    /// is still pending. Returns whether a new command was queued.
    async fn queue_reboot(
        &self,
        device: &Serial,
        command_id: &str,
        now: Timestamp,
        lapse_before: Timestamp,
    ) -> Result<bool, StoreError>;
}

/// Sends e-mail.
#[cfg_attr(any(test, feature = "mocks"), automock)]
#[async_trait]
pub trait Mailer: Send + Sync {
    /// Sends one message.
    async fn send(&self, email: &Email) -> Result<(), StoreError>;
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
    /// Outgoing mail.
    pub mailer: Arc<dyn Mailer>,
    /// Password hashing.
    pub hasher: Arc<dyn PasswordHasher>,
    /// Time.
    pub clock: Arc<dyn Clock>,
    /// Randomness.
    pub random: Arc<dyn RandomSource>,
}
