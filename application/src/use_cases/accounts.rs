//! Registering, the display name, the install token, and passwords.

use super::lockout::Lockout;
use super::secrets::Secrets;
use super::verification::VerificationMail;
use super::{Registration, Requester};
use crate::ports::{
    AccountRepository, Clock, CreateAccountError, NewAccount, PasswordHasher, StoreError,
};
use domain::password::{self, PasswordProblem};
use domain::secret::SecretHash;
use domain::{
    Account, Actor, AuditAction, AuditDetail, AuditNote, AuditTarget, EmailAddress, InstallToken,
    Origin, ProfileName,
};
use std::net::IpAddr;
use std::sync::Arc;
use thiserror::Error;

/// Why a registration was refused.
#[derive(Debug, Error)]
pub enum RegisterError {
    /// Registration is closed on this server.
    #[error("registration is closed")]
    Closed,
    /// The address (ignoring case) has an account already.
    #[error("an account with this e-mail already exists")]
    DuplicateEmail,
    /// Infrastructure failure.
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl From<CreateAccountError> for RegisterError {
    fn from(error: CreateAccountError) -> Self {
        match error {
            CreateAccountError::DuplicateEmail => Self::DuplicateEmail,
            CreateAccountError::Store(e) => Self::Store(e),
        }
    }
}

/// What was wrong with the old password of a password change.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OldPasswordProblem {
    /// Needed (the account has a usable password) but not sent.
    Missing,
    /// Sent but wrong.
    Wrong,
}

/// Why a password change was refused; every problem found is reported.
#[derive(Debug, Error)]
pub enum ChangePasswordError {
    /// The request breaks one or more rules.
    #[error("password change rejected")]
    Rejected {
        /// The old password's problem, if any.
        old_password: Option<OldPasswordProblem>,
        /// Every policy rule the new password breaks.
        new_password: Vec<PasswordProblem>,
    },
    /// Too many wrong passwords (here or at login): the account is locked.
    #[error("too many failed password attempts; try again in {retry_after_secs} s")]
    LockedOut {
        /// Whole seconds until the lock ends (at least 1).
        retry_after_secs: u64,
    },
    /// Infrastructure failure.
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// Why an operator could not create a user.
#[derive(Debug, Error)]
pub enum CreateUserError {
    /// The address (ignoring case) has an account already.
    #[error("an account with this e-mail already exists")]
    DuplicateEmail,
    /// The password breaks the policy.
    #[error("the password is {}", .0.iter().map(ToString::to_string).collect::<Vec<_>>().join(", "))]
    Password(Vec<PasswordProblem>),
    /// Infrastructure failure.
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl From<CreateAccountError> for CreateUserError {
    fn from(error: CreateAccountError) -> Self {
        match error {
            CreateAccountError::DuplicateEmail => Self::DuplicateEmail,
            CreateAccountError::Store(e) => Self::Store(e),
        }
    }
}

/// A user made by an operator.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CreatedUser {
    /// The stored address.
    pub email: String,
    /// A fresh API token.
    pub token: String,
    /// The account's install token.
    pub install_token: InstallToken,
}

/// Registering, the profile, and passwords.
#[derive(Clone)]
pub struct Accounts {
    pub(super) accounts: Arc<dyn AccountRepository>,
    pub(super) hasher: Arc<dyn PasswordHasher>,
    pub(super) clock: Arc<dyn Clock>,
    pub(super) secrets: Secrets,
    pub(super) lockout: Lockout,
    pub(super) verification_mail: VerificationMail,
    pub(super) registration: Registration,
}

impl Accounts {
    /// Whether anyone may register.
    pub fn registration_is_open(&self) -> bool {
        self.registration == Registration::Open
    }

    /// Registers an account with no usable password and returns its first
    /// API token; a verification link is queued for mailing in the same
    /// transaction.
    pub async fn register(
        &self,
        email: EmailAddress,
        address: Option<IpAddr>,
    ) -> Result<String, RegisterError> {
        let token = self.secrets.mint_api_token();
        self.create_registered(email, Some(token.hash), address)
            .await?;
        Ok(token.secret)
    }

    /// Registers an account as [`register`](Self::register) does, without
    /// an API token (the console signs it in with a session instead).
    pub async fn register_for_console(
        &self,
        email: EmailAddress,
        address: Option<IpAddr>,
    ) -> Result<Account, RegisterError> {
        self.create_registered(email, None, address).await
    }

    async fn create_registered(
        &self,
        email: EmailAddress,
        first_token: Option<SecretHash>,
        address: Option<IpAddr>,
    ) -> Result<Account, RegisterError> {
        if !self.registration_is_open() {
            return Err(RegisterError::Closed);
        }
        let verification = self.verification_mail.key_for(&email);
        let now = self.clock.now();
        let audit = AuditNote::new(
            Origin::new(now, Actor::user(&email), address),
            AuditAction::AccountRegister,
            AuditTarget::account(&email),
        );
        let account = NewAccount {
            email,
            name: ProfileName::default(),
            password_hash: None,
            email_verified: false,
            install_token: self.secrets.mint_install_token(),
            created_time: now,
            first_token,
            verification: Some(verification),
        };
        Ok(self.accounts.create(account, &audit).await?)
    }

    /// Sets the display name (recorded when it was another).
    pub async fn rename(
        &self,
        by: Requester<'_>,
        name: &ProfileName,
    ) -> Result<Account, StoreError> {
        let audit = by.note_with(
            self.clock.now(),
            AuditAction::ProfileUpdate,
            AuditTarget::account(&by.account.email),
            AuditDetail::changed(vec!["name"]),
        );
        self.accounts.update_name(by.account.id, name, &audit).await
    }

    /// Changes the password. `old` is needed only while the account has a
    /// usable password; every problem is reported at once. Checking `old`
    /// is a password attempt like a login: it counts against the account's
    /// lockout, and is refused while the account is locked. Every
    /// outstanding reset link of the account ends.
    pub async fn change_password(
        &self,
        by: Requester<'_>,
        old: Option<&str>,
        new: &str,
    ) -> Result<(), ChangePasswordError> {
        let account = by.account;
        let old_problem = match (&account.password_hash, old) {
            (None, _) => None,
            (Some(_), None) => Some(OldPasswordProblem::Missing),
            (Some(hash), Some(old)) => {
                if let Some(retry_after_secs) = self.lockout.admit(&account.email).await? {
                    return Err(ChangePasswordError::LockedOut { retry_after_secs });
                }
                let matches = self.hasher.verify(old, Some(hash.clone())).await?;
                if matches {
                    self.lockout.forget(&account.email).await?;
                }
                (!matches).then_some(OldPasswordProblem::Wrong)
            }
        };
        let new_problems = password::check(new, &account.password_context())
            .err()
            .unwrap_or_default();
        if old_problem.is_some() || !new_problems.is_empty() {
            return Err(ChangePasswordError::Rejected {
                old_password: old_problem,
                new_password: new_problems,
            });
        }
        let hash = self.hasher.hash(new).await?;
        let audit = by.account_note(self.clock.now(), AuditAction::PasswordChange);
        Ok(self
            .accounts
            .set_password(account.id, &hash, Some(&audit))
            .await?)
    }

    /// Gives the account a new install token; the old one ends at once.
    /// Devices enrolled with it keep working.
    pub async fn rotate_install_token(&self, by: Requester<'_>) -> Result<Account, StoreError> {
        let install_token = self.secrets.mint_install_token();
        let audit = by.account_note(self.clock.now(), AuditAction::InstallTokenRotate);
        self.accounts
            .replace_install_token(by.account.id, &install_token, &audit)
            .await
    }

    /// Creates a user from the command line: optionally with a password
    /// (which must pass the policy) and already verified. Returns a token.
    pub async fn create_user(
        &self,
        email: EmailAddress,
        password: Option<&str>,
        name: ProfileName,
        verified: bool,
    ) -> Result<CreatedUser, CreateUserError> {
        let install_token = self.secrets.mint_install_token();
        let password_hash = match password {
            None => None,
            Some(password) => {
                let context = password::PasswordContext {
                    email: email.as_str(),
                    name: name.as_str(),
                    install_token: install_token.as_str(),
                };
                password::check(password, &context).map_err(CreateUserError::Password)?;
                Some(self.hasher.hash(password).await?)
            }
        };
        let token = self.secrets.mint_api_token();
        let now = self.clock.now();
        let audit = AuditNote::new(
            Origin::cli(now),
            AuditAction::AccountCreate,
            AuditTarget::account(&email),
        );
        let account = NewAccount {
            email,
            name,
            password_hash,
            email_verified: verified,
            install_token: install_token.clone(),
            created_time: now,
            first_token: Some(token.hash),
            verification: None,
        };
        let account = self.accounts.create(account, &audit).await?;
        Ok(CreatedUser {
            email: account.email.to_string(),
            token: token.secret,
            install_token,
        })
    }
}

#[cfg(test)]
mod tests;
