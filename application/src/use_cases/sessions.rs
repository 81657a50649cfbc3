//! Logging in and out, and recognising a token.

use super::lockout::Lockout;
use super::secrets::Secrets;
use crate::ports::{AccountRepository, Clock, PasswordHasher, StoreError, TokenRepository};
use domain::secret::SecretHash;
use domain::{Account, EmailAddress};
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

/// Logging in and out, and recognising a token.
#[derive(Clone)]
pub struct Sessions {
    pub(super) accounts: Arc<dyn AccountRepository>,
    pub(super) tokens: Arc<dyn TokenRepository>,
    pub(super) hasher: Arc<dyn PasswordHasher>,
    pub(super) clock: Arc<dyn Clock>,
    pub(super) secrets: Secrets,
    pub(super) lockout: Lockout,
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
    pub async fn login(&self, email: &EmailAddress, password: &str) -> Result<String, LoginError> {
        if let Some(retry_after_secs) = self.lockout.admit(email).await? {
            return Err(LoginError::LockedOut { retry_after_secs });
        }
        let account = self.accounts.find_by_email(email).await?;
        let hash = account.as_ref().and_then(|a| a.password_hash.clone());
        let matches = self.hasher.verify(password, hash).await?;
        let account = match account {
            Some(account) if matches => account,
            _ => return Err(LoginError::InvalidCredentials),
        };
        self.lockout.forget(email).await?;
        if !account.email_verified {
            return Err(LoginError::EmailNotVerified);
        }
        let token = self.secrets.mint_api_token();
        self.tokens
            .issue(account.id, &token.hash, self.clock.now())
            .await?;
        Ok(token.secret)
    }

    /// Ends one token; the account's other tokens stay valid.
    pub async fn logout(&self, token: &str) -> Result<(), StoreError> {
        self.tokens.revoke(&SecretHash::of(token)).await
    }

    /// Ends every token of the account, the one in use included.
    pub async fn logout_everywhere(&self, account: &Account) -> Result<(), StoreError> {
        self.tokens.revoke_all(account.id).await
    }

    /// The account a presented token belongs to.
    pub async fn authenticate(&self, token: &str) -> Result<Option<Account>, StoreError> {
        self.tokens.account_for(&SecretHash::of(token)).await
    }
}

#[cfg(test)]
mod tests;
