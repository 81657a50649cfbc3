//! The audit log's chain under concurrent writers on PostgreSQL, from two
//! instances (two `PgStore`s, each with its own pool) on one database: every
//! audited change appends under the row lock on `audit_chain`, taken last in
//! its own transaction (`src/audit.rs`, docs/audit.md), so however the
//! writers interleave the ids run 1, 2, 3 … and each entry links to the one
//! before; retention racing the writers keeps the chain whole; a change
//! whose transaction fails leaves no entry and no gap. Without
//! `DEVMGR_TEST_POSTGRES_URL` at build time the tests are reported as
//! ignored (see `build.rs`).

#[path = "audit_races/fixtures.rs"]
mod fixtures;

use application::ports::{
    AccountRepository, AuditLog, CommandRepository, CreateAccountError, CreateDeviceError,
    DeviceChanges, DeviceRepository, JobChange, JobRepository, MonitorRepository, Retagged,
};
use domain::{
    AuditAction, AuditTarget, CommandId, JobId, ProfileName, Selector, TagChange, TagSet,
};
use fixtures::{WRITERS, at, monitor, racing};
use store_contract::{
    assert_chain_holds, fleet_device, head_id, lapse, new_account, note_on, noted, origin, race,
    tag, text, whole_log,
};

/// Audited changes each writer makes, one after another.
const STEPS: u8 = 6;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    not(postgres_tests),
    ignore = "PostgreSQL tests skipped: set DEVMGR_TEST_POSTGRES_URL=postgres://USER@HOST:PORT/DB (a server where USER may create databases) and build again"
)]
/// Pins the lock on the chain's head: without it two writers would read
/// the same head and write the same id (one failing on the primary key),
/// or, with ids from a sequence, leave gaps where a transaction rolled back.
async fn writers_on_two_instances_make_one_chain_without_gaps() {
    let r = racing().await;
    let before = head_id(&r.a).await;
    // Each writer, on the two instances in turn, makes its changes: reboots
    // (queued or joined), renames and retags of devices, new monitors,
    // renames of the account, and a retag of the whole fleet; it returns
    // how many entries they should have written.
    let written = race(WRITERS, |i| {
        let (store, ann, fleet) = (r.instance(i), r.ann, r.fleet.clone());
        async move {
            let mut expected = 0u64;
            for step in 0..STEPS {
                let serial = &fleet[(i + usize::from(step)) % fleet.len()];
                let unique = format!("w{i}-{step}");
                let byte = u8::try_from(i).unwrap();
                match (i + usize::from(step)) % 5 {
                    0 => {
                        let command = CommandId::from_random_bytes([
                            byte, step, 0xc0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1,
                        ]);
                        let now = at(step);
                        store
                            .queue_reboot(serial, &command, now, now - lapse(), Some(&origin()))
                            .await
                            .unwrap();
                        expected += 1;
                    }
                    1 => {
                        let changes = DeviceChanges {
                            name: Some(text(&unique)),
                            description: None,
                            tags: Some(TagSet::new(vec![tag(&unique)]).unwrap()),
                        };
                        let device = store.update(ann, serial, &changes, &origin()).await;
                        assert!(device.unwrap().is_some());
                        expected += 1;
                    }
                    2 => {
                        let new = monitor(ann, byte, step);
                        let note =
                            note_on(AuditAction::MonitorCreate, AuditTarget::monitor(&new.id));
                        store.create_monitor(&new, &note).await.unwrap();
                        expected += 1;
                    }
                    3 => {
                        let name: ProfileName = text(&unique);
                        let note = noted(AuditAction::ProfileUpdate);
                        store.update_name(ann, &name, &note).await.unwrap();
                        expected += 1;
                    }
                    _ => {
                        let change = TagChange {
                            remove: vec![],
                            add: vec![tag(&unique)],
                        };
                        let online = store_contract::online_after();
                        match store
                            .retag(ann, &Selector::All, online, &change, &origin())
                            .await
                        {
                            // Each device lacked the writer's own tag.
                            Ok(Retagged::Matched(n)) => expected += n,
                            Ok(Retagged::TooManyTags) => {}
                            Err(e) => panic!("retag: {e}"),
                        }
                    }
                }
            }
            expected
        }
    })
    .await;
    let expected: u64 = written.iter().sum();
    let entries = whole_log(&r.a).await;
    let ids: Vec<u64> = entries.iter().map(|entry| entry.id).collect();
    let all: Vec<u64> = (1..=before + expected).collect();
    assert_eq!(
        ids, all,
        "one entry per change, ids 1..N in the order of writing"
    );
    assert_eq!(assert_chain_holds(&r.b).await, before + expected);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    not(postgres_tests),
    ignore = "PostgreSQL tests skipped: set DEVMGR_TEST_POSTGRES_URL=postgres://USER@HOST:PORT/DB (a server where USER may create databases) and build again"
)]
/// Pins retention taking the chain's lock: a purge deletes a prefix of the
/// chain and moves the checkpoint in one transaction, one purge at a time,
/// so purges racing with different times never move the checkpoint back
/// behind entries another deleted, and appends racing them still link to
/// the head.
async fn purges_racing_appends_keep_the_chain_whole() {
    let r = racing().await;
    // Entries a minute apart (four a minute) for twelve minutes, after the
    // fixtures' own (at the first minute).
    for minute in 0..12 {
        for _ in 0..4 {
            let mut note = noted(AuditAction::ProfileUpdate);
            note.origin.time = at(minute);
            r.a.record(r.ann, &note).await.unwrap();
        }
    }
    let before = head_id(&r.a).await;
    let outcomes = race(WRITERS, |i| {
        let (store, ann, fleet) = (r.instance(i), r.ann, r.fleet.clone());
        async move {
            let (mut purged, mut newest) = (0, 0);
            for step in 0..STEPS {
                if i % 3 == 0 {
                    // Later than every purge's time: kept.
                    let mut change = origin();
                    change.time = at(12 + step);
                    let changes = DeviceChanges {
                        name: Some(text(&format!("p{i}-{step}"))),
                        description: None,
                        tags: None,
                    };
                    let serial = &fleet[i % fleet.len()];
                    let device = store.update(ann, serial, &changes, &change).await;
                    assert!(device.unwrap().is_some());
                } else {
                    // Each purger its own times, in no order.
                    let minute = 1 + (i + usize::from(step) * 7) % 12;
                    let minute = u8::try_from(minute).unwrap();
                    purged += store.purge_audit(at(minute)).await.unwrap();
                    newest = newest.max(minute);
                }
            }
            (purged, u64::from(newest))
        }
    })
    .await;
    let writes = (0..WRITERS).filter(|i| i % 3 == 0).count() as u64 * u64::from(STEPS);
    let purged: u64 = outcomes.iter().map(|o| o.0).sum();
    let newest = outcomes.iter().map(|o| o.1).max().unwrap();
    let present = assert_chain_holds(&r.b).await;
    assert_eq!(
        present + purged,
        before + writes,
        "every entry is kept or purged once"
    );
    let ends = r.a.chain_ends().await.unwrap();
    assert_eq!(ends.head.map(|head| head.id), Some(before + writes));
    // The newest purge's time takes every entry of the minutes before it.
    let checkpoint = before - 4 * (12 - newest);
    assert_eq!(ends.checkpoint.map(|link| link.id), Some(checkpoint));
    assert_eq!(purged, checkpoint);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    not(postgres_tests),
    ignore = "PostgreSQL tests skipped: set DEVMGR_TEST_POSTGRES_URL=postgres://USER@HOST:PORT/DB (a server where USER may create databases) and build again"
)]
/// Pins the entry being written in the change's own transaction, after the
/// change: a change that fails (a serial or an address taken, racers
/// creating one device) or changes nothing (a missing job) writes nothing,
/// and the next entry takes the next id.
async fn failed_changes_leave_no_entry_and_no_gap() {
    let r = racing().await;
    let before = head_id(&r.a).await;
    let taken = fleet_device(r.ann, 0, "again", "", &[], None, 0);
    let note = noted(AuditAction::DeviceCreate);
    assert!(matches!(
        DeviceRepository::create(&r.b, &taken, &note).await,
        Err(CreateDeviceError::DuplicateSerial)
    ));
    let again = new_account("ann@example.com", None);
    assert!(matches!(
        AccountRepository::create(&r.a, again, &noted(AuditAction::AccountCreate)).await,
        Err(CreateAccountError::DuplicateEmail)
    ));
    let missing = JobId::from_random_bytes([0x0b; 16]);
    let cancel = noted(AuditAction::JobCancel);
    let change =
        r.a.cancel_job(r.ann, &missing, at(0), &cancel)
            .await
            .unwrap();
    assert_eq!(change, JobChange::Missing);
    assert_eq!(head_id(&r.a).await, before, "nothing was written");

    // Racers creating one new device: one does, and writes the one entry.
    let created = race(WRITERS, |i| {
        let (store, ann) = (r.instance(i), r.ann);
        async move {
            let device = fleet_device(ann, 999, "racer", "", &[], None, 0);
            let note = noted(AuditAction::DeviceCreate);
            DeviceRepository::create(&store, &device, &note)
                .await
                .is_ok()
        }
    })
    .await;
    assert_eq!(created.iter().filter(|&&ok| ok).count(), 1);
    let entries = whole_log(&r.a).await;
    assert_eq!(entries.len() as u64, before + 1);
    assert_eq!(
        entries
            .last()
            .map(|entry| (entry.id, entry.action.as_str())),
        Some((before + 1, "device.create"))
    );
    assert_eq!(assert_chain_holds(&r.b).await, before + 1);
}
