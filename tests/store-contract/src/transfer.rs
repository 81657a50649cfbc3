//! The transfer port (`devmgr copy-store`, docs/operations.md, "Moving
//! between stores"): every row of one store into an empty other one, where
//! the ports then show the same accounts, tokens, devices, commands, jobs
//! and their targets, keys and mail, and the audit log whole (its entries,
//! checkpoint and head: docs/audit.md), and new rows get ids (and places in
//! order) of their own. Each adapter runs these
//! from its tests with two fresh stores (the port is the same whatever the
//! pair; the end-to-end tests copy from one kind of store to the other).

use crate::{
    Store, account, ack, done, enrol, in_waves, job_id, new_account, new_job, queue, running_job,
    serial, start_wave, t0, tags, take,
};
use application::ports::{
    AccountRepository, DeviceRepository, StoreTransfer, Table, TransferError, Window,
};
use application::use_cases::copy_store;
use domain::secret::SecretHash;
use domain::{AccountId, EmailAddress, Selector, Serial};

/// Devices of bob's big fleet: more than one batch of an export.
const FLEET: usize = 2050;

mod alerts;

fn count(counts: &[(Table, u64)], table: Table) -> u64 {
    counts
        .iter()
        .find(|(t, _)| *t == table)
        .map_or(0, |(_, n)| *n)
}

/// Fills `source`: ann (with an API token, a verification key and its mail
/// in the outbox) and her enrolled device with a command done and one
/// pending, joined by the first wave of her running job, and a scheduled
/// job; bob (an API token) and his fleet of [`FLEET`] devices, each with two
/// tags, and a job over them in waves of 1000; monitors, alerts, mail
/// windows, webhooks and deliveries of both ([`alerts::fill`]).
async fn fill(source: &impl Store) {
    let ann = AccountRepository::create(
        source,
        new_account("ann@example.com", Some("ann-token")),
        &crate::noted(domain::AuditAction::AccountCreate),
    )
    .await
    .unwrap();
    let bob = account(source, "bob").await;
    source
        .issue(bob.id, &SecretHash::of("bob-token"), t0(), None)
        .await
        .unwrap();
    let pi = serial(1);
    enrol(source, ann.id, &pi, "pi-tok").await;
    assert!(queue(source, &pi, "c1", t0()).await);
    take(source, &pi, t0()).await;
    assert!(
        ack(
            source,
            &pi,
            "c1",
            done("rebooted"),
            t0() + crate::minutes(1)
        )
        .await
    );
    assert!(queue(source, &pi, "c2", t0() + crate::minutes(2)).await);
    for n in 0..FLEET {
        let mut device = crate::device(bob.id, 2, t0());
        device.serial = fleet_serial(n);
        device.wormhole_slug = format!("fleet-{n}");
        device.tags = tags(&["fleet", &format!("rack-{}", n % 3)]);
        DeviceRepository::create(
            source,
            &device,
            &crate::noted(domain::AuditAction::DeviceCreate),
        )
        .await
        .unwrap();
    }
    let ann_job = running_job(source, ann.id, "ann-job", None).await;
    assert!(start_wave(source, &ann_job, 1, "aw", 1, t0() + crate::minutes(2)).await);
    let scheduled = new_job(
        ann.id,
        "ann-later",
        Selector::All,
        in_waves(None),
        t0(),
        Some(t0() + crate::minutes(60)),
    );
    source
        .create_job(
            &scheduled,
            t0(),
            &crate::noted(domain::AuditAction::JobCreate),
        )
        .await
        .unwrap();
    running_job(source, bob.id, "bob-job", Some(1000)).await;
    let fleet: Vec<_> = (0..FLEET).map(fleet_serial).collect();
    alerts::fill(source, ann.id, &pi, bob.id, &fleet).await;
}

/// The serial of bob's `n`-th device.
fn fleet_serial(n: usize) -> Serial {
    let bytes = u16::try_from(n).unwrap().to_be_bytes();
    Serial::from_random_bytes([
        0xb0, bytes[0], bytes[1], 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    ])
}

/// A copy shows through every port what the source showed, and the target
/// goes on from there: new accounts and commands get ids of their own.
pub async fn a_copy_keeps_every_row_and_new_rows_follow<S: Store + StoreTransfer>(
    source: &S,
    target: &S,
) {
    let mut old = crate::noted(domain::AuditAction::AuthLoginFailed);
    old.origin.time = t0() - chrono::Duration::days(2);
    source.record(AccountId(1), &old).await.unwrap();
    assert_eq!(
        source
            .purge_audit(t0() - chrono::Duration::days(1))
            .await
            .unwrap(),
        1
    );
    fill(source).await;
    let log = crate::whole_log(source).await;
    let counts = copy_store(source, target).await.unwrap();
    assert_same_log(source, target, log.len()).await;
    let expected = [
        (Table::Accounts, 2),
        (Table::ApiTokens, 2),
        (Table::EmailKeys, 1),
        (Table::Devices, FLEET as u64 + 1),
        (Table::DeviceTags, 2 * FLEET as u64),
        (Table::DeviceCommands, 2),
        (Table::Jobs, 3),
        (Table::JobTargets, FLEET as u64 + 1),
        (Table::Outbox, 1 + alerts::MAILS),
    ];
    for (table, n) in expected.into_iter().chain(alerts::COPIED) {
        assert_eq!(count(&counts, table), n, "{table:?} copied");
    }

    let ann_email = EmailAddress::parse("ann@example.com").unwrap();
    let ann = source.find_by_email(&ann_email).await.unwrap().unwrap();
    assert_eq!(
        target.find_by_email(&ann_email).await.unwrap(),
        Some(ann.clone())
    );
    for (token, owner) in [
        ("ann-token", "ann@example.com"),
        ("bob-token", "bob@example.com"),
    ] {
        let found = target.account_for(&SecretHash::of(token)).await.unwrap();
        assert_eq!(
            found.map(|a| a.email.to_string()),
            Some(owner.to_owned()),
            "{token}"
        );
    }
    let pi = serial(1);
    let device = target
        .find_by_token(&SecretHash::of("pi-tok"))
        .await
        .unwrap();
    assert_eq!(device.map(|d| d.serial), Some(pi.clone()));
    assert_eq!(
        target.history(&pi, 10).await.unwrap(),
        source.history(&pi, 10).await.unwrap()
    );
    let bob = target
        .find_by_email(&EmailAddress::parse("bob@example.com").unwrap())
        .await
        .unwrap()
        .unwrap();
    let fleet = target.list_for(bob.id).await.unwrap();
    assert_eq!(fleet.len(), FLEET);
    assert_eq!(fleet, source.list_for(bob.id).await.unwrap());
    let tag_counts = target.tag_counts(bob.id).await.unwrap();
    assert_eq!(tag_counts.len(), 4, "fleet and three racks");
    assert_eq!(tag_counts, source.tag_counts(bob.id).await.unwrap());
    assert_eq!(
        target.next_due().await.unwrap(),
        source.next_due().await.unwrap()
    );
    assert!(
        target
            .verify_email(&SecretHash::of("key-ann@example.com"), t0())
            .await
            .unwrap(),
        "ann's verification key works on the target"
    );

    assert_same_jobs(source, target, ann.id).await;
    assert_same_jobs(source, target, bob.id).await;
    alerts::assert_same(source, target, [ann.id, bob.id], &pi).await;

    let head = target.chain_ends().await.unwrap().head.unwrap();
    let carol = account(target, "carol").await;
    let next = crate::entries_after(target, head.id).await;
    assert_eq!(next.len(), 1, "carol's creation");
    assert_eq!(next[0].previous_hash, head.hash, "the chain goes on");
    crate::assert_chain_holds(target).await;
    assert!(
        carol.id.0 > ann.id.0.max(bob.id.0),
        "a new account follows the copied ids"
    );
    assert!(ack(target, &pi, "c2", done(""), t0() + crate::minutes(3)).await);
    assert!(queue(target, &pi, "c3", t0() + crate::minutes(3)).await);
    let history = target.history(&pi, 10).await.unwrap();
    let newest_first: Vec<String> = history
        .iter()
        .map(|c| crate::label(&c.command.id))
        .collect();
    assert_eq!(newest_first, ["c3", "c2", "c1"]);
    let after = t0() + crate::minutes(3);
    assert_eq!(
        crate::statuses(target, ann.id, &job_id("ann-job"), after).await,
        ["done"],
        "the copied target follows its copied command"
    );
    running_job(target, ann.id, "ann-new", None).await;
    let jobs = target.list_jobs(ann.id, PAGE, after).await.unwrap();
    assert_eq!(jobs.count, 3);
    assert_eq!(
        jobs.jobs[0].id,
        job_id("ann-new"),
        "a new job comes after the copied ones"
    );
}

/// The target holds the source's audit log, `entries` of them, entry for
/// entry, with its checkpoint and head, and shows each account its own.
async fn assert_same_log<S: Store>(source: &S, target: &S, entries: usize) {
    let ends = source.chain_ends().await.unwrap();
    assert_eq!(ends.checkpoint.as_ref().map(|link| link.id), Some(1));
    assert_eq!(target.chain_ends().await.unwrap(), ends);
    let log = crate::whole_log(target).await;
    assert_eq!(log.len(), entries);
    assert_eq!(log, crate::whole_log(source).await);
    assert_eq!(crate::assert_chain_holds(target).await, entries as u64);
    for owner in [AccountId(1), AccountId(2)] {
        let filter = Default::default();
        assert_eq!(
            target.audit_page(owner, &filter, PAGE).await.unwrap(),
            source.audit_page(owner, &filter, PAGE).await.unwrap()
        );
    }
}

/// Every job of an account.
const PAGE: Window = Window {
    limit: 1000,
    offset: 0,
};

/// The target shows `owner`'s jobs and their targets as the source does.
async fn assert_same_jobs<S: Store>(source: &S, target: &S, owner: AccountId) {
    let at = t0() + crate::minutes(2);
    let jobs = source.list_jobs(owner, PAGE, at).await.unwrap();
    assert_eq!(target.list_jobs(owner, PAGE, at).await.unwrap(), jobs);
    for job in &jobs.jobs {
        let pages = [0, 1000, 2000].map(|offset| Window {
            limit: 1000,
            offset,
        });
        for window in pages {
            assert_eq!(
                target
                    .job_targets(owner, &job.id, window, at)
                    .await
                    .unwrap(),
                source
                    .job_targets(owner, &job.id, window, at)
                    .await
                    .unwrap()
            );
        }
        assert_eq!(
            target.active_job(&job.id, at).await.unwrap(),
            source.active_job(&job.id, at).await.unwrap()
        );
    }
}

/// A target with rows is refused before anything is written, and an import
/// abandoned halfway leaves the target as empty as it was.
pub async fn a_target_with_rows_is_refused_and_an_abandoned_import_leaves_nothing<
    S: Store + StoreTransfer,
>(
    source: &S,
    target: &S,
) {
    fill(source).await;
    let mut rows = source.export().await.unwrap();
    let accounts = rows.next_batch().await.unwrap().unwrap();
    assert_eq!(accounts.table, Table::Accounts);
    let mut sink = target.import().await.ok().unwrap();
    sink.write(accounts).await.unwrap();
    drop(sink);
    drop(rows);
    let ann_email = EmailAddress::parse("ann@example.com").unwrap();
    assert_eq!(target.find_by_email(&ann_email).await.unwrap(), None);
    assert_eq!(target.chain_ends().await.unwrap(), Default::default());

    let refused = crate::noted(domain::AuditAction::AuthLoginFailed);
    target.record(AccountId(1), &refused).await.unwrap();
    match copy_store(source, target).await {
        Err(TransferError::NotEmpty(counts)) => {
            assert_eq!(count(&counts, Table::AuditLog), 1);
            assert_eq!(count(&counts, Table::AuditChain), 1);
            assert_eq!(count(&counts, Table::Accounts), 0);
        }
        other => panic!("a target with audit entries is refused, not {other:?}"),
    }
    let purged = target.purge_audit(t0() + crate::minutes(1)).await.unwrap();
    assert_eq!(purged, 1);
    match copy_store(source, target).await {
        Err(TransferError::NotEmpty(counts)) => {
            assert_eq!(count(&counts, Table::AuditLog), 0);
            assert_eq!(count(&counts, Table::AuditChain), 1, "its chain moved on");
        }
        other => panic!("a target whose chain moved on is refused, not {other:?}"),
    }

    let dana = account(target, "dana").await;
    match copy_store(source, target).await {
        Err(TransferError::NotEmpty(counts)) => {
            assert_eq!(count(&counts, Table::Accounts), 1);
            assert_eq!(count(&counts, Table::Devices), 0);
        }
        other => panic!("a target with rows is refused, not {other:?}"),
    }
    assert_eq!(target.find_by_email(&ann_email).await.unwrap(), None);
    assert_eq!(
        target
            .find_by_email(&dana.email)
            .await
            .unwrap()
            .map(|a| a.id),
        Some(dana.id)
    );
}
