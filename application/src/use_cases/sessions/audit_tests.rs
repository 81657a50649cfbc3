//! What signing in and out asks the log to record (`docs/audit.md`).

use super::super::*;
use crate::ports::Admission;
use crate::use_cases::test_support::{Harness, Notes, account, by, client, email, now};
use domain::AccountId;

/// A harness whose address has an account 7 with password hash "hash",
/// verified or not, and whose password check answers `matches`.
fn known(verified: bool, matches: bool) -> Harness {
    let mut h = Harness::new().never_locked();
    h.accounts
        .expect_find_by_email()
        .returning(move |_| Ok(Some(account(verified, Some("hash")))));
    h.hasher.expect_verify().returning(move |_, _| Ok(matches));
    h
}

#[tokio::test]
async fn a_login_hands_its_entry_to_the_token_it_issues() {
    let mut h = known(true, true);
    let notes = Notes::default();
    let kept = notes.clone();
    h.audit.expect_record().never();
    h.tokens
        .expect_issue()
        .times(1)
        .returning(move |_, _, _, audit| {
            kept.keep_some(audit);
            Ok(())
        });
    h.app()
        .sessions
        .login(&email(), "right", Some(client()))
        .await
        .unwrap();
    assert_eq!(
        notes.lines(),
        ["user owner@example.com 203.0.113.9 auth.login account:owner@example.com {}"]
    );
}

#[tokio::test]
async fn a_refused_login_of_an_existing_account_is_recorded_once_as_anonymous() {
    // A wrong password, and a right one for an address not verified yet.
    for (verified, matches) in [(true, false), (false, true)] {
        let mut h = known(verified, matches);
        let notes = Notes::default();
        let kept = notes.clone();
        h.tokens.expect_issue().never();
        h.audit
            .expect_record()
            .withf(|owner, _| *owner == AccountId(7))
            .times(1)
            .returning(move |_, note| {
                kept.keep(note);
                Ok(())
            });
        h.app()
            .sessions
            .login(&email(), "guess", Some(client()))
            .await
            .unwrap_err();
        assert_eq!(
            notes.lines(),
            ["anonymous anonymous 203.0.113.9 auth.login_failed account:owner@example.com {}"]
        );
    }
}

#[tokio::test]
async fn a_refused_login_is_refused_even_when_its_entry_cannot_be_written() {
    let mut h = known(true, false);
    h.audit
        .expect_record()
        .returning(|_, _| Err(StoreError::message("disk full")));
    let err = h
        .app()
        .sessions
        .login(&email(), "guess", None)
        .await
        .unwrap_err();
    assert!(matches!(err, LoginError::Store(_)), "{err:?}");
}

#[tokio::test]
async fn a_login_for_an_unknown_address_records_nothing() {
    let mut h = Harness::new().never_locked();
    h.accounts.expect_find_by_email().returning(|_| Ok(None));
    h.hasher.expect_verify().returning(|_, _| Ok(false));
    h.audit.expect_record().never();
    let err = h
        .app()
        .sessions
        .login(&email(), "guess", Some(client()))
        .await
        .unwrap_err();
    assert!(matches!(err, LoginError::InvalidCredentials));
}

#[tokio::test]
async fn a_locked_out_login_records_nothing() {
    let mut h = Harness::new();
    h.login_attempts
        .expect_admit()
        .returning(|_, _, _| Ok(Admission::Locked(now() + chrono::Duration::seconds(30))));
    h.audit.expect_record().never();
    h.tokens.expect_issue().never();
    let err = h
        .app()
        .sessions
        .login(&email(), "right", Some(client()))
        .await
        .unwrap_err();
    assert!(matches!(err, LoginError::LockedOut { .. }));
}

#[tokio::test]
async fn logging_out_hands_the_user_and_address_to_the_revocation() {
    let mut h = Harness::new();
    let notes = Notes::default();
    let (one, all) = (notes.clone(), notes.clone());
    h.tokens
        .expect_revoke()
        .times(1)
        .returning(move |_, audit| {
            one.keep_some(audit);
            Ok(())
        });
    h.tokens
        .expect_revoke_all()
        .times(1)
        .returning(move |_, audit| {
            all.keep_some(audit);
            Ok(())
        });
    h.console_sessions
        .expect_close_sessions()
        .returning(|_| Ok(()));
    let owner = account(true, None);
    let app = h.app();
    app.sessions.logout(by(&owner), "abc").await.unwrap();
    app.sessions.logout_everywhere(by(&owner)).await.unwrap();
    assert_eq!(
        notes.lines(),
        [
            "user owner@example.com 203.0.113.9 auth.logout account:owner@example.com {}",
            "user owner@example.com 203.0.113.9 auth.logout_all account:owner@example.com {}",
        ]
    );
}
