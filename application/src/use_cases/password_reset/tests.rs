//! Unit tests of [`super`], over mocked ports.

use super::*;
use crate::use_cases::test_support::{Harness, Notes, account, client, email, now};
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
                && reset.mail.text.contains("https://links.test/r?key=")
        })
        .times(1)
        .returning(|_, _| Ok(()));
    h.app().password_reset.request(&email()).await.unwrap();
}

#[tokio::test]
async fn a_request_for_an_unknown_address_does_nothing() {
    let mut h = Harness::new();
    h.accounts.expect_find_by_email().returning(|_| Ok(None));
    h.keys.expect_store().never();
    h.app().password_reset.request(&email()).await.unwrap();
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
    assert!(h.app().password_reset.request(&email()).await.is_err());
}

#[tokio::test]
async fn a_valid_key_and_a_good_password_complete_the_reset() {
    let mut h = Harness::new();
    let notes = Notes::default();
    let kept = notes.clone();
    h.console_sessions
        .expect_close_sessions()
        .with(eq(domain::AccountId(7)))
        .times(1)
        .returning(|_| Ok(()));
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
        .withf(|key, reset, _| {
            *key == SecretHash::of("k")
                && reset.now == now()
                && reset.password_hash == "new-hash"
                && reset.install_token.as_str().len() == 32
                && reset.install_token.as_str() != "i".repeat(32)
        })
        .times(1)
        .returning(move |_, _, audit| {
            kept.keep(audit);
            Ok(true)
        });
    // The address's failed logins are forgotten: its lock is lifted.
    h.login_attempts
        .expect_clear()
        .with(eq(account(false, None).email.lookup_key()))
        .times(1)
        .returning(|_| Ok(()));
    h.app()
        .password_reset
        .confirm("k", GOOD, Some(client()))
        .await
        .unwrap();
    // Whoever holds the key is not signed in.
    assert_eq!(
        notes.lines(),
        ["anonymous anonymous 203.0.113.9 password.reset account:owner@example.com {}"]
    );
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
        .password_reset
        .confirm("k", "owner@example.com", None)
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
        .password_reset
        .confirm("k", "123", None)
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
    h.keys
        .expect_complete_reset()
        .returning(|_, _, _| Ok(false));
    h.console_sessions.expect_close_sessions().never();
    let err = h
        .app()
        .password_reset
        .confirm("k", GOOD, None)
        .await
        .unwrap_err();
    assert!(matches!(
        err,
        ConfirmResetError::Rejected {
            invalid_key: true,
            ..
        }
    ));
}
