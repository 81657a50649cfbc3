//! The ports of accounts: accounts, API tokens, e-mailed keys and failed logins.

use async_trait::async_trait;
#[cfg(any(test, feature = "mocks"))]
use mockall::automock;

use super::StoreError;
use crate::mail::Email;
use domain::secret::SecretHash;
use domain::{Account, AccountId, AuditNote, EmailAddress, InstallToken, ProfileName, Timestamp};
use thiserror::Error;

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
    pub name: ProfileName,
    /// PHC hash of the password, when one is set at creation.
    pub password_hash: Option<String>,
    /// Whether the address counts as verified from the start.
    pub email_verified: bool,
    /// The account's install token.
    pub install_token: InstallToken,
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
    /// Appends `audit` to the audit log, shown in the new account's log.
    async fn create(
        &self,
        account: NewAccount,
        audit: &AuditNote,
    ) -> Result<Account, CreateAccountError>;
    /// The account with this address, ignoring letter case.
    async fn find_by_email(&self, email: &EmailAddress) -> Result<Option<Account>, StoreError>;
    /// Sets the display name and returns the updated account.
    /// Appends `audit` when the name it had was another.
    async fn update_name(
        &self,
        id: AccountId,
        name: &ProfileName,
        audit: &AuditNote,
    ) -> Result<Account, StoreError>;
    /// Sets a new password hash and, in the same transaction, ends every
    /// outstanding reset key of the account (a link mailed before the change
    /// must not undo it).
    /// Appends `audit`, when given, in the same transaction.
    // Named lifetimes: mockall cannot mock an elided one inside `Option<&_>`.
    async fn set_password<'s, 'h, 'a>(
        &'s self,
        id: AccountId,
        password_hash: &'h str,
        audit: Option<&'a AuditNote>,
    ) -> Result<(), StoreError>;
    /// Gives the account a new install token (the old one ends at once) and
    /// returns the updated account. Enrolled devices keep their tokens.
    async fn replace_install_token(
        &self,
        id: AccountId,
        install_token: &InstallToken,
        audit: &AuditNote,
    ) -> Result<Account, StoreError>;
    /// The account with this install token.
    async fn find_by_install_token(
        &self,
        token: &InstallToken,
    ) -> Result<Option<Account>, StoreError>;
}

/// API tokens, stored only as hashes.
#[cfg_attr(any(test, feature = "mocks"), automock)]
#[async_trait]
pub trait TokenRepository: Send + Sync {
    /// Stores a new token of the account.
    // Named lifetimes: mockall cannot mock an elided one inside `Option<&_>`.
    async fn issue<'s, 't, 'a>(
        &'s self,
        account: AccountId,
        token: &'t SecretHash,
        created: Timestamp,
        audit: Option<&'a AuditNote>,
    ) -> Result<(), StoreError>;
    /// The account a token belongs to, if the token exists.
    async fn account_for(&self, token: &SecretHash) -> Result<Option<Account>, StoreError>;
    /// Deletes one token; other tokens of the account stay valid. Appends
    /// `audit`, when given, if there was such a token (to its account's log).
    // Named lifetimes: mockall cannot mock an elided one inside `Option<&_>`.
    async fn revoke<'s, 't, 'a>(
        &'s self,
        token: &'t SecretHash,
        audit: Option<&'a AuditNote>,
    ) -> Result<(), StoreError>;
    /// Deletes every token of the account, and appends `audit` when given.
    // Named lifetimes: mockall cannot mock an elided one inside `Option<&_>`.
    async fn revoke_all<'s, 'a>(
        &'s self,
        account: AccountId,
        audit: Option<&'a AuditNote>,
    ) -> Result<(), StoreError>;
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
    /// Appends `audit` when it did, to the account's log. Returns whether
    /// it did (false when another request used the key first).
    async fn complete_reset(
        &self,
        key: &SecretHash,
        reset: &CompletedReset,
        audit: &AuditNote,
    ) -> Result<bool, StoreError>;
    /// Forgets keys that have expired at `now`, and reset keys already used.
    async fn purge_keys(&self, now: Timestamp) -> Result<(), StoreError>;
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

/// What a successful password reset changes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompletedReset {
    /// When the key is used.
    pub now: Timestamp,
    /// PHC hash of the new password.
    pub password_hash: String,
    /// The account's new install token.
    pub install_token: InstallToken,
}
