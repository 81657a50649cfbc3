//! Registering, the profile, and passwords.

use super::DevMgr;
use crate::ports::{CreateAccountError, NewAccount, StoreError};
use domain::password::{self, PasswordProblem};
use domain::{Account, EmailAddress, Profile, ProfileName};
use thiserror::Error;

/// Why a registration was refused.
#[derive(Debug, Error)]
pub enum RegisterError {
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
    #[error("{}", .0.iter().map(ToString::to_string).collect::<Vec<_>>().join(" "))]
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
    pub install_token: String,
}

impl DevMgr {
    /// Registers an account with no usable password and returns its first
    /// API token; a verification link is queued for mailing in the same
    /// transaction.
    pub async fn register(&self, email: EmailAddress) -> Result<String, RegisterError> {
        let token = self.mint_api_token();
        let verification = self.verification_key(&email);
        let account = NewAccount {
            email,
            name: ProfileName::default(),
            password_hash: None,
            email_verified: false,
            install_token: self.mint_install_token(),
            created_time: self.ports.clock.now(),
            first_token: Some(token.hash),
            verification: Some(verification),
        };
        self.ports.accounts.create(account).await?;
        Ok(token.secret)
    }

    /// The profile of an account, with links under `base_url`.
    pub fn profile(&self, account: &Account, base_url: &str) -> Profile {
        account.profile(base_url)
    }

    /// Sets the display name.
    pub async fn update_profile_name(
        &self,
        account: &Account,
        name: &ProfileName,
    ) -> Result<Account, StoreError> {
        self.ports.accounts.update_name(account.id, name).await
    }

    /// Changes the password. `old` is needed only while the account has a
    /// usable password; every problem is reported at once. Checking `old`
    /// is a password attempt like a login: it counts against the account's
    /// lockout, and is refused while the account is locked. Every
    /// outstanding reset link of the account ends.
    pub async fn change_password(
        &self,
        account: &Account,
        old: Option<&str>,
        new: &str,
    ) -> Result<(), ChangePasswordError> {
        let old_problem = match (&account.password_hash, old) {
            (None, _) => None,
            (Some(_), None) => Some(OldPasswordProblem::Missing),
            (Some(hash), Some(old)) => {
                if let Some(retry_after_secs) = self.admit_password_attempt(&account.email).await? {
                    return Err(ChangePasswordError::LockedOut { retry_after_secs });
                }
                let matches = self.ports.hasher.verify(old, Some(hash.clone())).await?;
                if matches {
                    self.forget_failed_attempts(&account.email).await?;
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
        let hash = self.ports.hasher.hash(new).await?;
        Ok(self.ports.accounts.set_password(account.id, &hash).await?)
    }

    /// Gives the account a new install token; the old one ends at once.
    /// Devices enrolled with it keep working.
    pub async fn rotate_install_token(&self, account: &Account) -> Result<Account, StoreError> {
        let install_token = self.mint_install_token();
        self.ports
            .accounts
            .replace_install_token(account.id, &install_token)
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
        let install_token = self.mint_install_token();
        let password_hash = match password {
            None => None,
            Some(password) => {
                let context = password::PasswordContext {
                    email: email.as_str(),
                    name: name.as_str(),
                    install_token: &install_token,
                };
                password::check(password, &context).map_err(CreateUserError::Password)?;
                Some(self.ports.hasher.hash(password).await?)
            }
        };
        let token = self.mint_api_token();
        let account = NewAccount {
            email,
            name,
            password_hash,
            email_verified: verified,
            install_token: install_token.clone(),
            created_time: self.ports.clock.now(),
            first_token: Some(token.hash),
            verification: None,
        };
        let account = self.ports.accounts.create(account).await?;
        Ok(CreatedUser {
            email: account.email.to_string(),
            token: token.secret,
            install_token,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ports::{Admission, KeyPurpose};
    use crate::use_cases::test_support::{Harness, account, email, now};
    use domain::password::Attribute;
    use mockall::predicate::eq;

    fn stored(new: NewAccount) -> Account {
        Account {
            id: domain::AccountId(7),
            email: new.email,
            name: new.name,
            password_hash: new.password_hash,
            email_verified: new.email_verified,
            install_token: new.install_token,
            created_time: new.created_time,
        }
    }

    #[tokio::test]
    async fn register_creates_an_unverified_account_with_its_mail_queued() {
        let mut h = Harness::new();
        h.accounts
            .expect_create()
            .withf(|new| {
                !new.email_verified
                    && new.password_hash.is_none()
                    && new.first_token.is_some()
                    && new.verification.as_ref().is_some_and(|v| {
                        v.key.purpose == KeyPurpose::VerifyEmail
                            && v.key.expires == now() + chrono::Duration::hours(72)
                            && v.mail.to == "owner@example.com"
                            && v.mail.id.len() == 32
                            && v.mail.text.contains("http://base/verify-email/")
                            && v.mail.html.contains("http://base/verify-email/")
                    })
            })
            .times(1)
            .returning(|new| Ok(stored(new)));
        let token = h.app().register(email()).await.unwrap();
        assert_eq!(token.len(), 40);
    }

    #[tokio::test]
    async fn register_refuses_a_taken_address() {
        let mut h = Harness::new();
        h.accounts
            .expect_create()
            .returning(|_| Err(CreateAccountError::DuplicateEmail));
        let err = h.app().register(email()).await.unwrap_err();
        assert!(matches!(err, RegisterError::DuplicateEmail));
    }

    #[tokio::test]
    async fn register_surfaces_storage_failures() {
        let mut h = Harness::new();
        h.accounts
            .expect_create()
            .returning(|_| Err(CreateAccountError::Store(StoreError::message("locked"))));
        let err = h.app().register(email()).await.unwrap_err();
        assert!(matches!(err, RegisterError::Store(_)));
    }

    #[tokio::test]
    async fn change_password_with_the_right_old_password_stores_the_new_hash() {
        let mut h = Harness::new();
        h.login_attempts
            .expect_admit()
            .times(1)
            .returning(|_, _, _| Ok(Admission::Admitted));
        h.login_attempts
            .expect_clear()
            .with(eq("owner@example.com"))
            .times(1)
            .returning(|_| Ok(()));
        h.hasher.expect_verify().returning(|_, _| Ok(true));
        h.hasher.expect_hash().returning(|_| Ok("new-hash".into()));
        h.accounts
            .expect_set_password()
            .withf(|id, hash| id.0 == 7 && hash == "new-hash")
            .times(1)
            .returning(|_, _| Ok(()));
        let owner = account(true, Some("old-hash"));
        h.app()
            .change_password(&owner, Some("old"), "correct-horse-battery-42")
            .await
            .unwrap();
    }

    #[tokio::test]
    async fn change_password_reports_a_wrong_old_password_and_every_policy_problem() {
        let mut h = Harness::new();
        // The wrong old password stays counted as a failed attempt.
        h.login_attempts
            .expect_admit()
            .withf(|address, _, _| address == "owner@example.com")
            .times(1)
            .returning(|_, _, _| Ok(Admission::Admitted));
        h.login_attempts.expect_clear().never();
        h.hasher.expect_verify().returning(|_, _| Ok(false));
        h.accounts.expect_set_password().never();
        let owner = account(true, Some("old-hash"));
        let err = h
            .app()
            .change_password(&owner, Some("nope"), "1234")
            .await
            .unwrap_err();
        let ChangePasswordError::Rejected {
            old_password,
            new_password,
        } = err
        else {
            panic!("expected a rejection");
        };
        assert_eq!(old_password, Some(OldPasswordProblem::Wrong));
        assert_eq!(
            new_password,
            vec![
                PasswordProblem::TooShort,
                PasswordProblem::TooCommon,
                PasswordProblem::EntirelyNumeric
            ]
        );
    }

    #[tokio::test]
    async fn change_password_is_refused_without_a_check_while_the_account_is_locked() {
        let mut h = Harness::new();
        h.login_attempts
            .expect_admit()
            .returning(|_, _, _| Ok(Admission::Locked(now() + chrono::Duration::seconds(30))));
        h.hasher.expect_verify().never();
        h.hasher.expect_hash().never();
        h.accounts.expect_set_password().never();
        let owner = account(true, Some("old-hash"));
        let err = h
            .app()
            .change_password(&owner, Some("guess"), "correct-horse-battery-42")
            .await
            .unwrap_err();
        assert!(
            matches!(
                err,
                ChangePasswordError::LockedOut {
                    retry_after_secs: 30
                }
            ),
            "{err:?}"
        );
    }

    #[tokio::test]
    async fn rotating_the_install_token_stores_a_fresh_one() {
        let mut h = Harness::new();
        h.accounts
            .expect_replace_install_token()
            .withf(|id, token| {
                id.0 == 7
                    && token.len() == 32
                    && token != "i".repeat(32)
                    && token
                        .chars()
                        .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit())
            })
            .times(1)
            .returning(|_, token| {
                let mut account = account(true, None);
                account.install_token = token.to_owned();
                Ok(account)
            });
        let rotated = h
            .app()
            .rotate_install_token(&account(true, None))
            .await
            .unwrap();
        assert_ne!(rotated.install_token, "i".repeat(32));
    }

    #[tokio::test]
    async fn change_password_needs_the_old_password_while_one_is_usable() {
        let h = Harness::new();
        let owner = account(true, Some("old-hash"));
        let err = h
            .app()
            .change_password(&owner, None, "correct-horse-battery-42")
            .await
            .unwrap_err();
        assert!(matches!(
            err,
            ChangePasswordError::Rejected {
                old_password: Some(OldPasswordProblem::Missing),
                ..
            }
        ));
    }

    #[tokio::test]
    async fn change_password_without_a_usable_password_needs_no_old_one() {
        let mut h = Harness::new();
        h.hasher.expect_verify().never();
        h.hasher.expect_hash().returning(|_| Ok("hash".into()));
        h.accounts
            .expect_set_password()
            .times(1)
            .returning(|_, _| Ok(()));
        let owner = account(false, None);
        h.app()
            .change_password(&owner, Some("ignored"), "correct-horse-battery-42")
            .await
            .unwrap();
    }

    #[tokio::test]
    async fn change_password_refuses_one_like_the_email() {
        let h = Harness::new();
        let owner = account(true, None);
        let err = h
            .app()
            .change_password(&owner, None, "owner@example.com")
            .await
            .unwrap_err();
        let ChangePasswordError::Rejected { new_password, .. } = err else {
            panic!()
        };
        assert_eq!(
            new_password,
            vec![PasswordProblem::TooSimilar(Attribute::Email)]
        );
    }

    #[tokio::test]
    async fn change_password_surfaces_hasher_failures() {
        let mut h = Harness::new();
        h.hasher
            .expect_hash()
            .returning(|_| Err(StoreError::message("pool closed")));
        let owner = account(true, None);
        let err = h
            .app()
            .change_password(&owner, None, "correct-horse-battery-42")
            .await
            .unwrap_err();
        assert!(matches!(err, ChangePasswordError::Store(_)));
    }

    #[test]
    fn profile_shows_the_account_with_its_install_command() {
        let profile = Harness::new()
            .app()
            .profile(&account(true, Some("h")), "http://base");
        assert_eq!(profile.email, "owner@example.com");
        assert!(profile.email_verified && profile.has_usable_password);
        assert_eq!(
            profile.install_command,
            format!(
                "devmgr-agent install --server http://base --token {}",
                "i".repeat(32)
            )
        );
    }

    #[tokio::test]
    async fn profile_name_is_stored() {
        let mut h = Harness::new();
        h.accounts
            .expect_update_name()
            .withf(|id, name| id.0 == 7 && name == "Ada")
            .returning(|_, name| {
                Ok(Account {
                    name: name.clone(),
                    ..account(true, None)
                })
            });
        let app = h.app();
        let updated = app
            .update_profile_name(&account(true, None), &ProfileName::parse("Ada").unwrap())
            .await
            .unwrap();
        assert_eq!(updated.name, "Ada");
    }

    fn name(text: &str) -> ProfileName {
        ProfileName::parse(text).unwrap()
    }

    #[tokio::test]
    async fn create_user_hashes_a_good_password_and_issues_a_token() {
        let mut h = Harness::new();
        h.hasher.expect_hash().returning(|_| Ok("hash".into()));
        h.accounts
            .expect_create()
            .withf(|new| new.email_verified && new.password_hash.as_deref() == Some("hash"))
            .returning(|new| Ok(stored(new)));
        let user = h
            .app()
            .create_user(email(), Some("correct-horse-battery-42"), name("Op"), true)
            .await
            .unwrap();
        assert_eq!(user.email, "owner@example.com");
        assert_eq!(user.token.len(), 40);
        assert_eq!(user.install_token.len(), 32);
    }

    #[tokio::test]
    async fn create_user_refuses_a_weak_password_and_a_taken_address() {
        let mut h = Harness::new();
        h.accounts
            .expect_create()
            .returning(|_| Err(CreateAccountError::DuplicateEmail));
        let app = h.app();
        let weak = app
            .create_user(email(), Some("short"), name(""), false)
            .await
            .unwrap_err();
        assert!(matches!(weak, CreateUserError::Password(_)));
        let taken = app
            .create_user(email(), None, name(""), false)
            .await
            .unwrap_err();
        assert!(matches!(taken, CreateUserError::DuplicateEmail));
    }
}
