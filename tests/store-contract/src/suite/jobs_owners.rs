//! An owner's jobs: cancelling and resuming them, reading one, a page of
//! them newest first, a page of a job's targets, the counts of every
//! status; never another account's.

use crate::{
    Store, account, ack, all_targets, counts, done, engine_view, failed, fleet_of, in_waves,
    job_counts, job_id, lapse, minutes, new_job, online_after, queue, received, running_job,
    start_wave, statuses, t0, take,
};
use application::ports::{JobChange, Settlement, SettlementNotices, Window};
use domain::{JobStatus, Selector, TargetStatus};

fn window(limit: u32, offset: u64) -> Window {
    Window { limit, offset }
}

/// Cancelling a job that has not finished makes it cancelled, finished
/// then, its waiting targets skipped; commands already given stay. A
/// finished job is refused; another account's or an unknown one is missing.
pub async fn cancelling_skips_the_waiting_targets_and_keeps_the_commands_given(store: impl Store) {
    let ann = account(&store, "ann").await;
    let bob = account(&store, "bob").await;
    let fleet = fleet_of(&store, ann.id, 1, 3).await;
    let job = running_job(&store, ann.id, "j", Some(2)).await;
    assert!(start_wave(&store, &job, 1, "w", 2, t0()).await);
    let at = t0() + minutes(1);

    assert_eq!(
        store
            .cancel_job(
                bob.id,
                &job,
                at,
                &crate::noted(domain::AuditAction::JobCancel)
            )
            .await
            .unwrap(),
        JobChange::Missing
    );
    let unknown = job_id("unknown");
    assert_eq!(
        store
            .cancel_job(
                ann.id,
                &unknown,
                at,
                &crate::noted(domain::AuditAction::JobCancel)
            )
            .await
            .unwrap(),
        JobChange::Missing
    );
    assert_eq!(
        store
            .cancel_job(
                ann.id,
                &job,
                at,
                &crate::noted(domain::AuditAction::JobCancel)
            )
            .await
            .unwrap(),
        JobChange::Changed
    );
    let record = store.find_job(ann.id, &job, at).await.unwrap().unwrap();
    assert_eq!(
        (record.status, record.finished_time),
        (JobStatus::Cancelled, Some(at))
    );
    assert_eq!(
        statuses(&store, ann.id, &job, at).await,
        ["pending", "pending", "skipped"]
    );
    assert_eq!(crate::ids(&take(&store, &fleet[0], at).await), ["w-0"]);
    let later = at + minutes(1);
    assert_eq!(
        store
            .cancel_job(
                ann.id,
                &job,
                later,
                &crate::noted(domain::AuditAction::JobCancel)
            )
            .await
            .unwrap(),
        JobChange::Refused
    );
    let record = store.find_job(ann.id, &job, later).await.unwrap().unwrap();
    assert_eq!(record.finished_time, Some(at), "unchanged");

    let completed = running_job(&store, ann.id, "completed", None).await;
    let lapse_before = at - lapse();
    let quiet = SettlementNotices::default();
    let settled = store.settle_wave(
        &completed,
        0,
        Settlement::Complete,
        at,
        lapse_before,
        &quiet,
    );
    assert!(settled.await.unwrap());
    assert_eq!(
        store
            .cancel_job(
                ann.id,
                &completed,
                later,
                &crate::noted(domain::AuditAction::JobCancel)
            )
            .await
            .unwrap(),
        JobChange::Refused
    );
    let scheduled = new_job(
        ann.id,
        "s",
        Selector::All,
        in_waves(None),
        t0(),
        Some(t0() + minutes(60)),
    );
    store
        .create_job(
            &scheduled,
            online_after(),
            &crate::noted(domain::AuditAction::JobCreate),
        )
        .await
        .unwrap();
    assert_eq!(
        store
            .cancel_job(
                ann.id,
                &scheduled.id,
                at,
                &crate::noted(domain::AuditAction::JobCancel)
            )
            .await
            .unwrap(),
        JobChange::Changed
    );
    assert!(
        !store
            .begin_job(&scheduled.id, t0() + minutes(60), online_after())
            .await
            .unwrap(),
        "a cancelled job never begins"
    );
}

/// Only a halted job is resumed: running again, its next wave due then.
pub async fn resuming_runs_a_halted_job_again_with_its_next_wave_due(store: impl Store) {
    let ann = account(&store, "ann").await;
    let bob = account(&store, "bob").await;
    let fleet = fleet_of(&store, ann.id, 1, 2).await;
    let job = running_job(&store, ann.id, "j", Some(1)).await;
    let at = t0() + minutes(1);
    assert_eq!(
        store
            .resume_job(
                ann.id,
                &job,
                at,
                &crate::noted(domain::AuditAction::JobResume)
            )
            .await
            .unwrap(),
        JobChange::Refused
    );
    assert!(start_wave(&store, &job, 1, "w", 1, t0()).await);
    assert!(ack(&store, &fleet[0], "w-0", failed("no"), t0()).await);
    let quiet = SettlementNotices::default();
    let halt = store.settle_wave(&job, 1, Settlement::Halt, at, at - lapse(), &quiet);
    assert!(halt.await.unwrap());

    assert_eq!(
        store
            .resume_job(
                bob.id,
                &job,
                at,
                &crate::noted(domain::AuditAction::JobResume)
            )
            .await
            .unwrap(),
        JobChange::Missing
    );
    let resumed_at = at + minutes(5);
    assert_eq!(
        store
            .resume_job(
                ann.id,
                &job,
                resumed_at,
                &crate::noted(domain::AuditAction::JobResume)
            )
            .await
            .unwrap(),
        JobChange::Changed
    );
    assert_eq!(
        store
            .resume_job(
                ann.id,
                &job,
                resumed_at,
                &crate::noted(domain::AuditAction::JobResume)
            )
            .await
            .unwrap(),
        JobChange::Refused,
        "running"
    );
    let engine = engine_view(&store, &job, resumed_at).await.unwrap();
    assert_eq!(
        (engine.status, engine.current_wave, engine.next_wave_time),
        (JobStatus::Running, 1, Some(resumed_at))
    );
    assert!(start_wave(&store, &job, 2, "v", 1, resumed_at).await);
    assert_eq!(
        statuses(&store, ann.id, &job, resumed_at).await,
        ["failed", "pending"]
    );
    store
        .cancel_job(
            ann.id,
            &job,
            resumed_at,
            &crate::noted(domain::AuditAction::JobCancel),
        )
        .await
        .unwrap();
    assert_eq!(
        store
            .resume_job(
                ann.id,
                &job,
                resumed_at,
                &crate::noted(domain::AuditAction::JobResume)
            )
            .await
            .unwrap(),
        JobChange::Refused,
        "cancelled"
    );
}

/// Jobs are listed newest first, also when created in the same second, a
/// page at a time with the count of all; another account sees none of
/// them and none of their targets.
pub async fn jobs_are_listed_newest_first_a_page_at_a_time(store: impl Store) {
    let ann = account(&store, "ann").await;
    let bob = account(&store, "bob").await;
    fleet_of(&store, ann.id, 1, 1).await;
    for label in ["b", "c", "a"] {
        running_job(&store, ann.id, label, None).await;
    }
    let labels = |page: application::ports::JobPage| -> (u64, Vec<String>) {
        let ids = page
            .jobs
            .iter()
            .map(|job| job.selector_json.clone())
            .collect();
        (page.count, ids)
    };
    let json = |label: &str| format!("{{\"label\": \"{label}\"}}");
    let all = store.list_jobs(ann.id, window(100, 0), t0()).await.unwrap();
    assert_eq!(
        labels(all.clone()),
        (3, vec![json("a"), json("c"), json("b")])
    );
    assert!(
        all.jobs
            .iter()
            .all(|job| job.counts == counts(&[(TargetStatus::Waiting, 1)]))
    );
    let page = store.list_jobs(ann.id, window(1, 1), t0()).await.unwrap();
    assert_eq!(labels(page), (3, vec![json("c")]));
    let past = store.list_jobs(ann.id, window(10, 3), t0()).await.unwrap();
    assert_eq!(labels(past), (3, vec![]));

    let none = store.list_jobs(bob.id, window(100, 0), t0()).await.unwrap();
    assert_eq!(labels(none), (0, vec![]));
    assert_eq!(
        store.find_job(bob.id, &job_id("a"), t0()).await.unwrap(),
        None
    );
    let (a, x) = (job_id("a"), job_id("x"));
    let targets = store.job_targets(bob.id, &a, window(10, 0), t0());
    assert_eq!(targets.await.unwrap(), None);
    let unknown = store.job_targets(ann.id, &x, window(10, 0), t0());
    assert_eq!(unknown.await.unwrap(), None);
}

/// A job's targets come a page at a time in list order, with the count
/// of all.
pub async fn targets_are_read_a_page_at_a_time(store: impl Store) {
    let ann = account(&store, "ann").await;
    let fleet = fleet_of(&store, ann.id, 1, 5).await;
    let job = running_job(&store, ann.id, "j", Some(2)).await;
    let page = store
        .job_targets(ann.id, &job, window(2, 2), t0())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(page.count, 5);
    let read: Vec<_> = page
        .targets
        .iter()
        .map(|t| (t.serial.clone(), t.wave))
        .collect();
    assert_eq!(read, [(fleet[2].clone(), 2), (fleet[3].clone(), 2)]);
    let past = store
        .job_targets(ann.id, &job, window(2, 5), t0())
        .await
        .unwrap()
        .unwrap();
    assert_eq!((past.count, past.targets.len()), (5, 0));
}

/// A job's counts hold each of the eight statuses, read as the targets
/// read; a job's list entry and its own read agree.
pub async fn counts_hold_every_status(store: impl Store) {
    let ann = account(&store, "ann").await;
    let fleet = fleet_of(&store, ann.id, 1, 9).await;
    assert!(queue(&store, &fleet[5], "old", t0() - minutes(9)).await);
    let job = running_job(&store, ann.id, "j", Some(7)).await;
    assert!(
        store
            .delete(
                ann.id,
                &fleet[6],
                &crate::noted(domain::AuditAction::DeviceDelete)
            )
            .await
            .unwrap()
    );
    assert!(start_wave(&store, &job, 1, "w", 7, t0()).await);
    take(&store, &fleet[1], t0()).await;
    assert!(ack(&store, &fleet[2], "w-2", received(), t0()).await);
    assert!(ack(&store, &fleet[3], "w-3", done(""), t0()).await);
    assert!(ack(&store, &fleet[4], "w-4", failed(""), t0()).await);

    let at = t0() + minutes(2);
    let expected = [
        "pending",
        "delivered",
        "received",
        "done",
        "failed",
        "lapsed",
        "skipped",
        "waiting",
        "waiting",
    ];
    assert_eq!(statuses(&store, ann.id, &job, at).await, expected);
    let every = TargetStatus::ALL
        .iter()
        .fold(counts(&[]), |counts, status| counts.with(*status, 1))
        .with(TargetStatus::Waiting, 1);
    assert_eq!(job_counts(&store, ann.id, &job, at).await, every);
    let listed = store
        .list_jobs(ann.id, window(10, 0), at - lapse())
        .await
        .unwrap();
    assert_eq!(listed.jobs[0].counts, every);
    let targets = all_targets(&store, ann.id, &job, at).await;
    assert_eq!(targets.len(), 9);
    let engine = engine_view(&store, &job, at).await.unwrap();
    assert_eq!(engine.wave_counts.total(), 7, "the current wave only");
    assert_eq!(engine.wave_counts.get(TargetStatus::Waiting), 0);
}
