//! Accounts.

use crate::bounded_text::ProfileName;
use crate::email::EmailAddress;
use crate::password::PasswordContext;
use crate::secret::InstallToken;
use crate::time::Timestamp;

/// An account's database identity.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct AccountId(pub i64);

/// An account holder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Account {
    /// Identity.
    pub id: AccountId,
    /// Login e-mail address, unique ignoring case.
    pub email: EmailAddress,
    /// Display name.
    pub name: ProfileName,
    /// PHC-format password hash; `None` while the account has no usable password.
    pub password_hash: Option<String>,
    /// Whether the owner proved the e-mail address is theirs.
    pub email_verified: bool,
    /// The token that enrols devices into this account.
    pub install_token: InstallToken,
    /// When the account was made.
    pub created_time: Timestamp,
}

impl Account {
    /// Whether a password login is possible at all.
    pub fn has_usable_password(&self) -> bool {
        self.password_hash.is_some()
    }

    /// The attributes a new password must not resemble.
    pub fn password_context(&self) -> PasswordContext<'_> {
        PasswordContext {
            email: self.email.as_str(),
            name: self.name.as_str(),
            install_token: self.install_token.as_str(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::Utc;

    #[test]
    fn a_new_password_is_compared_with_the_accounts_attributes() {
        let account = Account {
            id: AccountId(1),
            email: EmailAddress::parse("a@example.com").unwrap(),
            name: ProfileName::parse("A").unwrap(),
            password_hash: None,
            email_verified: false,
            install_token: InstallToken::from_random_bytes([1; 32]),
            created_time: Utc::now(),
        };
        let context = account.password_context();
        assert_eq!(context.email, "a@example.com");
        assert_eq!(context.name, "A");
        assert_eq!(context.install_token, account.install_token.as_str());
        assert!(!account.has_usable_password());
    }
}
