//! The mail outbox: queuing, claiming, retries and waking the worker.

use crate::{Store, mail, new_account, race, store_reset_key, t0, unverified};
use chrono::Duration;
use std::collections::BTreeSet;

/// Long enough that a woken wait always finishes well within it.
const WAKE_DEADLINE: std::time::Duration = std::time::Duration::from_secs(5);

/// Mail is queued with its change and claimed once per lease.
pub async fn mail_is_queued_with_its_change_and_claimed_once_per_lease(store: impl Store) {
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

/// Failed mail waits for its retry and delivered mail is gone.
pub async fn failed_mail_waits_for_its_retry_and_delivered_mail_is_gone(store: impl Store) {
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
pub async fn racing_workers_claim_each_mail_once(store: impl Store) {
    const MAILS: usize = 24;
    const WORKERS: usize = 6;
    for i in 0..MAILS {
        let address = format!("user{i}@example.com");
        application::ports::AccountRepository::create(
            &store,
            new_account(&address, None),
            &crate::noted(domain::AuditAction::AccountCreate),
        )
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

/// Committing mail wakes the worker.
pub async fn committing_mail_wakes_the_worker(store: impl Store) {
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
pub async fn storing_a_key_wakes_the_worker(store: impl Store) {
    let ann = crate::account(&store, "ann").await;
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
pub async fn mail_queued_before_the_wait_ends_it(store: impl Store) {
    unverified(&store).await;
    let woken = tokio::time::timeout(
        WAKE_DEADLINE,
        store.wait_for_mail(std::time::Duration::from_secs(30)),
    )
    .await;
    assert!(woken.is_ok(), "the wake-up of the queued mail was lost");
}

/// Waiting for mail ends at its timeout.
pub async fn waiting_for_mail_ends_at_its_timeout(store: impl Store) {
    let returned = tokio::time::timeout(
        WAKE_DEADLINE,
        store.wait_for_mail(std::time::Duration::from_millis(200)),
    )
    .await;
    assert!(returned.is_ok(), "the wait outlived its own timeout");
}
