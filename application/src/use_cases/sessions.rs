//! Logging in and out, and recognising a token or a console session.

use super::Requester;
use super::lockout::Lockout;
use super::secrets::Secrets;
use crate::ports::{
    AccountRepository, AuditLog, Clock, ConsoleSessionRepository, FleetSignals, PasswordHasher,
    StoreError, TokenRepository,
};
use chrono::Duration;
use domain::secret::SecretHash;
use domain::{Account, Actor, AuditAction, AuditNote, AuditTarget, EmailAddress, Origin};
use std::net::IpAddr;
use std::sync::Arc;
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

/// A refused sign-in, with the account it named when there is one.
struct Refusal {
    error: LoginError,
    account: Option<Account>,
}

impl<E: Into<LoginError>> From<E> for Refusal {
    fn from(error: E) -> Self {
        Self {
            error: error.into(),
            account: None,
        }
    }
}

/// A console session is marked used at most this often, so a busy session
/// costs no write per request.
const TOUCH_EVERY: Duration = Duration::minutes(5);

/// Logging in and out (with API tokens, or console sessions), and
/// recognising a token or a session.
#[derive(Clone)]
pub struct Sessions {
    pub(super) accounts: Arc<dyn AccountRepository>,
    pub(super) audit: Arc<dyn AuditLog>,
    pub(super) tokens: Arc<dyn TokenRepository>,
    pub(super) hasher: Arc<dyn PasswordHasher>,
    pub(super) clock: Arc<dyn Clock>,
    pub(super) secrets: Secrets,
    pub(super) lockout: Lockout,
    pub(super) console_sessions: Arc<dyn ConsoleSessionRepository>,
    pub(super) console_idle: Duration,
    /// Told when sessions end, so their open live updates stop at once.
    pub(super) signals: Arc<dyn FleetSignals>,
}

impl Sessions {
    /// Checks the credentials and issues a new API token.
    ///
    /// An unknown address costs one password verification, exactly like a
    /// wrong password, so timing reveals nothing. With a lockout policy,
    /// repeated failures lock the address (known or not, from any client):
    /// each attempt is counted before its password is checked, so of any
    /// number of concurrent attempts no more are checked than the lockout
    /// still allows, and a locked address is refused without a check.
    ///
    /// A token issued is recorded as `auth.login` by the user from
    /// `address`; a refusal naming an existing account (a wrong password,
    /// an unverified address) as `auth.login_failed` by someone anonymous.
    pub async fn login(
        &self,
        email: &EmailAddress,
        password: &str,
        address: Option<IpAddr>,
    ) -> Result<String, LoginError> {
        let now = self.clock.now();
        let account = match self.check_credentials(email, password).await {
            Ok(account) => account,
            Err(Refusal { error, account }) => {
                if let (
                    Some(account),
                    LoginError::InvalidCredentials | LoginError::EmailNotVerified,
                ) = (account, &error)
                {
                    let note = AuditNote::new(
                        Origin::new(now, Actor::anonymous(), address),
                        AuditAction::AuthLoginFailed,
                        AuditTarget::account(&account.email),
                    );
                    self.audit.record(account.id, &note).await?;
                }
                return Err(error);
            }
        };
        let token = self.secrets.mint_api_token();
        let note = Requester::new(&account, address).account_note(now, AuditAction::AuthLogin);
        self.tokens
            .issue(account.id, &token.hash, now, Some(&note))
            .await?;
        Ok(token.secret)
    }

    /// Checks the credentials as [`login`](Self::login) does (the same
    /// lockout, the same answers) and opens a console session instead of
    /// issuing a token. Returns the session's secret, for the browser's cookie.
    pub async fn open_console(
        &self,
        email: &EmailAddress,
        password: &str,
    ) -> Result<String, LoginError> {
        let account = self
            .check_credentials(email, password)
            .await
            .map_err(|refusal| refusal.error)?;
        Ok(self.open_console_for(&account).await?)
    }

    /// Opens a console session of an account that just proved itself
    /// otherwise (it registered). Returns the session's secret.
    pub async fn open_console_for(&self, account: &Account) -> Result<String, StoreError> {
        let session = self.secrets.mint_email_key();
        self.console_sessions
            .open_session(account.id, &session.hash, self.clock.now())
            .await?;
        Ok(session.secret)
    }

    /// A new random key for a browser that is not signed in: the console's
    /// forms carry it, and it is checked against the browser's cookie.
    pub fn mint_form_key(&self) -> String {
        self.secrets.mint_email_key().secret
    }

    /// The account of a console session that has not been idle for longer
    /// than the idle limit.
    pub async fn console_account(&self, session: &str) -> Result<Option<Account>, StoreError> {
        let now = self.clock.now();
        self.console_sessions
            .session_account(
                &SecretHash::of(session),
                now - self.console_idle,
                now - TOUCH_EVERY,
                now,
            )
            .await
    }

    /// Ends one console session of the account; its open live updates stop.
    pub async fn close_console(&self, account: &Account, session: &str) -> Result<(), StoreError> {
        self.console_sessions
            .close_session(&SecretHash::of(session))
            .await?;
        self.signals.announce(account.id).await;
        Ok(())
    }

    /// The account whose password this is: the checks shared by every
    /// way of signing in.
    async fn check_credentials(
        &self,
        email: &EmailAddress,
        password: &str,
    ) -> Result<Account, Refusal> {
        if let Some(retry_after_secs) = self.lockout.admit(email).await? {
            return Err(LoginError::LockedOut { retry_after_secs }.into());
        }
        let account = self.accounts.find_by_email(email).await?;
        let hash = account.as_ref().and_then(|a| a.password_hash.clone());
        let matches = self.hasher.verify(password, hash).await?;
        let account = match account {
            Some(account) if matches => account,
            account => {
                return Err(Refusal {
                    error: LoginError::InvalidCredentials,
                    account,
                });
            }
        };
        self.lockout.forget(email).await?;
        if !account.email_verified {
            return Err(Refusal {
                error: LoginError::EmailNotVerified,
                account: Some(account),
            });
        }
        Ok(account)
    }

    /// Ends the token the user presented; their other tokens stay valid.
    pub async fn logout(&self, by: Requester<'_>, token: &str) -> Result<(), StoreError> {
        let note = by.account_note(self.clock.now(), AuditAction::AuthLogout);
        self.tokens
            .revoke(&SecretHash::of(token), Some(&note))
            .await
    }

    /// Ends every token and every console session of the account, the
    /// one in use included; the sessions' open live updates stop.
    pub async fn logout_everywhere(&self, by: Requester<'_>) -> Result<(), StoreError> {
        let account = by.account;
        let note = by.account_note(self.clock.now(), AuditAction::AuthLogoutAll);
        self.tokens.revoke_all(account.id, Some(&note)).await?;
        self.console_sessions.close_sessions(account.id).await?;
        self.signals.announce(account.id).await;
        Ok(())
    }

    /// The account a presented token belongs to.
    pub async fn authenticate(&self, token: &str) -> Result<Option<Account>, StoreError> {
        self.tokens.account_for(&SecretHash::of(token)).await
    }
}

#[cfg(test)]
mod tests;
