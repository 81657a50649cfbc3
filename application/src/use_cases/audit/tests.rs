//! Unit tests of [`super`] over a mocked log: verification and export read
//! the whole chain a batch at a time, retention cuts at now − the retention,
//! and a device's page asks for its target (`docs/audit.md`).

use super::*;
use crate::Services;
use crate::ports::{AuditPage, ChainEnds};
use crate::use_cases::test_support::{Harness, account, device, now};
use domain::audit::Breach;
use domain::{AccountId, AuditAction, AuditNote, ChainLink, JobId, Origin};
use mockall::predicate::eq;
use std::sync::{Arc, Mutex};

/// How many entries the tests' log holds: more than two batches.
const ENTRIES: u64 = 2_500;

/// A chain of `n` entries (ids 1 to `n`), each sealed after the one before.
fn chain(n: u64) -> Vec<AuditEntry> {
    let mut entries: Vec<AuditEntry> = Vec::new();
    for i in 0..n {
        let job = JobId::from_random_bytes([(i % 251) as u8; 16]);
        let note = AuditNote::new(
            Origin::system(now()),
            AuditAction::JobComplete,
            AuditTarget::job(&job),
        );
        let previous = entries.last().map(AuditEntry::link);
        entries.push(note.seal(previous.as_ref()));
    }
    entries
}

/// The link of entry `id` of `entries`.
fn link(entries: &[AuditEntry], id: u64) -> ChainLink {
    entries
        .iter()
        .find(|entry| entry.id == id)
        .expect("an entry of the chain")
        .link()
}

/// The application over a log holding `entries` between `ends`; returns it
/// with the `after` of every read, in order.
fn over(entries: Vec<AuditEntry>, ends: ChainEnds) -> (Services, Arc<Mutex<Vec<u64>>>) {
    let mut h = Harness::new();
    let reads = Arc::new(Mutex::new(Vec::new()));
    let seen = reads.clone();
    h.audit
        .expect_audit_after()
        .withf(|_, limit| *limit == AUDIT_BATCH)
        .returning(move |after, limit| {
            seen.lock().unwrap().push(after);
            Ok(entries
                .iter()
                .filter(|entry| entry.id > after)
                .take(limit)
                .cloned()
                .collect())
        });
    h.audit
        .expect_chain_ends()
        .returning(move || Ok(ends.clone()));
    (h.app(), reads)
}

/// Ends whose head is the last of `entries`, without a checkpoint.
fn ends_of(entries: &[AuditEntry]) -> ChainEnds {
    ChainEnds {
        checkpoint: None,
        head: entries.last().map(AuditEntry::link),
    }
}

#[tokio::test]
async fn an_intact_chain_is_read_in_batches_and_every_entry_counted() {
    let entries = chain(ENTRIES);
    let ends = ends_of(&entries);
    let (app, reads) = over(entries, ends);
    let verdict = app.audit.verify().await.unwrap();
    assert_eq!(
        verdict,
        ChainVerdict {
            entries: ENTRIES,
            breach: None
        }
    );
    assert_eq!(*reads.lock().unwrap(), [0, 1_000, 2_000]);
}

#[tokio::test]
async fn an_empty_log_is_intact() {
    let (app, _) = over(Vec::new(), ChainEnds::default());
    let verdict = app.audit.verify().await.unwrap();
    assert_eq!(verdict.entries, 0);
    assert_eq!(verdict.breach, None);
}

#[tokio::test]
async fn an_edited_entry_in_a_later_batch_is_named() {
    let mut entries = chain(ENTRIES);
    let ends = ends_of(&entries);
    entries[1_233].action = "device.delete".into();
    let (app, _) = over(entries, ends);
    let verdict = app.audit.verify().await.unwrap();
    assert_eq!(verdict.entries, ENTRIES);
    assert_eq!(
        verdict.breach,
        Some(Breach {
            id: 1_234,
            reason: "its hash does not match its content".into()
        })
    );
}

#[tokio::test]
async fn a_deleted_middle_entry_names_its_successor() {
    let mut entries = chain(ENTRIES);
    let ends = ends_of(&entries);
    entries.retain(|entry| entry.id != 1_500);
    let (app, _) = over(entries, ends);
    let verdict = app.audit.verify().await.unwrap();
    assert_eq!(verdict.entries, ENTRIES - 1);
    assert_eq!(
        verdict.breach,
        Some(Breach {
            id: 1_501,
            reason: "its predecessor, entry 1500, is missing".into()
        })
    );
}

#[tokio::test]
async fn a_missing_newest_entry_shows_against_the_head() {
    let mut entries = chain(ENTRIES);
    let ends = ends_of(&entries);
    entries.pop();
    let (app, _) = over(entries, ends);
    let verdict = app.audit.verify().await.unwrap();
    assert_eq!(verdict.entries, ENTRIES - 1);
    assert_eq!(
        verdict.breach,
        Some(Breach {
            id: ENTRIES,
            reason: "entries 2500 to 2500 are missing: the log wrote up to entry 2500".into()
        })
    );
}

#[tokio::test]
async fn verification_starts_at_the_checkpoint_retention_left() {
    let all = chain(ENTRIES);
    let kept: Vec<AuditEntry> = all.iter().filter(|e| e.id > 1_000).cloned().collect();
    let trimmed = ChainEnds {
        checkpoint: Some(link(&all, 1_000)),
        head: Some(link(&all, ENTRIES)),
    };
    let (app, reads) = over(kept.clone(), trimmed);
    let verdict = app.audit.verify().await.unwrap();
    assert_eq!(
        verdict,
        ChainVerdict {
            entries: 1_500,
            breach: None
        }
    );
    // The log is read from its start: the checkpoint only says where the
    // chain picks up.
    assert_eq!(reads.lock().unwrap().first(), Some(&0));

    // Without the checkpoint the same entries have lost their predecessor.
    let (app, _) = over(kept, ends_of(&all));
    let verdict = app.audit.verify().await.unwrap();
    assert_eq!(
        verdict.breach,
        Some(Breach {
            id: 1_001,
            reason: "its predecessor, entry 1000, is missing".into()
        })
    );
}

#[tokio::test]
async fn export_hands_over_the_entries_after_since_in_order_across_batches() {
    let entries = chain(ENTRIES);
    let ends = ends_of(&entries);
    let (app, reads) = over(entries.clone(), ends);
    let mut exported = Vec::new();
    app.audit
        .export(700, |entry| exported.push(entry.clone()))
        .await
        .unwrap();
    assert_eq!(exported, entries[700..]);
    assert_eq!(*reads.lock().unwrap(), [700, 1_700]);

    let mut none = 0;
    app.audit.export(ENTRIES, |_| none += 1).await.unwrap();
    assert_eq!(none, 0);
}

#[tokio::test]
async fn a_failed_read_fails_verification() {
    let mut h = Harness::new();
    h.audit
        .expect_chain_ends()
        .returning(|| Ok(ChainEnds::default()));
    h.audit
        .expect_audit_after()
        .returning(|_, _| Err(StoreError::message("no such table: audit_log")));
    assert!(h.app().audit.verify().await.is_err());
}

#[tokio::test]
async fn retention_deletes_what_is_older_than_the_retention_from_now() {
    for (days, deleted) in [(365, 0), (30, 12)] {
        let mut h = Harness::new();
        h.audit
            .expect_purge_audit()
            .with(eq(now() - Duration::days(days)))
            .times(1)
            .returning(move |_| Ok(deleted));
        let app = h.app_with(|settings| settings.audit_retention = Duration::days(days));
        assert_eq!(app.audit.apply_retention().await.unwrap(), deleted);
    }
}

#[tokio::test]
async fn the_default_retention_is_a_year() {
    let mut h = Harness::new();
    h.audit
        .expect_purge_audit()
        .with(eq(now() - Duration::days(365)))
        .times(1)
        .returning(|_| Ok(0));
    assert_eq!(h.app().audit.apply_retention().await.unwrap(), 0);
}

#[tokio::test]
async fn a_devices_activity_is_the_owners_newest_entries_about_it() {
    let serial = device(None).serial;
    let about = chain(3);
    let mut h = Harness::new();
    let page = about.clone();
    let target = format!("device:{}", serial.as_str());
    h.audit
        .expect_audit_page()
        .with(
            eq(AccountId(7)),
            eq(AuditFilter {
                action: None,
                target: Some(target),
            }),
            eq(Window {
                limit: DEVICE_ACTIVITY,
                offset: 0,
            }),
        )
        .times(1)
        .returning(move |_, _, _| {
            Ok(AuditPage {
                count: 40,
                entries: page.clone(),
            })
        });
    let shown = h
        .app()
        .audit
        .of_device(&account(true, None), &serial)
        .await
        .unwrap();
    assert_eq!(shown, about);
}

#[tokio::test]
async fn a_page_is_the_owners_with_its_filter() {
    let filter = AuditFilter {
        action: Some("device.reboot".into()),
        target: None,
    };
    let window = Window {
        limit: 100,
        offset: 200,
    };
    let mut h = Harness::new();
    h.audit
        .expect_audit_page()
        .with(eq(AccountId(7)), eq(filter.clone()), eq(window))
        .times(1)
        .returning(|_, _, _| {
            Ok(AuditPage {
                count: 0,
                entries: Vec::new(),
            })
        });
    let page = h
        .app()
        .audit
        .page(&account(true, None), &filter, window)
        .await
        .unwrap();
    assert_eq!(page.count, 0);
}
