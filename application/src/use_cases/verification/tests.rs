//! Unit tests of [`super`], over mocked ports.

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
    h.app().verification.verify("the-key").await.unwrap();
}

#[tokio::test]
async fn an_unknown_or_expired_key_is_refused() {
    let mut h = Harness::new();
    h.keys.expect_verify_email().returning(|_, _| Ok(false));
    let err = h.app().verification.verify("nope").await.unwrap_err();
    assert!(matches!(err, VerifyEmailError::InvalidKey));
}

#[tokio::test]
async fn verification_surfaces_storage_failures() {
    let mut h = Harness::new();
    h.keys
        .expect_verify_email()
        .returning(|_, _| Err(StoreError::message("locked")));
    let err = h.app().verification.verify("k").await.unwrap_err();
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
                && v.mail.text.contains("https://links.test/v?key=")
        })
        .times(1)
        .returning(|_, _| Ok(()));
    h.app().verification.resend(&email()).await.unwrap();
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
    app.verification.resend(&email()).await.unwrap();
    app.verification.resend(&email()).await.unwrap();
}
