//! What the account use cases ask the log to record (`docs/audit.md`).

use super::super::*;
use super::stored;
use crate::use_cases::test_support::{Harness, Notes, account, by, client, email};

#[tokio::test]
async fn register_records_the_new_account_as_its_own_author_from_its_address() {
    for console in [false, true] {
        let mut h = Harness::new();
        let notes = Notes::default();
        let kept = notes.clone();
        h.accounts
            .expect_create()
            .times(1)
            .returning(move |new, audit| {
                kept.keep(audit);
                Ok(stored(new))
            });
        let app = h.app();
        if console {
            app.accounts
                .register_for_console(email(), Some(client()))
                .await
                .unwrap();
        } else {
            app.accounts
                .register(email(), Some(client()))
                .await
                .unwrap();
        }
        assert_eq!(
            notes.lines(),
            ["user owner@example.com 203.0.113.9 account.register account:owner@example.com {}"]
        );
    }
}

#[tokio::test]
async fn create_user_is_recorded_as_the_command_line_without_an_address() {
    let mut h = Harness::new();
    let notes = Notes::default();
    let kept = notes.clone();
    h.accounts.expect_create().returning(move |new, audit| {
        kept.keep(audit);
        Ok(stored(new))
    });
    h.app()
        .accounts
        .create_user(email(), None, ProfileName::default(), true)
        .await
        .unwrap();
    assert_eq!(
        notes.lines(),
        ["cli cli - account.create account:owner@example.com {}"]
    );
}

#[tokio::test]
async fn change_password_records_the_user_from_the_request_address() {
    let mut h = Harness::new();
    let notes = Notes::default();
    let kept = notes.clone();
    h.hasher.expect_hash().returning(|_| Ok("hash".into()));
    h.accounts
        .expect_set_password()
        .times(1)
        .returning(move |_, _, audit| {
            kept.keep_some(audit);
            Ok(())
        });
    let owner = account(true, None);
    h.app()
        .accounts
        .change_password(by(&owner), None, "correct-horse-battery-42")
        .await
        .unwrap();
    assert_eq!(
        notes.lines(),
        ["user owner@example.com 203.0.113.9 password.change account:owner@example.com {}"]
    );
}

#[tokio::test]
async fn rename_asks_to_record_the_name_as_changed() {
    let mut h = Harness::new();
    let notes = Notes::default();
    let kept = notes.clone();
    h.accounts
        .expect_update_name()
        .times(1)
        .returning(move |_, _, audit| {
            kept.keep(audit);
            Ok(account(true, None))
        });
    let owner = account(true, None);
    h.app()
        .accounts
        .rename(by(&owner), &ProfileName::parse("Ada").unwrap())
        .await
        .unwrap();
    assert_eq!(
        notes.lines(),
        [concat!(
            "user owner@example.com 203.0.113.9 profile.update account:owner@example.com ",
            r#"{"changed":["name"]}"#
        )]
    );
}

#[tokio::test]
async fn rotating_the_install_token_is_recorded_without_an_address_when_none_is_known() {
    let mut h = Harness::new();
    let notes = Notes::default();
    let kept = notes.clone();
    h.accounts
        .expect_replace_install_token()
        .times(1)
        .returning(move |_, _, audit| {
            kept.keep(audit);
            Ok(account(true, None))
        });
    let owner = account(true, None);
    h.app()
        .accounts
        .rotate_install_token(Requester::new(&owner, None))
        .await
        .unwrap();
    assert_eq!(
        notes.lines(),
        ["user owner@example.com - install_token.rotate account:owner@example.com {}"]
    );
}
