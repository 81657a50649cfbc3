use super::*;
use crate::EmailAddress;
use crate::audit::{Actor, AuditAction, AuditNote, AuditTarget, Origin};
use chrono::TimeZone;

fn chain(length: u64, after: Option<ChainLink>) -> Vec<AuditEntry> {
    let email = EmailAddress::parse("ops@example.com").unwrap();
    let mut previous = after;
    (0..length)
        .map(|second| {
            let note = AuditNote::new(
                Origin::new(
                    chrono::Utc
                        .timestamp_opt(1_800_000_000 + second as i64, 0)
                        .unwrap(),
                    Actor::user(&email),
                    None,
                ),
                AuditAction::AuthLogin,
                AuditTarget::account(&email),
            );
            let entry = note.seal(previous.as_ref());
            previous = Some(entry.link());
            entry
        })
        .collect()
}

fn verdict(entries: &[AuditEntry], checkpoint: Option<ChainLink>) -> ChainVerdict {
    let mut check = ChainCheck::new(checkpoint);
    entries.iter().for_each(|entry| check.visit(entry));
    let head = entries.last().map(AuditEntry::link);
    check.finish(head.as_ref())
}

#[test]
fn an_intact_chain_holds_and_counts_its_entries() {
    let entries = chain(5, None);
    assert_eq!(
        verdict(&entries, None),
        ChainVerdict {
            entries: 5,
            breach: None
        }
    );
    assert_eq!(verdict(&[], None).entries, 0);
}

#[test]
fn an_edited_entry_is_named() {
    let mut entries = chain(5, None);
    entries[2].action = "device.delete".into();
    let verdict = verdict(&entries, None);
    assert_eq!(verdict.entries, 5);
    assert_eq!(verdict.breach.unwrap().id, 3);
}

#[test]
fn an_entry_rehashed_after_an_edit_breaks_its_successor_link() {
    let mut entries = chain(5, None);
    entries[1].target = "account:other@example.com".into();
    entries[1].hash = entries[1].computed_hash().unwrap();
    let breach = verdict(&entries, None).breach.unwrap();
    assert_eq!(breach.id, 3);
    assert!(breach.reason.contains("entry 2"), "{}", breach.reason);
}

#[test]
fn a_deleted_entry_is_named_by_its_successor() {
    let mut entries = chain(5, None);
    entries.remove(1);
    let verdict = verdict(&entries, None);
    assert_eq!(verdict.entries, 4);
    let breach = verdict.breach.unwrap();
    assert_eq!(breach.id, 3);
    assert!(breach.reason.contains("entry 2"), "{}", breach.reason);
}

#[test]
fn swapped_ids_break_the_first_of_them() {
    let mut entries = chain(5, None);
    entries[1].id = 3;
    entries[2].id = 2;
    entries.swap(1, 2);
    assert_eq!(verdict(&entries, None).breach.unwrap().id, 2);
}

#[test]
fn a_deleted_first_entry_is_missing_for_the_second() {
    let entries = chain(3, None);
    assert_eq!(verdict(&entries[1..], None).breach.unwrap().id, 2);
}

#[test]
fn a_checkpoint_starts_the_walk_after_deleted_entries() {
    let entries = chain(5, None);
    let checkpoint = Some(entries[1].link());
    assert_eq!(verdict(&entries[2..], checkpoint.clone()).breach, None);
    let wrong = Some(ChainLink {
        id: 2,
        hash: "f".repeat(64),
    });
    assert_eq!(verdict(&entries[2..], wrong).breach.unwrap().id, 3);
}

#[test]
fn newest_entries_deleted_fall_short_of_the_head() {
    let entries = chain(5, None);
    let mut check = ChainCheck::new(None);
    entries[..3].iter().for_each(|entry| check.visit(entry));
    let verdict = check.finish(Some(&entries[4].link()));
    assert_eq!(verdict.entries, 3);
    assert_eq!(verdict.breach.unwrap().id, 4);
}
