//! Setting a new password through an e-mailed link.

use super::lockout::Lockout;
use super::secrets::Secrets;
use crate::mail;
use crate::ports::{
    AccountRepository, Clock, CompletedReset, ConsoleSessionRepository, EmailKeyRepository,
    KeyPurpose, MailLinks, MailedKey, NewEmailKey, PasswordHasher, StoreError,
};
use chrono::Duration;
use domain::password::{self, PasswordContext, PasswordProblem};
use domain::secret::SecretHash;
use domain::{Actor, AuditAction, AuditNote, AuditTarget, EmailAddress, Origin};
use std::net::IpAddr;
use std::sync::Arc;
use thiserror::Error;

/// Why a password reset was refused; every problem found is reported.
#[derive(Debug, Error)]
pub enum ConfirmResetError {
    /// The key, the new password, or both are wrong.
    #[error("password reset rejected")]
    Rejected {
        /// No unused, unexpired reset key like this.
        invalid_key: bool,
        /// Every policy rule the new password breaks.
        new_password: Vec<PasswordProblem>,
    },
    /// Infrastructure failure.
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// Setting a new password through an e-mailed link.
#[derive(Clone)]
pub struct PasswordReset {
    pub(super) accounts: Arc<dyn AccountRepository>,
    pub(super) keys: Arc<dyn EmailKeyRepository>,
    pub(super) links: Arc<dyn MailLinks>,
    pub(super) hasher: Arc<dyn PasswordHasher>,
    pub(super) clock: Arc<dyn Clock>,
    pub(super) secrets: Secrets,
    pub(super) lockout: Lockout,
    pub(super) console_sessions: Arc<dyn ConsoleSessionRepository>,
    pub(super) reset_key_lifetime: Duration,
}

impl PasswordReset {
    /// Queues a password-reset link if an account has this address; does
    /// nothing otherwise, and says nothing either way.
    pub async fn request(&self, email: &EmailAddress) -> Result<(), StoreError> {
        let Some(account) = self.accounts.find_by_email(email).await? else {
            return Ok(());
        };
        let key = self.secrets.mint_email_key();
        let link = self.links.reset_password(&key.secret);
        let now = self.clock.now();
        let reset = MailedKey {
            key: NewEmailKey {
                hash: key.hash,
                purpose: KeyPurpose::ResetPassword,
                expires: now + self.reset_key_lifetime,
            },
            mail: mail::password_reset(self.secrets.mint_mail_id(), account.email.as_str(), &link),
            created: now,
        };
        self.keys.store(account.id, reset).await
    }

    /// Sets a new password with a reset key. The password must pass the
    /// policy; a refused password leaves the key usable. Success marks the
    /// address verified and cuts off whoever else held the account: every
    /// reset key, API token and console session of the account ends, and the install
    /// token is replaced (enrolled devices keep theirs). Whoever proved the
    /// mailbox may log in at once: the address's failed logins are forgotten
    /// and its lock, if any, is lifted. The reset is recorded as
    /// `password.reset` by someone anonymous from `address`.
    pub async fn confirm(
        &self,
        key: &str,
        new_password: &str,
        address: Option<IpAddr>,
    ) -> Result<(), ConfirmResetError> {
        let key = SecretHash::of(key);
        let now = self.clock.now();
        let account = self.keys.reset_account(&key, now).await?;
        let context = account.as_ref().map_or(
            PasswordContext {
                email: "",
                name: "",
                install_token: "",
            },
            |a| a.password_context(),
        );
        let problems = password::check(new_password, &context)
            .err()
            .unwrap_or_default();
        let invalid_key = account.is_none();
        let Some(account) = account.filter(|_| problems.is_empty()) else {
            return Err(ConfirmResetError::Rejected {
                invalid_key,
                new_password: problems,
            });
        };
        let reset = CompletedReset {
            now,
            password_hash: self.hasher.hash(new_password).await?,
            install_token: self.secrets.mint_install_token(),
        };
        let audit = AuditNote::new(
            Origin::new(now, Actor::anonymous(), address),
            AuditAction::PasswordReset,
            AuditTarget::account(&account.email),
        );
        if self.keys.complete_reset(&key, &reset, &audit).await? {
            self.console_sessions.close_sessions(account.id).await?;
            self.lockout.forget(&account.email).await?;
            Ok(())
        } else {
            Err(ConfirmResetError::Rejected {
                invalid_key: true,
                new_password: Vec::new(),
            })
        }
    }
}

#[cfg(test)]
mod tests;
