//! The audit log's chain (docs/audit.md): every entry the store writes
//! takes the next id and links to the one before, also under concurrent
//! writers; a standalone note is sealed as written; the log reads back in
//! id order a batch at a time; retention deletes a prefix and keeps its
//! newest entry as the checkpoint, after which the chain goes on.

use crate::{
    RACERS, Store, account, assert_chain_holds, client_ip, device_monitor, entries_after, head_id,
    minutes, monitor_id, note_on, noted, origin, race, t0, webhook, whole_log,
};
use application::ports::{DeviceChanges, DeviceRepository};
use domain::audit::GENESIS_HASH;
use domain::{AuditAction, AuditNote, AuditTarget, Origin};

/// A note of `action` on ann's account, made `minutes_after` [`t0`].
fn at(action: AuditAction, minutes_after: i64) -> AuditNote {
    let mut note = noted(action);
    note.origin.time = t0() + minutes(minutes_after);
    note
}

/// Accounts, devices, monitors, webhooks and standalone notes, one after
/// another: ids 1, 2, 3 … without a gap, the first after 64 zeros, each
/// linked to its predecessor's hash and hashing to its own.
pub async fn a_mix_of_changes_makes_one_unbroken_chain(store: impl Store) {
    assert_eq!(store.chain_ends().await.unwrap(), Default::default());
    let ann = account(&store, "ann").await;
    let pi = crate::device(ann.id, 1, t0());
    DeviceRepository::create(&store, &pi, &noted(AuditAction::DeviceCreate))
        .await
        .unwrap();
    let renamed = DeviceChanges {
        name: Some(crate::text("renamed")),
        ..DeviceChanges::default()
    };
    store
        .update(ann.id, &pi.serial, &renamed, &origin())
        .await
        .unwrap();
    let monitor = device_monitor(&store, ann.id, "m").await;
    store
        .snooze_monitor(ann.id, &monitor, None, &noted(AuditAction::MonitorSnooze))
        .await
        .unwrap();
    let hook = webhook(&store, ann.id, "h", &[domain::WebhookEvent::JobHalted]).await;
    store
        .delete_webhook(ann.id, &hook, &noted(AuditAction::WebhookDelete))
        .await
        .unwrap();
    store
        .record(ann.id, &noted(AuditAction::AuthLoginFailed))
        .await
        .unwrap();

    let log = whole_log(&store).await;
    assert_eq!(log.len(), 8);
    assert_eq!(log[0].previous_hash, GENESIS_HASH);
    assert!(
        log.windows(2)
            .all(|pair| pair[1].previous_hash == pair[0].hash)
    );
    assert_eq!(assert_chain_holds(&store).await, 8);
    let ends = store.chain_ends().await.unwrap();
    assert_eq!(ends.head, Some(log[7].link()));
    assert_eq!(ends.checkpoint, None);
}

/// `record` writes the note alone, field by field as sealed, shown in the
/// owner's log only.
pub async fn a_standalone_note_is_recorded_as_sealed(store: impl Store) {
    let ann = account(&store, "ann").await;
    let bob = account(&store, "bob").await;
    let note = AuditNote::new(
        Origin::new(
            t0() + minutes(3),
            domain::Actor::anonymous(),
            Some(client_ip()),
        ),
        AuditAction::AuthLoginFailed,
        AuditTarget::account(&ann.email),
    );
    store.record(ann.id, &note).await.unwrap();
    let log = whole_log(&store).await;
    let entry = log.last().unwrap();
    assert_eq!(*entry, note.seal(Some(&log[1].link())));
    assert_eq!(entry.id, 3);
    assert_eq!(entry.time, "2026-05-01T08:03:00");
    assert_eq!(
        (entry.actor_kind.as_str(), entry.actor_label.as_str()),
        ("anonymous", "anonymous")
    );
    assert_eq!(entry.action, "auth.login_failed");
    assert_eq!(entry.target, "account:ann@example.com");
    assert_eq!(entry.ip.as_deref(), Some("192.0.2.7"));
    assert_eq!(entry.detail, "{}");
    let all = crate::all();
    let ann_page = store.audit_page(ann.id, &Default::default(), all).await;
    assert_eq!(ann_page.unwrap().entries[0], *entry);
    let bob_page = store.audit_page(bob.id, &Default::default(), all).await;
    assert!(bob_page.unwrap().entries.iter().all(|e| e.id != 3));
}

/// `audit_after` gives the entries above an id, ascending, at most the
/// limit.
pub async fn the_log_reads_in_id_order_a_batch_at_a_time(store: impl Store) {
    let ann = account(&store, "ann").await;
    for minute in 1..=5 {
        store
            .record(ann.id, &at(AuditAction::AuthLoginFailed, minute))
            .await
            .unwrap();
    }
    let ids = |entries: Vec<domain::AuditEntry>| -> Vec<u64> {
        entries.into_iter().map(|entry| entry.id).collect()
    };
    assert_eq!(ids(store.audit_after(0, 3).await.unwrap()), [1, 2, 3]);
    assert_eq!(ids(store.audit_after(2, 100).await.unwrap()), [3, 4, 5, 6]);
    assert_eq!(ids(store.audit_after(5, 1).await.unwrap()), [6]);
    assert!(store.audit_after(6, 10).await.unwrap().is_empty());
}

/// Retention deletes every entry up to the newest one written before the
/// cut and keeps that one's id and hash as the checkpoint; verification
/// from there holds, and the next entry continues the chain.
pub async fn purging_keeps_a_checkpoint_and_the_chain_goes_on(store: impl Store) {
    let ann = account(&store, "ann").await;
    assert_eq!(store.purge_audit(t0()).await.unwrap(), 0, "none before t0");
    assert_eq!(store.chain_ends().await.unwrap().checkpoint, None);
    for minute in [10, 20, 30, 40] {
        store
            .record(ann.id, &at(AuditAction::AuthLoginFailed, minute))
            .await
            .unwrap();
    }
    let before = whole_log(&store).await;
    assert_eq!(store.purge_audit(t0() + minutes(25)).await.unwrap(), 3);
    let ends = store.chain_ends().await.unwrap();
    assert_eq!(ends.checkpoint, Some(before[2].link()));
    assert_eq!(ends.head, Some(before[4].link()));
    assert_eq!(whole_log(&store).await, before[3..]);
    assert_eq!(assert_chain_holds(&store).await, 2);

    assert_eq!(store.purge_audit(t0() + minutes(25)).await.unwrap(), 0);
    assert_eq!(
        store.chain_ends().await.unwrap().checkpoint,
        ends.checkpoint
    );
    store
        .record(ann.id, &at(AuditAction::AuthLoginFailed, 50))
        .await
        .unwrap();
    let next = entries_after(&store, 5).await;
    assert_eq!(next.len(), 1);
    assert_eq!((next[0].id, &next[0].previous_hash), (6, &before[4].hash));
    assert_eq!(assert_chain_holds(&store).await, 3);

    assert_eq!(store.purge_audit(t0() + minutes(60)).await.unwrap(), 3);
    assert!(whole_log(&store).await.is_empty());
    assert_eq!(assert_chain_holds(&store).await, 0);
    store
        .record(ann.id, &at(AuditAction::AuthLoginFailed, 70))
        .await
        .unwrap();
    assert_eq!(whole_log(&store).await[0].id, 7);
    assert_eq!(assert_chain_holds(&store).await, 1);
}

/// Many tasks each making changes at once (standalone notes and monitors
/// created, snoozed and deleted) still write one sequence: 1 … N, each
/// entry linked to the one before.
pub async fn concurrent_changes_make_one_sequence(store: impl Store) {
    const CHANGES: usize = 20;
    let mut owners = Vec::new();
    for i in 0..RACERS {
        owners.push(account(&store, &format!("racer{i}")).await.id);
    }
    race(RACERS, |i| {
        let (store, owner) = (store.clone(), owners[i]);
        async move {
            for k in 0..CHANGES / 4 {
                let label = format!("r{i}-{k}");
                let id = monitor_id(&label);
                let target = AuditTarget::monitor(&id);
                store
                    .record(owner, &noted(AuditAction::AuthLoginFailed))
                    .await
                    .unwrap();
                device_monitor(&store, owner, &label).await;
                let snooze = note_on(AuditAction::MonitorSnooze, target.clone());
                store
                    .snooze_monitor(owner, &id, Some(t0()), &snooze)
                    .await
                    .unwrap();
                let delete = note_on(AuditAction::MonitorDelete, target);
                assert!(store.delete_monitor(owner, &id, &delete).await.unwrap());
            }
        }
    })
    .await;
    let expected = RACERS * (1 + CHANGES);
    assert_eq!(head_id(&store).await, expected as u64);
    assert_eq!(assert_chain_holds(&store).await, expected as u64);
}
