//! E-mailed keys (verification, password reset) and the mail outbox.

use application::ports::{AccountRepository, MAX_OUTSTANDING_RESET_KEYS};
use chrono::Duration;
use domain::secret::SecretHash;
use std::collections::BTreeSet;
use store_contract::{
    RACERS, Store, completed, mail, new_account, race, reload, store_reset_key, t0, unverified,
};

/// Long enough that a woken wait always finishes well within it.
const WAKE_DEADLINE: std::time::Duration = std::time::Duration::from_secs(5);

// --- Keys ---------------------------------------------------------------------

async fn a_verification_key_works_until_it_expires_even_when_used(store: impl Store) {
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

async fn keys_only_work_for_their_purpose(store: impl Store) {
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

async fn a_reset_sets_the_password_verifies_and_ends_every_reset_key(store: impl Store) {
    let account = unverified(&store).await;
    for key in ["reset-1", "reset-2"] {
        store_reset_key(&store, &account, key, t0()).await;
    }
    let first = SecretHash::of("reset-1");
    let opened = store.reset_account(&first, t0()).await.unwrap();
    assert_eq!(opened.map(|a| a.id), Some(account.id));
    assert!(
        store
            .complete_reset(&first, &completed(t0(), "$argon2id$new"))
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
                .complete_reset(&key, &completed(t0(), "$x"))
                .await
                .unwrap()
        );
    }
}

async fn a_reset_ends_every_api_token_and_replaces_the_install_token(store: impl Store) {
    let ann = AccountRepository::create(&store, new_account("ann@example.com", Some("ann-token")))
        .await
        .unwrap();
    store
        .issue(ann.id, &SecretHash::of("ann-second"), t0())
        .await
        .unwrap();
    let bob = AccountRepository::create(&store, new_account("bob@example.com", Some("bob-token")))
        .await
        .unwrap();
    store_reset_key(&store, &ann, "reset", t0()).await;
    let reset = completed(t0(), "$argon2id$new");
    assert!(
        store
            .complete_reset(&SecretHash::of("reset"), &reset)
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

async fn at_most_five_reset_keys_are_outstanding_and_a_sixth_ends_the_oldest(store: impl Store) {
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

async fn a_password_change_ends_every_reset_key(store: impl Store) {
    let account = unverified(&store).await;
    store_reset_key(&store, &account, "reset", t0()).await;
    store
        .set_password(account.id, "$argon2id$changed")
        .await
        .unwrap();
    let key = SecretHash::of("reset");
    assert!(store.reset_account(&key, t0()).await.unwrap().is_none());
    assert!(
        !store
            .complete_reset(&key, &completed(t0(), "$argon2id$attacker"))
            .await
            .unwrap()
    );
    let after = reload(&store, &account).await;
    assert_eq!(after.password_hash.as_deref(), Some("$argon2id$changed"));
}

async fn purging_forgets_expired_keys_only(store: impl Store) {
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

async fn an_expired_reset_key_opens_nothing(store: impl Store) {
    let account = unverified(&store).await;
    store_reset_key(&store, &account, "reset", t0()).await;
    let key = SecretHash::of("reset");
    let late = t0() + Duration::hours(24);
    assert!(store.reset_account(&key, late).await.unwrap().is_none());
    assert!(
        !store
            .complete_reset(&key, &completed(late, "$x"))
            .await
            .unwrap()
    );
    assert!(reload(&store, &account).await.password_hash.is_none());
}

/// "false when another request used the key first": of many requests
/// completing a reset with one key at once, exactly one does, and its
/// password is the one stored.
async fn racing_resets_with_one_key_succeed_once(store: impl Store) {
    let account = unverified(&store).await;
    store_reset_key(&store, &account, "reset", t0()).await;
    let outcomes = race(RACERS, |i| {
        let store = store.clone();
        async move {
            let hash = format!("$argon2id${i}");
            store
                .complete_reset(&SecretHash::of("reset"), &completed(t0(), &hash))
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
async fn racing_resets_with_different_keys_of_one_account_succeed_once(store: impl Store) {
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
                .complete_reset(&key, &completed(t0(), &format!("$argon2id${i}")))
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

// --- Outbox -------------------------------------------------------------------

async fn mail_is_queued_with_its_change_and_claimed_once_per_lease(store: impl Store) {
    unverified(&store).await;
    assert_eq!(store.next_due().await.unwrap(), Some(t0()));
    let lease = t0() + Duration::minutes(2);
    let claimed = store.claim_due(t0(), lease).await.unwrap().unwrap();
    assert_eq!(claimed.email, mail("mail-verify"));
    assert_eq!((claimed.attempts, claimed.queued_time), (0, t0()));
    // Hidden from other workers until the lease ends, then handed out again.
    assert!(store.claim_due(t0(), lease).await.unwrap().is_none());
    assert_eq!(store.next_due().await.unwrap(), Some(lease));
    let again = store.claim_due(lease, lease + Duration::minutes(2)).await;
    assert_eq!(
        again.unwrap().map(|q| q.email.id),
        Some("mail-verify".into())
    );
}

async fn failed_mail_waits_for_its_retry_and_delivered_mail_is_gone(store: impl Store) {
    let account = unverified(&store).await;
    store_reset_key(&store, &account, "reset", t0() + Duration::seconds(1)).await;
    let lease = t0() + Duration::minutes(2);
    let first = store.claim_due(t0(), lease).await.unwrap().unwrap();
    assert_eq!(first.email.id, "mail-verify");
    let retry = t0() + Duration::seconds(30);
    store
        .retry_at(&first.email.id, 1, retry, "connection refused")
        .await
        .unwrap();
    let now = t0() + Duration::seconds(5);
    let second = store.claim_due(now, lease).await.unwrap().unwrap();
    assert_eq!(second.email.id, "mail-reset");
    store.remove(&second.email.id).await.unwrap();
    assert!(store.claim_due(now, lease).await.unwrap().is_none());
    let retried = store.claim_due(retry, lease).await.unwrap().unwrap();
    assert_eq!(
        (retried.email.id.as_str(), retried.attempts),
        ("mail-verify", 1)
    );
    store.remove("mail-verify").await.unwrap();
    assert_eq!(store.next_due().await.unwrap(), None);
}

/// Workers claiming at once: every due mail is claimed, each by one worker.
async fn racing_workers_claim_each_mail_once(store: impl Store) {
    const MAILS: usize = 24;
    const WORKERS: usize = 6;
    for i in 0..MAILS {
        let address = format!("user{i}@example.com");
        application::ports::AccountRepository::create(&store, new_account(&address, None))
            .await
            .unwrap();
    }
    let lease = t0() + Duration::minutes(2);
    let claims = race(WORKERS, |_| {
        let store = store.clone();
        async move {
            let mut claimed = Vec::new();
            while let Some(queued) = store.claim_due(t0(), lease).await.unwrap() {
                claimed.push(queued.email.id);
            }
            claimed
        }
    })
    .await;
    let all: Vec<&String> = claims.iter().flatten().collect();
    let distinct: BTreeSet<&String> = all.iter().copied().collect();
    assert_eq!(
        all.len(),
        distinct.len(),
        "a mail was claimed twice: {claims:?}"
    );
    let expected: BTreeSet<String> = (0..MAILS)
        .map(|i| format!("mail-user{i}@example.com"))
        .collect();
    assert_eq!(distinct, expected.iter().collect());
    assert_eq!(store.next_due().await.unwrap(), Some(lease));
}

async fn committing_mail_wakes_the_worker(store: impl Store) {
    let waiting = {
        let store = store.clone();
        tokio::spawn(async move {
            store
                .wait_for_mail(std::time::Duration::from_secs(30))
                .await
        })
    };
    tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    unverified(&store).await;
    tokio::time::timeout(WAKE_DEADLINE, waiting)
        .await
        .expect("the waiting worker was not woken")
        .unwrap();
}

/// [`EmailKeyRepository::store`](application::ports::EmailKeyRepository::store)
/// queues mail too, and wakes the worker likewise.
async fn storing_a_key_wakes_the_worker(store: impl Store) {
    let ann = store_contract::account(&store, "ann").await;
    let waiting = {
        let store = store.clone();
        tokio::spawn(async move {
            store
                .wait_for_mail(std::time::Duration::from_secs(30))
                .await
        })
    };
    tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    store_reset_key(&store, &ann, "reset", t0()).await;
    tokio::time::timeout(WAKE_DEADLINE, waiting)
        .await
        .expect("the waiting worker was not woken")
        .unwrap();
}

/// Mail queued while the worker was busy (between its look at the outbox
/// and its wait) ends its next wait at once: no wake-up is lost.
async fn mail_queued_before_the_wait_ends_it(store: impl Store) {
    unverified(&store).await;
    let woken = tokio::time::timeout(
        WAKE_DEADLINE,
        store.wait_for_mail(std::time::Duration::from_secs(30)),
    )
    .await;
    assert!(woken.is_ok(), "the wake-up of the queued mail was lost");
}

async fn waiting_for_mail_ends_at_its_timeout(store: impl Store) {
    let returned = tokio::time::timeout(
        WAKE_DEADLINE,
        store.wait_for_mail(std::time::Duration::from_millis(200)),
    )
    .await;
    assert!(returned.is_ok(), "the wait outlived its own timeout");
}

store_contract::contract_tests!(
    a_verification_key_works_until_it_expires_even_when_used,
    keys_only_work_for_their_purpose,
    a_reset_sets_the_password_verifies_and_ends_every_reset_key,
    an_expired_reset_key_opens_nothing,
    racing_resets_with_one_key_succeed_once,
    racing_resets_with_different_keys_of_one_account_succeed_once,
    a_reset_ends_every_api_token_and_replaces_the_install_token,
    at_most_five_reset_keys_are_outstanding_and_a_sixth_ends_the_oldest,
    a_password_change_ends_every_reset_key,
    purging_forgets_expired_keys_only,
    mail_is_queued_with_its_change_and_claimed_once_per_lease,
    failed_mail_waits_for_its_retry_and_delivered_mail_is_gone,
    racing_workers_claim_each_mail_once,
    committing_mail_wakes_the_worker,
    storing_a_key_wakes_the_worker,
    mail_queued_before_the_wait_ends_it,
    waiting_for_mail_ends_at_its_timeout,
);
