//! Unit tests of [`super`], over mocked ports.

use super::*;
use crate::ports::Admission;
use crate::use_cases::test_support::{Harness, account, by, email, now};
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
        .withf(|id, _, _, audit| id.0 == 7 && audit.is_some())
        .times(1)
        .returning(|_, _, _, _| Ok(()));
    let token = h
        .app()
        .sessions
        .login(&email(), "s3cret-pass", None)
        .await
        .unwrap();
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
    let err = h
        .app()
        .sessions
        .login(&email(), "whatever", None)
        .await
        .unwrap_err();
    assert!(matches!(err, LoginError::InvalidCredentials));
}

#[tokio::test]
async fn a_wrong_password_is_refused() {
    let mut h = Harness::new().never_locked();
    h.audit.expect_record().times(1).returning(|_, _| Ok(()));
    h.accounts
        .expect_find_by_email()
        .returning(|_| Ok(Some(account(true, Some("hash")))));
    h.hasher.expect_verify().returning(|_, _| Ok(false));
    let err = h
        .app()
        .sessions
        .login(&email(), "wrong", None)
        .await
        .unwrap_err();
    assert!(matches!(err, LoginError::InvalidCredentials));
}

#[tokio::test]
async fn an_account_without_a_password_cannot_log_in() {
    let mut h = Harness::new().never_locked();
    h.audit.expect_record().times(1).returning(|_, _| Ok(()));
    h.accounts
        .expect_find_by_email()
        .returning(|_| Ok(Some(account(true, None))));
    h.hasher
        .expect_verify()
        .withf(|_, hash| hash.is_none())
        .returning(|_, _| Ok(false));
    let err = h
        .app()
        .sessions
        .login(&email(), "anything", None)
        .await
        .unwrap_err();
    assert!(matches!(err, LoginError::InvalidCredentials));
}

#[tokio::test]
async fn an_unverified_address_is_refused_after_the_password_check() {
    let mut h = Harness::new().never_locked();
    h.audit.expect_record().times(1).returning(|_, _| Ok(()));
    h.accounts
        .expect_find_by_email()
        .returning(|_| Ok(Some(account(false, Some("hash")))));
    h.hasher.expect_verify().returning(|_, _| Ok(true));
    let err = h
        .app()
        .sessions
        .login(&email(), "right", None)
        .await
        .unwrap_err();
    assert!(matches!(err, LoginError::EmailNotVerified));
}

#[tokio::test]
async fn storage_failures_surface() {
    let mut h = Harness::new().never_locked();
    h.accounts
        .expect_find_by_email()
        .returning(|_| Err(StoreError::message("disk on fire")));
    let err = h
        .app()
        .sessions
        .login(&email(), "x", None)
        .await
        .unwrap_err();
    assert!(matches!(err, LoginError::Store(_)));
}

#[tokio::test]
async fn logout_revokes_the_hash_of_the_presented_token() {
    let mut h = Harness::new();
    h.tokens
        .expect_revoke()
        .withf(|token, _| *token == SecretHash::of("abc"))
        .times(1)
        .returning(|_, _| Ok(()));
    h.app()
        .sessions
        .logout(by(&account(true, None)), "abc")
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
    assert!(
        h.app()
            .sessions
            .authenticate("abc")
            .await
            .unwrap()
            .is_some()
    );
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
    let err = h
        .app()
        .sessions
        .login(&email(), "right", None)
        .await
        .unwrap_err();
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
    let err = h
        .app()
        .sessions
        .login(&email(), "wrong", None)
        .await
        .unwrap_err();
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
    h.tokens.expect_issue().returning(|_, _, _, _| Ok(()));
    h.app()
        .sessions
        .login(&email(), "right", None)
        .await
        .unwrap();
}

#[tokio::test]
async fn without_a_lockout_policy_nothing_is_counted() {
    let mut h = Harness::new();
    h.login_attempts.expect_admit().never();
    h.login_attempts.expect_clear().never();
    h.accounts.expect_find_by_email().returning(|_| Ok(None));
    h.hasher.expect_verify().returning(|_, _| Ok(false));
    let app = h.app_with(|settings| settings.login_lockout = None);
    let err = app
        .sessions
        .login(&email(), "wrong", None)
        .await
        .unwrap_err();
    assert!(matches!(err, LoginError::InvalidCredentials));
}

#[tokio::test]
async fn the_console_signs_in_with_the_logins_checks_and_opens_a_session() {
    let mut h = Harness::new().never_locked();
    h.accounts
        .expect_find_by_email()
        .returning(|_| Ok(Some(account(true, Some("hash")))));
    h.hasher.expect_verify().returning(|_, _| Ok(true));
    h.tokens.expect_issue().never();
    h.console_sessions
        .expect_open_session()
        .withf(|id, _, at| id.0 == 7 && *at == now())
        .times(1)
        .returning(|_, _, _| Ok(()));
    let secret = h
        .app()
        .sessions
        .open_console(&email(), "s3cret-pass")
        .await
        .unwrap();
    assert_eq!(secret.len(), 43);
}

#[tokio::test]
async fn the_console_shares_the_logins_lockout() {
    let mut h = Harness::new();
    h.login_attempts
        .expect_admit()
        .returning(|_, _, _| Ok(Admission::Locked(now() + chrono::Duration::seconds(42))));
    h.hasher.expect_verify().never();
    h.console_sessions.expect_open_session().never();
    let err = h
        .app()
        .sessions
        .open_console(&email(), "whatever")
        .await
        .unwrap_err();
    assert!(matches!(
        err,
        LoginError::LockedOut {
            retry_after_secs: 42
        }
    ));
}

#[tokio::test]
async fn an_unverified_address_gets_no_console_session() {
    let mut h = Harness::new().never_locked();
    h.accounts
        .expect_find_by_email()
        .returning(|_| Ok(Some(account(false, Some("hash")))));
    h.hasher.expect_verify().returning(|_, _| Ok(true));
    h.console_sessions.expect_open_session().never();
    let err = h
        .app()
        .sessions
        .open_console(&email(), "s3cret-pass")
        .await
        .unwrap_err();
    assert!(matches!(err, LoginError::EmailNotVerified));
}

#[tokio::test]
async fn a_session_ends_after_fourteen_idle_days_and_is_touched_at_most_every_five_minutes() {
    let mut h = Harness::new();
    h.console_sessions
        .expect_session_account()
        .withf(|_, idle_after, touch_before, at| {
            *idle_after == now() - chrono::Duration::days(14)
                && *touch_before == now() - chrono::Duration::minutes(5)
                && *at == now()
        })
        .times(1)
        .returning(|_, _, _, _| Ok(Some(account(true, None))));
    let found = h.app().sessions.console_account("secret").await.unwrap();
    assert_eq!(found.map(|a| a.id), Some(AccountId(7)));
}

#[tokio::test]
async fn logging_out_everywhere_ends_tokens_and_console_sessions() {
    let mut h = Harness::new();
    // Their open live updates are told, and stop.
    h.fleet_signals = crate::use_cases::test_support::announcements(1);
    h.tokens
        .expect_revoke_all()
        .withf(|id, _| *id == AccountId(7))
        .times(1)
        .returning(|_, _| Ok(()));
    h.console_sessions
        .expect_close_sessions()
        .with(eq(AccountId(7)))
        .times(1)
        .returning(|_| Ok(()));
    h.app()
        .sessions
        .logout_everywhere(by(&account(true, None)))
        .await
        .unwrap();
}

#[path = "audit_tests.rs"]
mod audit;
