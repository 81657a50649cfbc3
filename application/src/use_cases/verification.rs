//! Proving that an account holder reads the account's address.

use super::secrets::Secrets;
use crate::mail;
use crate::ports::{
    AccountRepository, Clock, EmailKeyRepository, KeyPurpose, MailLinks, MailedKey, NewEmailKey,
    StoreError,
};
use chrono::Duration;
use domain::EmailAddress;
use domain::secret::SecretHash;
use std::sync::Arc;
use thiserror::Error;

/// Why an address could not be verified.
#[derive(Debug, Error)]
pub enum VerifyEmailError {
    /// No verification key like this, or it has expired.
    #[error("invalid or expired key")]
    InvalidKey,
    /// Infrastructure failure.
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// Proving that an account holder reads the account's address.
#[derive(Clone)]
pub struct Verification {
    pub(super) accounts: Arc<dyn AccountRepository>,
    pub(super) keys: Arc<dyn EmailKeyRepository>,
    pub(super) clock: Arc<dyn Clock>,
    pub(super) verification_mail: VerificationMail,
}

impl Verification {
    /// Verifies the address of the key's account. A key keeps working until
    /// it expires, so opening the link twice succeeds twice.
    pub async fn verify(&self, key: &str) -> Result<(), VerifyEmailError> {
        let now = self.clock.now();
        if self.keys.verify_email(&SecretHash::of(key), now).await? {
            Ok(())
        } else {
            Err(VerifyEmailError::InvalidKey)
        }
    }

    /// Queues a fresh verification link for an existing, unverified account
    /// with this address; does nothing otherwise and says nothing either
    /// way. Earlier links keep working.
    pub async fn resend(&self, email: &EmailAddress) -> Result<(), StoreError> {
        let Some(account) = self.accounts.find_by_email(email).await? else {
            return Ok(());
        };
        if account.email_verified {
            return Ok(());
        }
        let verification = self.verification_mail.key_for(&account.email);
        self.keys.store(account.id, verification).await
    }
}

/// Makes verification keys and the mails that carry their links (for
/// registration and for resending).
#[derive(Clone)]
pub(crate) struct VerificationMail {
    pub(super) links: Arc<dyn MailLinks>,
    pub(super) clock: Arc<dyn Clock>,
    pub(super) secrets: Secrets,
    pub(super) lifetime: Duration,
}

impl VerificationMail {
    pub(crate) fn new(
        links: Arc<dyn MailLinks>,
        clock: Arc<dyn Clock>,
        secrets: Secrets,
        lifetime: Duration,
    ) -> Self {
        Self {
            links,
            clock,
            secrets,
            lifetime,
        }
    }

    /// A new verification key for `email` and the mail that carries its link.
    pub(crate) fn key_for(&self, email: &EmailAddress) -> MailedKey {
        let key = self.secrets.mint_email_key();
        let link = self.links.verify_email(&key.secret);
        let now = self.clock.now();
        MailedKey {
            key: NewEmailKey {
                hash: key.hash,
                purpose: KeyPurpose::VerifyEmail,
                expires: now + self.lifetime,
            },
            mail: mail::verification(self.secrets.mint_mail_id(), email.as_str(), &link),
            created: now,
        }
    }
}

#[cfg(test)]
mod tests;
