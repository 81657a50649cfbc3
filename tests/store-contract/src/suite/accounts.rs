//! Accounts and their API tokens.

use crate::{RACERS, Store, account, install_token, new_account, race, t0, text};
use application::ports::{AccountRepository, CreateAccountError};
use domain::EmailAddress;
use domain::secret::SecretHash;

/// Accounts are unique ignoring case and created with their token.
pub async fn accounts_are_unique_ignoring_case_and_created_with_their_token(store: impl Store) {
    let account = AccountRepository::create(
        &store,
        new_account("Ann@Example.com", Some("tok-1")),
        &crate::noted(domain::AuditAction::AccountCreate),
    )
    .await
    .unwrap();
    assert_eq!(account.email.as_str(), "Ann@example.com");

    let duplicate = AccountRepository::create(
        &store,
        new_account("ANN@example.COM", Some("tok-2")),
        &crate::noted(domain::AuditAction::AccountCreate),
    )
    .await;
    assert!(matches!(duplicate, Err(CreateAccountError::DuplicateEmail)));
    // The failed creation left nothing behind: its token does not exist.
    assert!(
        store
            .account_for(&SecretHash::of("tok-2"))
            .await
            .unwrap()
            .is_none()
    );

    let found = store
        .find_by_email(&EmailAddress::parse("ann@EXAMPLE.com").unwrap())
        .await
        .unwrap();
    assert_eq!(found, Some(account.clone()));
    let by_token = store.account_for(&SecretHash::of("tok-1")).await.unwrap();
    assert_eq!(by_token, Some(account));
}

/// `address` with its `k`-th letter upper-cased when bit `k` of `variant` is set.
fn cased(address: &str, variant: usize) -> String {
    let letters = address.chars().filter(char::is_ascii_alphabetic).count();
    assert!(
        variant < 1 << letters,
        "too few letters for variant {variant}"
    );
    let mut letter = 0;
    address
        .chars()
        .map(|c| {
            if c.is_ascii_alphabetic() {
                letter += 1;
                if (variant >> (letter - 1)) & 1 == 1 {
                    return c.to_ascii_uppercase();
                }
            }
            c
        })
        .collect()
}

/// Concurrent creations of one address make one account.
pub async fn concurrent_creations_of_one_address_make_one_account(store: impl Store) {
    let addresses: Vec<String> = (0..RACERS)
        .map(|i| cased("annabel@example.com", i))
        .collect();
    let attempts = race(RACERS, |i| {
        let (store, address) = (store.clone(), addresses[i].clone());
        async move {
            let token = format!("tok-{i}");
            AccountRepository::create(
                &store,
                new_account(&address, Some(&token)),
                &crate::noted(domain::AuditAction::AccountCreate),
            )
            .await
        }
    })
    .await;

    let mut winners = Vec::new();
    for (i, attempt) in attempts.into_iter().enumerate() {
        match attempt {
            Ok(account) => winners.push((i, account)),
            Err(CreateAccountError::DuplicateEmail) => {}
            Err(other) => panic!("creation {i} failed with {other:?}"),
        }
    }
    assert_eq!(winners.len(), 1, "{winners:?}");
    let (winner, account) = winners.pop().unwrap();
    assert_eq!(
        account.email,
        EmailAddress::parse(&addresses[winner]).unwrap()
    );

    // Whatever case it is asked in, the address finds the winner.
    for address in &addresses {
        let found = store
            .find_by_email(&EmailAddress::parse(address).unwrap())
            .await
            .unwrap();
        assert_eq!(found.as_ref(), Some(&account), "{address}");
    }
    // The losers left nothing behind: no token, no key, no mail.
    for i in 0..RACERS {
        let owner = store
            .account_for(&SecretHash::of(&format!("tok-{i}")))
            .await
            .unwrap();
        let expected = (i == winner).then(|| account.clone());
        assert_eq!(owner, expected, "token of creation {i}");
    }
    let lease = t0() + chrono::Duration::minutes(2);
    let queued = store.claim_due(t0(), lease).await.unwrap().unwrap();
    assert_eq!(queued.email.id, format!("mail-{}", addresses[winner]));
    assert_eq!(store.claim_due(t0(), lease).await.unwrap(), None);
    let verified = store
        .verify_email(&SecretHash::of(&format!("key-{}", addresses[winner])), t0())
        .await
        .unwrap();
    assert!(verified);
    for (i, address) in addresses.iter().enumerate().filter(|(i, _)| *i != winner) {
        let key = SecretHash::of(&format!("key-{address}"));
        assert!(
            !store.verify_email(&key, t0()).await.unwrap(),
            "the key of creation {i} was stored"
        );
    }
}

/// The port part of the former `tokens_are_stored_only_as_hashes_and_revoked_one_by_one`
/// (the look into the file stays with the SQLite adapter's tests).
pub async fn tokens_are_revoked_one_by_one(store: impl Store) {
    let account = AccountRepository::create(
        &store,
        new_account("a@example.com", Some("first-token")),
        &crate::noted(domain::AuditAction::AccountCreate),
    )
    .await
    .unwrap();
    store
        .issue(account.id, &SecretHash::of("second-token"), t0(), None)
        .await
        .unwrap();
    store
        .revoke(&SecretHash::of("first-token"), None)
        .await
        .unwrap();
    assert!(
        store
            .account_for(&SecretHash::of("first-token"))
            .await
            .unwrap()
            .is_none()
    );
    assert!(
        store
            .account_for(&SecretHash::of("second-token"))
            .await
            .unwrap()
            .is_some()
    );
}

/// Every token of an account is revoked at once.
pub async fn every_token_of_an_account_is_revoked_at_once(store: impl Store) {
    let ann = AccountRepository::create(
        &store,
        new_account("a@example.com", Some("ann-1")),
        &crate::noted(domain::AuditAction::AccountCreate),
    )
    .await
    .unwrap();
    store
        .issue(ann.id, &SecretHash::of("ann-2"), t0(), None)
        .await
        .unwrap();
    AccountRepository::create(
        &store,
        new_account("b@example.com", Some("bob-1")),
        &crate::noted(domain::AuditAction::AccountCreate),
    )
    .await
    .unwrap();
    store.revoke_all(ann.id, None).await.unwrap();
    for token in ["ann-1", "ann-2"] {
        let found = store.account_for(&SecretHash::of(token)).await.unwrap();
        assert!(found.is_none(), "{token} still works");
    }
    let bob = store.account_for(&SecretHash::of("bob-1")).await.unwrap();
    assert!(bob.is_some());
}

/// A new install token replaces the old one.
pub async fn a_new_install_token_replaces_the_old_one(store: impl Store) {
    let ann = account(&store, "ann").await;
    let rotated = store
        .replace_install_token(
            ann.id,
            &install_token("fresh-install-token"),
            &crate::noted(domain::AuditAction::InstallTokenRotate),
        )
        .await
        .unwrap();
    assert_eq!(rotated.install_token, install_token("fresh-install-token"));
    assert_eq!(rotated.id, ann.id);
    assert_eq!(
        store
            .find_by_install_token(&install_token("install-ann"))
            .await
            .unwrap(),
        None
    );
    assert_eq!(
        store
            .find_by_install_token(&install_token("fresh-install-token"))
            .await
            .unwrap(),
        Some(rotated)
    );
}

/// Names passwords and keys are updated.
pub async fn names_passwords_and_keys_are_updated(store: impl Store) {
    let account = AccountRepository::create(
        &store,
        new_account("a@example.com", None),
        &crate::noted(domain::AuditAction::AccountCreate),
    )
    .await
    .unwrap();
    let renamed = store
        .update_name(
            account.id,
            &text("Ada Lovelace"),
            &crate::noted(domain::AuditAction::ProfileUpdate),
        )
        .await
        .unwrap();
    assert_eq!(renamed.name, "Ada Lovelace");
    store
        .set_password(account.id, "$argon2id$new", None)
        .await
        .unwrap();
    let reread = store.find_by_email(&account.email).await.unwrap().unwrap();
    assert_eq!(reread.password_hash.as_deref(), Some("$argon2id$new"));
    assert!(
        store
            .verify_email(&SecretHash::of("key-a@example.com"), t0())
            .await
            .unwrap()
    );
}

/// An install token finds its account.
pub async fn an_install_token_finds_its_account(store: impl Store) {
    let ann = account(&store, "ann").await;
    let _bob = account(&store, "bob").await;
    let found = store
        .find_by_install_token(&install_token("install-ann"))
        .await
        .unwrap();
    assert_eq!(found, Some(ann));
    assert_eq!(
        store
            .find_by_install_token(&install_token("install-nobody"))
            .await
            .unwrap(),
        None
    );
}
