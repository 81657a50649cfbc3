//! Settling a job's waves: complete, halt or time the next wave, once, and
//! keep the targets' final statuses so that later deletions and purges
//! change nothing; targets whose device is deleted or whose commands are
//! purged before that.

use crate::{
    Store, account, ack, done, engine_view, failed, fleet_of, job_counts, lapse, minutes,
    running_job, start_wave, statuses, t0, take,
};
use application::ports::{Settlement, SettlementNotices};
use domain::{JobId, JobStatus, Timestamp};

async fn settle(
    store: &impl Store,
    job: &JobId,
    wave: u32,
    how: Settlement,
    at: Timestamp,
) -> bool {
    store
        .settle_wave(
            job,
            wave,
            how,
            at,
            at - lapse(),
            &SettlementNotices::default(),
        )
        .await
        .unwrap()
}

/// A settled wave keeps its targets' statuses and details: deleting the
/// devices, purging the commands or reading with another lapse afterwards
/// changes none of them; the next wave's time is set.
pub async fn a_settled_wave_keeps_its_statuses(store: impl Store) {
    let ann = account(&store, "ann").await;
    let fleet = fleet_of(&store, ann.id, 1, 4).await;
    let job = running_job(&store, ann.id, "j", Some(3)).await;
    assert!(start_wave(&store, &job, 1, "w", 3, t0()).await);
    take(&store, &fleet[0], t0()).await;
    assert!(ack(&store, &fleet[0], "w-0", done("fine"), t0() + minutes(1)).await);
    assert!(ack(&store, &fleet[1], "w-1", failed("broke"), t0() + minutes(1)).await);
    let at = t0() + lapse();
    let expected = ["done", "failed", "lapsed", "waiting"];
    assert_eq!(statuses(&store, ann.id, &job, at).await, expected);

    let next = at + minutes(5);
    assert!(settle(&store, &job, 1, Settlement::NextWaveAt(next), at).await);
    let engine = engine_view(&store, &job, at).await.unwrap();
    assert_eq!(
        (engine.status, engine.current_wave, engine.next_wave_time),
        (JobStatus::Running, 1, Some(next))
    );
    for serial in &fleet[..3] {
        assert!(
            store
                .delete(
                    ann.id,
                    serial,
                    &crate::noted(domain::AuditAction::DeviceDelete)
                )
                .await
                .unwrap()
        );
    }
    store.purge_commands(at + minutes(60)).await.unwrap();
    let early = t0() - minutes(60);
    assert_eq!(
        statuses(&store, ann.id, &job, early).await,
        expected,
        "kept"
    );
    let targets = crate::all_targets(&store, ann.id, &job, at).await;
    let details: Vec<&str> = targets.iter().map(|t| t.detail.as_str()).collect();
    assert_eq!(details, ["fine", "broke", "", ""]);
    assert_eq!(
        targets[0].command_id,
        Some(crate::command_id("w-0")),
        "the command id stays"
    );
}

/// Completing finishes the job then; halting stops it without finishing;
/// neither is seen by the engine afterwards.
pub async fn each_settlement_leaves_the_job_as_it_says(store: impl Store) {
    let ann = account(&store, "ann").await;
    fleet_of(&store, ann.id, 1, 2).await;
    let at = t0() + minutes(1);

    let complete = running_job(&store, ann.id, "complete", None).await;
    assert!(start_wave(&store, &complete, 1, "c", 2, t0()).await);
    assert!(settle(&store, &complete, 1, Settlement::Complete, at).await);
    let record = store
        .find_job(ann.id, &complete, at)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        (record.status, record.finished_time),
        (JobStatus::Completed, Some(at))
    );
    assert_eq!(engine_view(&store, &complete, at).await, None);

    let halt = running_job(&store, ann.id, "halt", Some(1)).await;
    assert!(start_wave(&store, &halt, 1, "h", 1, t0()).await);
    assert!(settle(&store, &halt, 1, Settlement::Halt, at).await);
    let record = store.find_job(ann.id, &halt, at).await.unwrap().unwrap();
    assert_eq!(
        (record.status, record.finished_time),
        (JobStatus::Halted, None)
    );
    assert_eq!(engine_view(&store, &halt, at).await, None);

    let bob = account(&store, "bob").await;
    let nothing = running_job(&store, bob.id, "nothing", None).await;
    assert!(
        settle(&store, &nothing, 0, Settlement::Complete, at).await,
        "a job without targets completes without a wave"
    );
    let record = store.find_job(bob.id, &nothing, at).await.unwrap().unwrap();
    assert_eq!(record.status, JobStatus::Completed);
}

/// A settlement of another wave than the current one, of a wave already
/// settled, or of a job that is not running changes nothing.
pub async fn a_settlement_needs_the_running_jobs_current_wave(store: impl Store) {
    let ann = account(&store, "ann").await;
    fleet_of(&store, ann.id, 1, 2).await;
    let at = t0() + minutes(1);
    let job = running_job(&store, ann.id, "j", Some(1)).await;
    let next = Settlement::NextWaveAt(at);
    assert!(
        !settle(&store, &job, 1, next, at).await,
        "wave 1 has not started"
    );
    assert!(start_wave(&store, &job, 1, "w", 1, t0()).await);
    assert!(
        !settle(&store, &job, 2, next, at).await,
        "not the current wave"
    );
    assert!(!settle(&store, &job, 0, Settlement::Complete, at).await);
    assert!(settle(&store, &job, 1, next, at).await);
    for how in [next, Settlement::Halt] {
        assert!(!settle(&store, &job, 1, how, at).await, "settled: {how:?}");
    }
    store
        .cancel_job(
            ann.id,
            &job,
            at,
            &crate::noted(domain::AuditAction::JobCancel),
        )
        .await
        .unwrap();
    assert!(
        !settle(&store, &job, 1, Settlement::Complete, at).await,
        "cancelled"
    );
    let record = store.find_job(ann.id, &job, at).await.unwrap().unwrap();
    assert_eq!(
        (record.status, record.finished_time),
        (JobStatus::Cancelled, Some(at))
    );
}

/// Deleting a device while its wave runs: a target whose command ended
/// keeps how it ended, one whose command had not ended is skipped; a
/// deletion refused (another account's) changes nothing.
pub async fn deleting_a_device_skips_its_unended_target_and_keeps_an_ended_one(store: impl Store) {
    let ann = account(&store, "ann").await;
    let bob = account(&store, "bob").await;
    let fleet = fleet_of(&store, ann.id, 1, 4).await;
    let job = running_job(&store, ann.id, "j", None).await;
    assert!(start_wave(&store, &job, 1, "w", 4, t0()).await);
    assert!(ack(&store, &fleet[0], "w-0", done("ok"), t0()).await);
    assert!(ack(&store, &fleet[1], "w-1", failed("no"), t0()).await);
    take(&store, &fleet[2], t0()).await;

    assert!(
        !store
            .delete(
                bob.id,
                &fleet[2],
                &crate::noted(domain::AuditAction::DeviceDelete)
            )
            .await
            .unwrap()
    );
    let at = t0() + minutes(1);
    assert_eq!(
        statuses(&store, ann.id, &job, at).await,
        ["done", "failed", "delivered", "pending"]
    );
    for serial in &fleet[..3] {
        assert!(
            store
                .delete(
                    ann.id,
                    serial,
                    &crate::noted(domain::AuditAction::DeviceDelete)
                )
                .await
                .unwrap()
        );
    }
    let targets = crate::all_targets(&store, ann.id, &job, at).await;
    let read: Vec<(&str, &str)> = targets
        .iter()
        .map(|t| (t.status.code(), t.detail.as_str()))
        .collect();
    assert_eq!(
        read,
        [
            ("done", "ok"),
            ("failed", "no"),
            ("skipped", ""),
            ("pending", "")
        ]
    );
    let counts = job_counts(&store, ann.id, &job, at).await;
    assert_eq!(counts.get(domain::TargetStatus::Skipped), 1);
}

/// Purging old commands before their wave settled keeps the statuses of
/// the targets read through them: done and failed as they ended (with
/// their detail), the others lapsed; targets of newer commands still
/// follow them.
pub async fn purging_commands_keeps_the_statuses_of_their_targets(store: impl Store) {
    let ann = account(&store, "ann").await;
    let fleet = fleet_of(&store, ann.id, 1, 4).await;
    let old = running_job(&store, ann.id, "old", None).await;
    assert!(start_wave(&store, &old, 1, "o", 4, t0()).await);
    assert!(ack(&store, &fleet[0], "o-0", done("ok"), t0()).await);
    assert!(ack(&store, &fleet[1], "o-1", failed("no"), t0()).await);
    assert!(ack(&store, &fleet[2], "o-2", crate::received(), t0()).await);

    store.purge_commands(t0() + minutes(1)).await.unwrap();
    let targets = crate::all_targets(&store, ann.id, &old, t0()).await;
    let read: Vec<(&str, &str)> = targets
        .iter()
        .map(|t| (t.status.code(), t.detail.as_str()))
        .collect();
    assert_eq!(
        read,
        [
            ("done", "ok"),
            ("failed", "no"),
            ("lapsed", ""),
            ("lapsed", "")
        ]
    );
    assert!(
        store.history(&fleet[0], 10).await.unwrap().is_empty(),
        "purged"
    );

    let later = t0() + minutes(2);
    let new = running_job(&store, ann.id, "new", None).await;
    assert!(start_wave(&store, &new, 1, "n", 4, later).await);
    store.purge_commands(later).await.unwrap();
    assert_eq!(
        statuses(&store, ann.id, &new, later).await,
        ["pending", "pending", "pending", "pending"]
    );
    assert!(ack(&store, &fleet[3], "n-3", done(""), later).await);
    assert_eq!(
        statuses(&store, ann.id, &new, later).await,
        ["pending", "pending", "pending", "done"]
    );
}
