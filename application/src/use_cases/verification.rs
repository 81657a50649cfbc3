//! Proving that an account holder reads the account's address.

use super::DevMgr;
use crate::mail;
use crate::ports::{KeyPurpose, MailedKey, NewEmailKey, StoreError};
use domain::EmailAddress;
use domain::secret::SecretHash;
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

impl DevMgr {
    /// Verifies the address of the key's account. A key keeps working until
    /// it expires, so opening the link twice succeeds twice.
    pub async fn verify_email(&self, key: &str) -> Result<(), VerifyEmailError> {
        let now = self.ports.clock.now();
        if self
            .ports
            .keys
            .verify_email(&SecretHash::of(key), now)
            .await?
        {
            Ok(())
        } else {
            Err(VerifyEmailError::InvalidKey)
        }
    }

    /// Queues a fresh verification link for an existing, unverified account
    /// with this address; does nothing otherwise and says nothing either
    /// way. Earlier links keep working.
    pub async fn resend_verification(&self, email: &EmailAddress) -> Result<(), StoreError> {
        let Some(account) = self.ports.accounts.find_by_email(email).await? else {
            return Ok(());
        };
        if account.email_verified {
            return Ok(());
        }
        let verification = self.verification_key(&account.email);
        self.ports.keys.store(account.id, verification).await
    }

    /// A new verification key for `email` and the mail that carries its link.
    pub(super) fn verification_key(&self, email: &EmailAddress) -> MailedKey {
        let key = self.mint_email_key();
        let link = self.ports.links.verify_email(&key.secret);
        let now = self.ports.clock.now();
        MailedKey {
            key: NewEmailKey {
                hash: key.hash,
                purpose: KeyPurpose::VerifyEmail,
                expires: now + self.settings.verification_key_lifetime,
            },
            mail: mail::verification(self.mint_mail_id(), email.as_str(), &link),
            created: now,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::use_cases::test_support::{Harness, account, email, now};
    use mockall::predicate::eq;

    #[tokio::test]
    async fn a_valid_key_verifies_by_its_hash() {
        let mut h = Harness::new();
        h.keys
            .expect_verify_email()
            .with(eq(SecretHash::of("the-key")), eq(now()))
            .times(1)
            .returning(|_, _| Ok(true));
        h.app().verify_email("the-key").await.unwrap();
    }

    #[tokio::test]
    async fn an_unknown_or_expired_key_is_refused() {
        let mut h = Harness::new();
        h.keys.expect_verify_email().returning(|_, _| Ok(false));
        let err = h.app().verify_email("nope").await.unwrap_err();
        assert!(matches!(err, VerifyEmailError::InvalidKey));
    }

    #[tokio::test]
    async fn verification_surfaces_storage_failures() {
        let mut h = Harness::new();
        h.keys
            .expect_verify_email()
            .returning(|_, _| Err(StoreError::message("locked")));
        let err = h.app().verify_email("k").await.unwrap_err();
        assert!(matches!(err, VerifyEmailError::Store(_)));
    }

    #[tokio::test]
    async fn resend_queues_a_fresh_link_for_an_unverified_account() {
        let mut h = Harness::new();
        h.accounts
            .expect_find_by_email()
            .returning(|_| Ok(Some(account(false, None))));
        h.keys
            .expect_store()
            .withf(|id, v| {
                id.0 == 7
                    && v.key.purpose == KeyPurpose::VerifyEmail
                    && v.key.expires == now() + chrono::Duration::hours(72)
                    && v.mail.to == "owner@example.com"
                    && v.mail.text.contains("http://base/verify-email/")
            })
            .times(1)
            .returning(|_, _| Ok(()));
        h.app().resend_verification(&email()).await.unwrap();
    }

    #[tokio::test]
    async fn resend_does_nothing_for_a_verified_or_unknown_address() {
        let mut h = Harness::new();
        let mut answers = vec![Some(account(true, None)), None].into_iter();
        h.accounts
            .expect_find_by_email()
            .times(2)
            .returning(move |_| Ok(answers.next().flatten()));
        h.keys.expect_store().never();
        let app = h.app();
        app.resend_verification(&email()).await.unwrap();
        app.resend_verification(&email()).await.unwrap();
    }
}
