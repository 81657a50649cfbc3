//! Unit tests of [`super`], over mocked ports.

use super::*;
use crate::ports::{Admission, KeyPurpose};
use crate::use_cases::test_support::{Harness, account, by, email, now};
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
        .withf(|new, _| {
            !new.email_verified
                && new.password_hash.is_none()
                && new.first_token.is_some()
                && new.verification.as_ref().is_some_and(|v| {
                    v.key.purpose == KeyPurpose::VerifyEmail
                        && v.key.expires == now() + chrono::Duration::hours(72)
                        && v.mail.to == "owner@example.com"
                        && v.mail.id.len() == 32
                        && v.mail.text.contains("https://links.test/v?key=")
                        && v.mail.html.contains("https://links.test/v?key=")
                })
        })
        .times(1)
        .returning(|new, _| Ok(stored(new)));
    let token = h.app().accounts.register(email(), None).await.unwrap();
    assert_eq!(token.len(), 40);
}

#[tokio::test]
async fn register_refuses_a_taken_address() {
    let mut h = Harness::new();
    h.accounts
        .expect_create()
        .returning(|_, _| Err(CreateAccountError::DuplicateEmail));
    let err = h.app().accounts.register(email(), None).await.unwrap_err();
    assert!(matches!(err, RegisterError::DuplicateEmail));
}

#[tokio::test]
async fn closed_registration_creates_nothing() {
    let mut h = Harness::new();
    h.accounts.expect_create().never();
    let app = h.app_with(|settings| settings.registration = Registration::Closed);
    assert!(!app.accounts.registration_is_open());
    let api = app.accounts.register(email(), None).await.unwrap_err();
    assert!(matches!(api, RegisterError::Closed));
    let console = app
        .accounts
        .register_for_console(email(), None)
        .await
        .unwrap_err();
    assert!(matches!(console, RegisterError::Closed));
}

#[tokio::test]
async fn register_surfaces_storage_failures() {
    let mut h = Harness::new();
    h.accounts
        .expect_create()
        .returning(|_, _| Err(CreateAccountError::Store(StoreError::message("locked"))));
    let err = h.app().accounts.register(email(), None).await.unwrap_err();
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
        .withf(|id, hash, audit| id.0 == 7 && hash == "new-hash" && audit.is_some())
        .times(1)
        .returning(|_, _, _| Ok(()));
    let owner = account(true, Some("old-hash"));
    h.app()
        .accounts
        .change_password(by(&owner), Some("old"), "correct-horse-battery-42")
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
        .accounts
        .change_password(by(&owner), Some("nope"), "1234")
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
        .accounts
        .change_password(by(&owner), Some("guess"), "correct-horse-battery-42")
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
        .withf(|id, token, _| {
            id.0 == 7
                && *token != account(true, None).install_token
                && InstallToken::parse(token.as_str()).as_ref() == Ok(token)
        })
        .times(1)
        .returning(|_, token, _| {
            let mut account = account(true, None);
            account.install_token = token.clone();
            Ok(account)
        });
    let rotated = h
        .app()
        .accounts
        .rotate_install_token(by(&account(true, None)))
        .await
        .unwrap();
    assert_ne!(rotated.install_token, account(true, None).install_token);
}

#[tokio::test]
async fn change_password_needs_the_old_password_while_one_is_usable() {
    let h = Harness::new();
    let owner = account(true, Some("old-hash"));
    let err = h
        .app()
        .accounts
        .change_password(by(&owner), None, "correct-horse-battery-42")
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
        .returning(|_, _, _| Ok(()));
    let owner = account(false, None);
    h.app()
        .accounts
        .change_password(by(&owner), Some("ignored"), "correct-horse-battery-42")
        .await
        .unwrap();
}

#[tokio::test]
async fn change_password_refuses_one_like_the_email() {
    let h = Harness::new();
    let owner = account(true, None);
    let err = h
        .app()
        .accounts
        .change_password(by(&owner), None, "owner@example.com")
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
        .accounts
        .change_password(by(&owner), None, "correct-horse-battery-42")
        .await
        .unwrap_err();
    assert!(matches!(err, ChangePasswordError::Store(_)));
}

#[tokio::test]
async fn profile_name_is_stored() {
    let mut h = Harness::new();
    h.accounts
        .expect_update_name()
        .withf(|id, name, _| id.0 == 7 && name == "Ada")
        .returning(|_, name, _| {
            Ok(Account {
                name: name.clone(),
                ..account(true, None)
            })
        });
    let app = h.app();
    let updated = app
        .accounts
        .rename(
            by(&account(true, None)),
            &ProfileName::parse("Ada").unwrap(),
        )
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
        .withf(|new, _| new.email_verified && new.password_hash.as_deref() == Some("hash"))
        .returning(|new, _| Ok(stored(new)));
    let user = h
        .app()
        .accounts
        .create_user(email(), Some("correct-horse-battery-42"), name("Op"), true)
        .await
        .unwrap();
    assert_eq!(user.email, "owner@example.com");
    assert_eq!(user.token.len(), 40);
    assert_eq!(user.install_token.as_str().len(), 32);
}

#[tokio::test]
async fn create_user_refuses_a_weak_password_and_a_taken_address() {
    let mut h = Harness::new();
    h.accounts
        .expect_create()
        .returning(|_, _| Err(CreateAccountError::DuplicateEmail));
    let app = h.app();
    let weak = app
        .accounts
        .create_user(email(), Some("short"), name(""), false)
        .await
        .unwrap_err();
    assert!(matches!(weak, CreateUserError::Password(_)));
    let taken = app
        .accounts
        .create_user(email(), None, name(""), false)
        .await
        .unwrap_err();
    assert!(matches!(taken, CreateUserError::DuplicateEmail));
}

#[path = "audit_tests.rs"]
mod audit;
