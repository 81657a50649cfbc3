//! Accounts and the profile view of one.

use crate::bounded_text::ProfileName;
use crate::email::EmailAddress;
use crate::password::PasswordContext;
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
    /// 32 characters `[a-z0-9]` that enrol devices into this account.
    pub install_token: String,
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
            install_token: &self.install_token,
        }
    }

    /// The account as its owner sees it, with links under `base_url`.
    pub fn profile(&self, base_url: &str) -> Profile {
        Profile {
            email: self.email.as_str().to_owned(),
            email_verified: self.email_verified,
            has_usable_password: self.has_usable_password(),
            install_command: install_command(base_url, &self.install_token),
            install_token: self.install_token.clone(),
            name: self.name.as_str().to_owned(),
        }
    }
}

/// The seed's profile object.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Profile {
    /// Account e-mail.
    pub email: String,
    /// Whether the e-mail address is verified.
    pub email_verified: bool,
    /// Whether a password is set.
    pub has_usable_password: bool,
    /// The shell command that installs the agent on a device.
    pub install_command: String,
    /// Token that enrols devices.
    pub install_token: String,
    /// Display name.
    pub name: String,
}

/// The command a user runs on a device to enrol it.
pub fn install_command(base_url: &str, install_token: &str) -> String {
    format!("devmgr-agent install --server {base_url} --token {install_token}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::Utc;

    #[test]
    fn profile_shows_the_install_command_under_the_base_url() {
        let account = Account {
            id: AccountId(1),
            email: EmailAddress::parse("a@example.com").unwrap(),
            name: ProfileName::parse("A").unwrap(),
            password_hash: None,
            email_verified: false,
            install_token: "t0k3n".into(),
            created_time: Utc::now(),
        };
        let profile = account.profile("http://devmgr.example:8000");
        assert_eq!(
            profile.install_command,
            "devmgr-agent install --server http://devmgr.example:8000 --token t0k3n"
        );
        assert!(!profile.has_usable_password);
    }
}
