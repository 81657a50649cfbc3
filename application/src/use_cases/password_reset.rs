//! Setting a new password through an e-mailed link.

use super::DevMgr;
use crate::mail;
use crate::ports::{CompletedReset, KeyPurpose, MailedKey, NewEmailKey, StoreError};
use domain::EmailAddress;
use domain::password::{self, PasswordContext, PasswordProblem};
use domain::secret::SecretHash;
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

impl DevMgr {
    /// Queues a password-reset link if an account has this address; does
    /// nothing otherwise, and says nothing either way.
    pub async fn request_password_reset(&self, email: &EmailAddress) -> Result<(), StoreError> {
        let Some(account) = self.ports.accounts.find_by_email(email).await? else {
            return Ok(());
        };
        let key = self.mint_email_key();
        let link = self.ports.links.reset_password(&key.secret);
        let now = self.ports.clock.now();
        let reset = MailedKey {
            key: NewEmailKey {
                hash: key.hash,
                purpose: KeyPurpose::ResetPassword,
                expires: now + self.settings.reset_key_lifetime,
            },
            mail: mail::password_reset(self.mint_mail_id(), account.email.as_str(), &link),
            created: now,
        };
        self.ports.keys.store(account.id, reset).await
    }

    /// Sets a new password with a reset key. The password must pass the
    /// policy; a refused password leaves the key usable. Success marks the
    /// address verified and cuts off whoever else held the account: every
    /// reset key and every API token of the account ends, and the install
    /// token is replaced (enrolled devices keep theirs).
    pub async fn confirm_password_reset(
        &self,
        key: &str,
        new_password: &str,
    ) -> Result<(), ConfirmResetError> {
        let key = SecretHash::of(key);
        let now = self.ports.clock.now();
        let account = self.ports.keys.reset_account(&key, now).await?;
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
        if account.is_none() || !problems.is_empty() {
            return Err(ConfirmResetError::Rejected {
                invalid_key: account.is_none(),
                new_password: problems,
            });
        }
        let reset = CompletedReset {
            now,
            password_hash: self.ports.hasher.hash(new_password).await?,
            install_token: self.mint_install_token(),
        };
        if self.ports.keys.complete_reset(&key, &reset).await? {
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
mod tests {
    use super::*;
    use crate::use_cases::test_support::{Harness, account, email, now};
    use domain::password::Attribute;
    use mockall::predicate::eq;

    const GOOD: &str = "correct-horse-battery-42";

    #[tokio::test]
    async fn a_request_for_a_known_address_stores_a_key_with_its_mail() {
        let mut h = Harness::new();
        h.accounts
            .expect_find_by_email()
            .returning(|_| Ok(Some(account(true, None))));
        h.keys
            .expect_store()
            .withf(|id, reset| {
                id.0 == 7
                    && reset.key.purpose == KeyPurpose::ResetPassword
                    && reset.key.expires == now() + chrono::Duration::hours(24)
                    && reset.mail.to == "owner@example.com"
                    && reset
                        .mail
                        .text
                        .contains("http://base/reset-password/confirm/?key=")
            })
            .times(1)
            .returning(|_, _| Ok(()));
        h.app().request_password_reset(&email()).await.unwrap();
    }

    #[tokio::test]
    async fn a_request_for_an_unknown_address_does_nothing() {
        let mut h = Harness::new();
        h.accounts.expect_find_by_email().returning(|_| Ok(None));
        h.keys.expect_store().never();
        h.app().request_password_reset(&email()).await.unwrap();
    }

    #[tokio::test]
    async fn a_request_surfaces_storage_failures() {
        let mut h = Harness::new();
        h.accounts
            .expect_find_by_email()
            .returning(|_| Ok(Some(account(true, None))));
        h.keys
            .expect_store()
            .returning(|_, _| Err(StoreError::message("full")));
        assert!(h.app().request_password_reset(&email()).await.is_err());
    }

    #[tokio::test]
    async fn a_valid_key_and_a_good_password_complete_the_reset() {
        let mut h = Harness::new();
        h.keys
            .expect_reset_account()
            .with(eq(SecretHash::of("k")), eq(now()))
            .returning(|_, _| Ok(Some(account(false, None))));
        h.hasher
            .expect_hash()
            .with(eq(GOOD))
            .returning(|_| Ok("new-hash".into()));
        h.keys
            .expect_complete_reset()
            .withf(|key, reset| {
                *key == SecretHash::of("k")
                    && reset.now == now()
                    && reset.password_hash == "new-hash"
                    && reset.install_token.len() == 32
                    && reset.install_token != "i".repeat(32)
            })
            .times(1)
            .returning(|_, _| Ok(true));
        h.app().confirm_password_reset("k", GOOD).await.unwrap();
    }

    #[tokio::test]
    async fn a_bad_password_is_reported_in_full_and_leaves_the_key_alone() {
        let mut h = Harness::new();
        h.keys
            .expect_reset_account()
            .returning(|_, _| Ok(Some(account(false, None))));
        h.hasher.expect_hash().never();
        h.keys.expect_complete_reset().never();
        let err = h
            .app()
            .confirm_password_reset("k", "owner@example.com")
            .await
            .unwrap_err();
        assert!(matches!(
            err,
            ConfirmResetError::Rejected { invalid_key: false, ref new_password }
                if new_password == &[PasswordProblem::TooSimilar(Attribute::Email)]
        ));
    }

    #[tokio::test]
    async fn an_unknown_key_is_reported_with_the_password_problems() {
        let mut h = Harness::new();
        h.keys.expect_reset_account().returning(|_, _| Ok(None));
        h.keys.expect_complete_reset().never();
        let err = h
            .app()
            .confirm_password_reset("k", "123")
            .await
            .unwrap_err();
        let ConfirmResetError::Rejected {
            invalid_key,
            new_password,
        } = err
        else {
            panic!("expected a rejection");
        };
        assert!(invalid_key);
        assert_eq!(
            new_password,
            [
                PasswordProblem::TooShort,
                PasswordProblem::TooCommon,
                PasswordProblem::EntirelyNumeric
            ]
        );
    }

    #[tokio::test]
    async fn a_key_used_by_a_concurrent_request_is_refused() {
        let mut h = Harness::new();
        h.keys
            .expect_reset_account()
            .returning(|_, _| Ok(Some(account(false, None))));
        h.hasher.expect_hash().returning(|_| Ok("h".into()));
        h.keys.expect_complete_reset().returning(|_, _| Ok(false));
        let err = h.app().confirm_password_reset("k", GOOD).await.unwrap_err();
        assert!(matches!(
            err,
            ConfirmResetError::Rejected {
                invalid_key: true,
                ..
            }
        ));
    }
}
