//! Fixtures of the audit log (docs/audit.md): who made a change and the
//! notes the audited repository methods take.

use crate::t0;
use domain::{Actor, AuditAction, AuditEntry, AuditNote, AuditTarget, EmailAddress, Origin};
use std::net::IpAddr;

/// The address the fixtures' changes come from.
pub fn client_ip() -> IpAddr {
    IpAddr::from([192, 0, 2, 7])
}

/// A change asked for at [`t0`] by ops@example.com from [`client_ip`].
pub fn origin() -> Origin {
    let email = EmailAddress::parse("ops@example.com").expect("an address");
    Origin::new(t0(), Actor::user(&email), Some(client_ip()))
}

/// A note of `action` by [`origin`], about the account fixture@example.com:
/// for the tests that do not read the log.
pub fn noted(action: AuditAction) -> AuditNote {
    let email = EmailAddress::parse("fixture@example.com").expect("an address");
    AuditNote::new(origin(), action, AuditTarget::account(&email))
}

/// A note of `action` on `target` by [`origin`].
pub fn note_on(action: AuditAction, target: AuditTarget) -> AuditNote {
    AuditNote::new(origin(), action, target)
}

/// Every entry of the log, in id order, read through the port in batches
/// of 7 (so that the paging of `audit_after` is exercised too).
pub async fn whole_log(store: &impl crate::Store) -> Vec<AuditEntry> {
    let mut entries: Vec<AuditEntry> = Vec::new();
    loop {
        let after = entries.last().map_or(0, |entry| entry.id);
        let batch = application::ports::AuditLog::audit_after(store, after, 7)
            .await
            .expect("the log is read");
        let done = batch.len() < 7;
        entries.extend(batch);
        if done {
            return entries;
        }
    }
}

/// The actions of the log's entries, in id order.
pub async fn actions(store: &impl crate::Store) -> Vec<String> {
    whole_log(store)
        .await
        .into_iter()
        .map(|entry| entry.action)
        .collect()
}

/// The id of the newest entry ever written (0 before the first).
pub async fn head_id(store: &impl crate::Store) -> u64 {
    let ends = application::ports::AuditLog::chain_ends(store)
        .await
        .expect("the chain's ends are read");
    ends.head.map_or(0, |head| head.id)
}

/// The entries written after entry `id`, in id order.
pub async fn entries_after(store: &impl crate::Store, id: u64) -> Vec<AuditEntry> {
    application::ports::AuditLog::audit_after(store, id, 10_000)
        .await
        .expect("the log is read")
}

/// Runs `change` and returns the entries it wrote.
pub async fn written_by<T>(
    store: &impl crate::Store,
    change: impl std::future::Future<Output = T>,
) -> (T, Vec<AuditEntry>) {
    let before = head_id(store).await;
    let outcome = change.await;
    (outcome, entries_after(store, before).await)
}

/// Checks the stored chain as `devmgr audit verify` does (from the
/// checkpoint, up to the head) and that its ids follow one another without
/// a gap; returns how many entries are present.
pub async fn assert_chain_holds(store: &impl crate::Store) -> u64 {
    let ends = application::ports::AuditLog::chain_ends(store)
        .await
        .expect("the chain's ends are read");
    let entries = whole_log(store).await;
    let first = ends.checkpoint.as_ref().map_or(0, |link| link.id) + 1;
    let ids: Vec<u64> = entries.iter().map(|entry| entry.id).collect();
    let expected: Vec<u64> = (first..first + entries.len() as u64).collect();
    assert_eq!(ids, expected, "ids follow the checkpoint without a gap");
    let mut check = domain::audit::ChainCheck::new(ends.checkpoint.clone());
    entries.iter().for_each(|entry| check.visit(entry));
    let verdict = check.finish(ends.head.as_ref());
    assert_eq!(verdict.breach, None, "the chain holds");
    match entries.last() {
        Some(last) => assert_eq!(ends.head, Some(last.link()), "the head is the newest"),
        None => assert_eq!(ends.head, ends.checkpoint, "nothing after the checkpoint"),
    }
    verdict.entries
}
