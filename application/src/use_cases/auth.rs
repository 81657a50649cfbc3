//! Logging in and out, and recognising a token.

use super::DevMgr;
use crate::ports::{Admission, StoreError};
use domain::secret::SecretHash;
use domain::{Account, EmailAddress};
use thiserror::Error;

/// Why a login was refused.
#[derive(Debug, Error)]
pub enum LoginError {
    /// Unknown address, wrong password or no usable password: indistinguishable.
    #[error("unable to log in with provided credentials")]
    InvalidCredentials,
    /// The password is right but the address is not verified yet.
    #[error("e-mail address is not verified")]
    EmailNotVerified,
    /// Too many failed logins: the address is locked for a while.
    #[error("too many failed logins; try again in {retry_after_secs} s")]
    LockedOut {
        /// Whole seconds until the lock ends (at least 1).
        retry_after_secs: u64,
    },
    /// Infrastructure failure.
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl DevMgr {
    /// Checks the credentials and issues a new API token.
    ///
    /// An unknown address costs one password verification, exactly like a
    /// wrong password, so timing reveals nothing. With a lockout policy,
    /// repeated failures lock the address (known or not, from any client):
    /// each attempt is counted before its password is checked, so of any
    /// number of concurrent attempts no more are checked than the lockout
    /// still allows, and a locked address is refused without a check.
    pub async fn login(&self, email: &EmailAddress, password: &str) -> Result<String, LoginError> {
        if let Some(retry_after_secs) = self.admit_password_attempt(email).await? {
            return Err(LoginError::LockedOut { retry_after_secs });
        }
        let account = self.ports.accounts.find_by_email(email).await?;
        let hash = account.as_ref().and_then(|a| a.password_hash.clone());
        let matches = self.ports.hasher.verify(password, hash).await?;
        let account = match account {
            Some(account) if matches => account,
            _ => return Err(LoginError::InvalidCredentials),
        };
        self.forget_failed_attempts(email).await?;
        if !account.email_verified {
            return Err(LoginError::EmailNotVerified);
        }
        let token = self.mint_api_token();
        self.ports
            .tokens
            .issue(account.id, &token.hash, self.ports.clock.now())
            .await?;
        Ok(token.secret)
    }

    /// Counts a password attempt on the address against the lockout (a
    /// failure until [`forget_failed_attempts`](Self::forget_failed_attempts)).
    /// While the address is locked the attempt is refused: `Some` whole
    /// seconds until the lock ends.
    pub(super) async fn admit_password_attempt(
        &self,
        email: &EmailAddress,
    ) -> Result<Option<u64>, StoreError> {
        let Some(policy) = self.settings.login_lockout else {
            return Ok(None);
        };
        let now = self.ports.clock.now();
        Ok(
            match self
                .ports
                .login_attempts
                .admit(&email.lookup_key(), now, policy)
                .await?
            {
                Admission::Admitted => None,
                Admission::Locked(until) => Some(seconds_until(until, now)),
            },
        )
    }

    /// The password was right: the address's failures are forgotten.
    pub(super) async fn forget_failed_attempts(
        &self,
        email: &EmailAddress,
    ) -> Result<(), StoreError> {
        if self.settings.login_lockout.is_none() {
            return Ok(());
        }
        self.ports.login_attempts.clear(&email.lookup_key()).await
    }

    /// Forgets failed logins and locks that are over.
    pub async fn purge_login_failures(&self) -> Result<(), StoreError> {
        let Some(policy) = self.settings.login_lockout else {
            return Ok(());
        };
        let now = self.ports.clock.now();
        self.ports.login_attempts.purge(now, policy.period).await
    }

    /// Ends one token; the account's other tokens stay valid.
    pub async fn logout(&self, token: &str) -> Result<(), StoreError> {
        self.ports.tokens.revoke(&SecretHash::of(token)).await
    }

    /// Ends every token of the account, the one in use included.
    pub async fn logout_everywhere(&self, account: &Account) -> Result<(), StoreError> {
        self.ports.tokens.revoke_all(account.id).await
    }

    /// The account a presented token belongs to.
    pub async fn authenticate(&self, token: &str) -> Result<Option<Account>, StoreError> {
        self.ports.tokens.account_for(&SecretHash::of(token)).await
    }
}

/// Whole seconds from `now` until `until`, rounded up, at least 1.
fn seconds_until(until: domain::Timestamp, now: domain::Timestamp) -> u64 {
    let millis = u64::try_from((until - now).num_milliseconds()).unwrap_or(0);
    millis.div_ceil(1000).max(1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::use_cases::test_support::{Harness, account, email, now};
    use domain::AccountId;
    use mockall::predicate::eq;

    #[tokio::test]
    async fn a_verified_account_with_the_right_password_gets_a_new_token() {
        let mut h = Harness::new().never_locked();
        h.accounts
            .expect_find_by_email()
            .returning(|_| Ok(Some(account(true, Some("hash")))));
        h.hasher
            .expect_verify()
            .withf(|password, hash| password == "s3cret-pass" && hash.as_deref() == Some("hash"))
            .returning(|_, _| Ok(true));
        h.tokens
            .expect_issue()
            .withf(|id, _, _| id.0 == 7)
            .times(1)
            .returning(|_, _, _| Ok(()));
        let token = h.app().login(&email(), "s3cret-pass").await.unwrap();
        assert_eq!(token.len(), 40);
    }

    #[tokio::test]
    async fn an_unknown_address_still_costs_a_verification() {
        let mut h = Harness::new().never_locked();
        h.accounts.expect_find_by_email().returning(|_| Ok(None));
        h.hasher
            .expect_verify()
            .withf(|_, hash| hash.is_none())
            .times(1)
            .returning(|_, _| Ok(false));
        let err = h.app().login(&email(), "whatever").await.unwrap_err();
        assert!(matches!(err, LoginError::InvalidCredentials));
    }

    #[tokio::test]
    async fn a_wrong_password_is_refused() {
        let mut h = Harness::new().never_locked();
        h.accounts
            .expect_find_by_email()
            .returning(|_| Ok(Some(account(true, Some("hash")))));
        h.hasher.expect_verify().returning(|_, _| Ok(false));
        let err = h.app().login(&email(), "wrong").await.unwrap_err();
        assert!(matches!(err, LoginError::InvalidCredentials));
    }

    #[tokio::test]
    async fn an_account_without_a_password_cannot_log_in() {
        let mut h = Harness::new().never_locked();
        h.accounts
            .expect_find_by_email()
            .returning(|_| Ok(Some(account(true, None))));
        h.hasher
            .expect_verify()
            .withf(|_, hash| hash.is_none())
            .returning(|_, _| Ok(false));
        let err = h.app().login(&email(), "anything").await.unwrap_err();
        assert!(matches!(err, LoginError::InvalidCredentials));
    }

    #[tokio::test]
    async fn an_unverified_address_is_refused_after_the_password_check() {
        let mut h = Harness::new().never_locked();
        h.accounts
            .expect_find_by_email()
            .returning(|_| Ok(Some(account(false, Some("hash")))));
        h.hasher.expect_verify().returning(|_, _| Ok(true));
        let err = h.app().login(&email(), "right").await.unwrap_err();
        assert!(matches!(err, LoginError::EmailNotVerified));
    }

    #[tokio::test]
    async fn storage_failures_surface() {
        let mut h = Harness::new().never_locked();
        h.accounts
            .expect_find_by_email()
            .returning(|_| Err(StoreError::message("disk on fire")));
        let err = h.app().login(&email(), "x").await.unwrap_err();
        assert!(matches!(err, LoginError::Store(_)));
    }

    #[tokio::test]
    async fn logout_revokes_the_hash_of_the_presented_token() {
        let mut h = Harness::new();
        h.tokens
            .expect_revoke()
            .with(eq(SecretHash::of("abc")))
            .times(1)
            .returning(|_| Ok(()));
        h.app().logout("abc").await.unwrap();
    }

    #[tokio::test]
    async fn logging_out_everywhere_revokes_every_token_of_the_account() {
        let mut h = Harness::new();
        h.tokens
            .expect_revoke_all()
            .with(eq(AccountId(7)))
            .times(1)
            .returning(|_| Ok(()));
        h.app()
            .logout_everywhere(&account(true, None))
            .await
            .unwrap();
    }

    #[tokio::test]
    async fn authenticate_looks_tokens_up_by_hash() {
        let mut h = Harness::new();
        h.tokens
            .expect_account_for()
            .with(eq(SecretHash::of("abc")))
            .returning(|_| Ok(Some(account(true, None))));
        assert!(h.app().authenticate("abc").await.unwrap().is_some());
    }

    #[tokio::test]
    async fn a_locked_address_is_refused_before_any_password_check() {
        let mut h = Harness::new();
        h.login_attempts
            .expect_admit()
            .withf(|address, at, _| address == "owner@example.com" && *at == now())
            .returning(|_, _, _| {
                Ok(Admission::Locked(
                    now() + chrono::Duration::milliseconds(90_500),
                ))
            });
        h.accounts.expect_find_by_email().never();
        h.hasher.expect_verify().never();
        let err = h.app().login(&email(), "right").await.unwrap_err();
        assert!(matches!(
            err,
            LoginError::LockedOut {
                retry_after_secs: 91
            }
        ));
    }

    #[tokio::test]
    async fn an_attempt_is_counted_against_the_address_before_the_password_is_checked() {
        let mut h = Harness::new();
        let mut order = mockall::Sequence::new();
        h.login_attempts
            .expect_admit()
            .withf(|address, at, policy| {
                address == "owner@example.com"
                    && *at == now()
                    && policy.max_failures == 5
                    && policy.period == chrono::Duration::minutes(15)
            })
            .times(1)
            .in_sequence(&mut order)
            .returning(|_, _, _| Ok(Admission::Admitted));
        h.accounts.expect_find_by_email().returning(|_| Ok(None));
        h.hasher
            .expect_verify()
            .times(1)
            .in_sequence(&mut order)
            .returning(|_, _| Ok(false));
        h.login_attempts.expect_clear().never();
        let err = h.app().login(&email(), "wrong").await.unwrap_err();
        assert!(matches!(err, LoginError::InvalidCredentials));
    }

    #[tokio::test]
    async fn a_right_password_clears_the_failures() {
        let mut h = Harness::new();
        h.login_attempts
            .expect_admit()
            .returning(|_, _, _| Ok(Admission::Admitted));
        h.accounts
            .expect_find_by_email()
            .returning(|_| Ok(Some(account(true, Some("hash")))));
        h.hasher.expect_verify().returning(|_, _| Ok(true));
        h.login_attempts
            .expect_clear()
            .with(eq("owner@example.com"))
            .times(1)
            .returning(|_| Ok(()));
        h.tokens.expect_issue().returning(|_, _, _| Ok(()));
        h.app().login(&email(), "right").await.unwrap();
    }

    #[tokio::test]
    async fn without_a_lockout_policy_nothing_is_counted() {
        let mut h = Harness::new();
        h.login_attempts.expect_admit().never();
        h.login_attempts.expect_clear().never();
        h.accounts.expect_find_by_email().returning(|_| Ok(None));
        h.hasher.expect_verify().returning(|_, _| Ok(false));
        let app = h.app_with(|settings| settings.login_lockout = None);
        let err = app.login(&email(), "wrong").await.unwrap_err();
        assert!(matches!(err, LoginError::InvalidCredentials));
    }
}
