//! E-mailed keys: verification and password reset.

use crate::{RACERS, Store, completed, new_account, race, reload, store_reset_key, t0, unverified};
use application::ports::{AccountRepository, MAX_OUTSTANDING_RESET_KEYS};
use chrono::Duration;
use domain::secret::SecretHash;

/// A verification key works until it expires even when used.
pub async fn a_verification_key_works_until_it_expires_even_when_used(store: impl Store) {
    let account = unverified(&store).await;
    let key = SecretHash::of("verify");
    assert!(store.verify_email(&key, t0()).await.unwrap());
    assert!(reload(&store, &account).await.email_verified);
    assert!(
        store
            .verify_email(&key, t0() + Duration::hours(71))
            .await
            .unwrap()
    );
    assert!(
        !store
            .verify_email(&key, t0() + Duration::hours(72))
            .await
            .unwrap()
    );
    assert!(
        !store
            .verify_email(&SecretHash::of("other"), t0())
            .await
            .unwrap()
    );
}

/// Keys only work for their purpose.
pub async fn keys_only_work_for_their_purpose(store: impl Store) {
    let account = unverified(&store).await;
    store_reset_key(&store, &account, "reset", t0()).await;
    assert!(
        !store
            .verify_email(&SecretHash::of("reset"), t0())
            .await
            .unwrap()
    );
    assert!(
        store
            .reset_account(&SecretHash::of("verify"), t0())
            .await
            .unwrap()
            .is_none()
    );
    assert!(!reload(&store, &account).await.email_verified);
}

/// A reset sets the password verifies and ends every reset key.
pub async fn a_reset_sets_the_password_verifies_and_ends_every_reset_key(store: impl Store) {
    let account = unverified(&store).await;
    for key in ["reset-1", "reset-2"] {
        store_reset_key(&store, &account, key, t0()).await;
    }
    let first = SecretHash::of("reset-1");
    let opened = store.reset_account(&first, t0()).await.unwrap();
    assert_eq!(opened.map(|a| a.id), Some(account.id));
    assert!(
        store
            .complete_reset(
                &first,
                &completed(t0(), "$argon2id$new"),
                &crate::noted(domain::AuditAction::PasswordReset)
            )
            .await
            .unwrap()
    );
    let after = reload(&store, &account).await;
    assert_eq!(after.password_hash.as_deref(), Some("$argon2id$new"));
    assert!(after.email_verified);
    for key in ["reset-1", "reset-2"] {
        let key = SecretHash::of(key);
        assert!(store.reset_account(&key, t0()).await.unwrap().is_none());
        assert!(
            !store
                .complete_reset(
                    &key,
                    &completed(t0(), "$x"),
                    &crate::noted(domain::AuditAction::PasswordReset)
                )
                .await
                .unwrap()
        );
    }
}

/// A reset ends every api token and replaces the install token.
pub async fn a_reset_ends_every_api_token_and_replaces_the_install_token(store: impl Store) {
    let ann = AccountRepository::create(
        &store,
        new_account("ann@example.com", Some("ann-token")),
        &crate::noted(domain::AuditAction::AccountCreate),
    )
    .await
    .unwrap();
    store
        .issue(ann.id, &SecretHash::of("ann-second"), t0(), None)
        .await
        .unwrap();
    let bob = AccountRepository::create(
        &store,
        new_account("bob@example.com", Some("bob-token")),
        &crate::noted(domain::AuditAction::AccountCreate),
    )
    .await
    .unwrap();
    store_reset_key(&store, &ann, "reset", t0()).await;
    let reset = completed(t0(), "$argon2id$new");
    assert!(
        store
            .complete_reset(
                &SecretHash::of("reset"),
                &reset,
                &crate::noted(domain::AuditAction::PasswordReset)
            )
            .await
            .unwrap()
    );
    for token in ["ann-token", "ann-second"] {
        let found = store.account_for(&SecretHash::of(token)).await.unwrap();
        assert!(found.is_none(), "{token} still works");
    }
    let after = reload(&store, &ann).await;
    assert_eq!(after.install_token, reset.install_token);
    assert!(
        store
            .find_by_install_token(&ann.install_token)
            .await
            .unwrap()
            .is_none()
    );
    // Another account keeps its token.
    let found = store
        .account_for(&SecretHash::of("bob-token"))
        .await
        .unwrap();
    assert_eq!(found.map(|a| a.id), Some(bob.id));
}

/// At most five reset keys are outstanding and a sixth ends the oldest.
pub async fn at_most_five_reset_keys_are_outstanding_and_a_sixth_ends_the_oldest(
    store: impl Store,
) {
    let account = unverified(&store).await;
    // All in one second: the order they were made in decides, not their expiry.
    for i in 0..=MAX_OUTSTANDING_RESET_KEYS {
        store_reset_key(&store, &account, &format!("reset-{i}"), t0()).await;
    }
    let opens = |i: usize| {
        let store = store.clone();
        async move {
            store
                .reset_account(&SecretHash::of(&format!("reset-{i}")), t0())
                .await
                .unwrap()
                .is_some()
        }
    };
    assert!(!opens(0).await, "the oldest key ended");
    for i in 1..=MAX_OUTSTANDING_RESET_KEYS {
        assert!(opens(i).await, "reset-{i} still opens the account");
    }
    for i in 10..20 {
        store_reset_key(&store, &account, &format!("reset-{i}"), t0()).await;
        assert!(opens(i).await, "the newest key, reset-{i}, works");
    }
    for i in 1..15 {
        assert!(!opens(i).await, "reset-{i} ended");
    }
    for i in 15..20 {
        assert!(opens(i).await, "reset-{i}, one of the newest five, works");
    }
}

/// A password change ends every reset key.
pub async fn a_password_change_ends_every_reset_key(store: impl Store) {
    let account = unverified(&store).await;
    store_reset_key(&store, &account, "reset", t0()).await;
    store
        .set_password(account.id, "$argon2id$changed", None)
        .await
        .unwrap();
    let key = SecretHash::of("reset");
    assert!(store.reset_account(&key, t0()).await.unwrap().is_none());
    assert!(
        !store
            .complete_reset(
                &key,
                &completed(t0(), "$argon2id$attacker"),
                &crate::noted(domain::AuditAction::PasswordReset)
            )
            .await
            .unwrap()
    );
    let after = reload(&store, &account).await;
    assert_eq!(after.password_hash.as_deref(), Some("$argon2id$changed"));
}

/// Purging forgets expired keys only.
pub async fn purging_forgets_expired_keys_only(store: impl Store) {
    let account = unverified(&store).await;
    store_reset_key(&store, &account, "reset", t0()).await;
    store.purge_keys(t0() + Duration::hours(23)).await.unwrap();
    assert!(
        store
            .reset_account(&SecretHash::of("reset"), t0())
            .await
            .unwrap()
            .is_some()
    );
    assert!(
        store
            .verify_email(&SecretHash::of("verify"), t0())
            .await
            .unwrap()
    );
    // At 24 hours the reset key has expired; the verification key lives on.
    store.purge_keys(t0() + Duration::hours(24)).await.unwrap();
    assert!(
        store
            .reset_account(&SecretHash::of("reset"), t0())
            .await
            .unwrap()
            .is_none()
    );
    assert!(
        store
            .verify_email(&SecretHash::of("verify"), t0())
            .await
            .unwrap()
    );
    store.purge_keys(t0() + Duration::hours(72)).await.unwrap();
    assert!(
        !store
            .verify_email(&SecretHash::of("verify"), t0())
            .await
            .unwrap()
    );
}

/// An expired reset key opens nothing.
pub async fn an_expired_reset_key_opens_nothing(store: impl Store) {
    let account = unverified(&store).await;
    store_reset_key(&store, &account, "reset", t0()).await;
    let key = SecretHash::of("reset");
    let late = t0() + Duration::hours(24);
    assert!(store.reset_account(&key, late).await.unwrap().is_none());
    assert!(
        !store
            .complete_reset(
                &key,
                &completed(late, "$x"),
                &crate::noted(domain::AuditAction::PasswordReset)
            )
            .await
            .unwrap()
    );
    assert!(reload(&store, &account).await.password_hash.is_none());
}

/// "false when another request used the key first": of many requests
/// completing a reset with one key at once, exactly one does, and its
/// password is the one stored.
pub async fn racing_resets_with_one_key_succeed_once(store: impl Store) {
    let account = unverified(&store).await;
    store_reset_key(&store, &account, "reset", t0()).await;
    let outcomes = race(RACERS, |i| {
        let store = store.clone();
        async move {
            let hash = format!("$argon2id${i}");
            store
                .complete_reset(
                    &SecretHash::of("reset"),
                    &completed(t0(), &hash),
                    &crate::noted(domain::AuditAction::PasswordReset),
                )
                .await
        }
    })
    .await;
    let winners: Vec<usize> = (0..RACERS)
        .filter(|&i| *outcomes[i].as_ref().unwrap())
        .collect();
    assert_eq!(winners.len(), 1, "{winners:?}");
    let after = reload(&store, &account).await;
    assert_eq!(
        after.password_hash,
        Some(format!("$argon2id${}", winners[0]))
    );
    assert!(after.email_verified);
}

/// A completed reset ends every reset key of the account, atomically with
/// using its own: of resets racing with different keys of one account,
/// exactly one succeeds.
pub async fn racing_resets_with_different_keys_of_one_account_succeed_once(store: impl Store) {
    const KEYS: usize = MAX_OUTSTANDING_RESET_KEYS;
    let account = unverified(&store).await;
    for i in 0..KEYS {
        store_reset_key(&store, &account, &format!("reset-{i}"), t0()).await;
    }
    let outcomes = race(KEYS, |i| {
        let store = store.clone();
        async move {
            let key = SecretHash::of(&format!("reset-{i}"));
            store
                .complete_reset(
                    &key,
                    &completed(t0(), &format!("$argon2id${i}")),
                    &crate::noted(domain::AuditAction::PasswordReset),
                )
                .await
        }
    })
    .await;
    let winners: Vec<usize> = (0..KEYS)
        .filter(|&i| *outcomes[i].as_ref().unwrap())
        .collect();
    assert_eq!(winners.len(), 1, "{winners:?}");
    let after = reload(&store, &account).await;
    assert_eq!(
        after.password_hash,
        Some(format!("$argon2id${}", winners[0]))
    );
    for i in 0..KEYS {
        let key = SecretHash::of(&format!("reset-{i}"));
        assert!(store.reset_account(&key, t0()).await.unwrap().is_none());
    }
}
