//! The job engine's steps raced by several instances at once: each step is
//! taken exactly once, and no device is given two commands.

use crate::{
    RACERS, Store, account, done, fleet_of, job_counts, label, lapse, minutes, new_job,
    online_after, race, running_job, t0, wave_ids,
};
use application::ports::{JobChange, Settlement, SettlementNotices};
use domain::{JobStatus, Selector, TargetStatus};

/// Devices in the raced jobs: several per racer.
const DEVICES: u16 = 40;

/// Racing starts of one wave, each with ids of its own: one starts it,
/// and each device has exactly one command, the winner's.
pub async fn racing_starts_of_a_wave_start_it_once(store: impl Store) {
    let ann = account(&store, "ann").await;
    let fleet = fleet_of(&store, ann.id, 1, DEVICES).await;
    let job = running_job(&store, ann.id, "j", None).await;
    let n = usize::from(DEVICES);
    let started = race(RACERS, |i| {
        let (store, job) = (store.clone(), job.clone());
        async move {
            let ids = wave_ids(&format!("r{i}"), n);
            store
                .start_wave(&job, 1, &ids, t0(), t0() - lapse())
                .await
                .unwrap()
        }
    })
    .await;
    assert_eq!(started.iter().filter(|s| **s).count(), 1, "{started:?}");
    let winner = started.iter().position(|s| *s).unwrap();
    for (k, serial) in fleet.iter().enumerate() {
        let history = store.history(serial, 10).await.unwrap();
        let labels: Vec<String> = history.iter().map(|c| label(&c.command.id)).collect();
        assert_eq!(labels, [format!("r{winner}-{k}")], "{serial}");
    }
    let counts = job_counts(&store, ann.id, &job, t0()).await;
    assert_eq!(counts.get(TargetStatus::Pending), u64::from(DEVICES));
}

/// Racing settlements of one ended wave, some halting and some timing the
/// next: one settles it.
pub async fn racing_settlements_of_a_wave_settle_it_once(store: impl Store) {
    let ann = account(&store, "ann").await;
    let fleet = fleet_of(&store, ann.id, 1, 4).await;
    let job = running_job(&store, ann.id, "j", Some(2)).await;
    assert!(crate::start_wave(&store, &job, 1, "w", 2, t0()).await);
    for (k, serial) in fleet[..2].iter().enumerate() {
        assert!(crate::ack(&store, serial, &format!("w-{k}"), done(""), t0()).await);
    }
    let at = t0() + minutes(1);
    let settled = race(RACERS, |i| {
        let (store, job) = (store.clone(), job.clone());
        let how = if i % 2 == 0 {
            Settlement::Halt
        } else {
            Settlement::NextWaveAt(at + minutes(i64::try_from(i).unwrap()))
        };
        async move {
            store
                .settle_wave(
                    &job,
                    1,
                    how,
                    at,
                    at - lapse(),
                    &SettlementNotices::default(),
                )
                .await
                .unwrap()
        }
    })
    .await;
    assert_eq!(settled.iter().filter(|s| **s).count(), 1, "{settled:?}");
    let winner = settled.iter().position(|s| *s).unwrap();
    let record = store.find_job(ann.id, &job, at).await.unwrap().unwrap();
    if winner % 2 == 0 {
        assert_eq!(record.status, JobStatus::Halted);
    } else {
        assert_eq!(record.status, JobStatus::Running);
        let engine = crate::engine_view(&store, &job, at).await.unwrap();
        let due = at + minutes(i64::try_from(winner).unwrap());
        assert_eq!(engine.next_wave_time, Some(due));
    }
}

/// Racing beginnings of one scheduled job: one begins it, and its targets
/// are resolved once.
pub async fn racing_beginnings_of_a_scheduled_job_begin_it_once(store: impl Store) {
    let ann = account(&store, "ann").await;
    fleet_of(&store, ann.id, 1, DEVICES).await;
    let start = t0() + minutes(5);
    let job = new_job(
        ann.id,
        "s",
        Selector::All,
        crate::in_waves(Some(7)),
        t0(),
        Some(start),
    );
    store
        .create_job(
            &job,
            online_after(),
            &crate::noted(domain::AuditAction::JobCreate),
        )
        .await
        .unwrap();
    let begun = race(RACERS, |_| {
        let (store, id) = (store.clone(), job.id.clone());
        async move { store.begin_job(&id, start, online_after()).await.unwrap() }
    })
    .await;
    assert_eq!(begun.iter().filter(|b| **b).count(), 1, "{begun:?}");
    let targets = crate::all_targets(&store, ann.id, &job.id, start).await;
    assert_eq!(targets.len(), usize::from(DEVICES));
    assert_eq!(targets.last().map(|t| t.wave), Some(6));
}

/// Racing cancellations of one job: one cancels it, the others are refused.
pub async fn racing_cancellations_cancel_once(store: impl Store) {
    let ann = account(&store, "ann").await;
    fleet_of(&store, ann.id, 1, 3).await;
    let job = running_job(&store, ann.id, "j", None).await;
    let outcomes = race(RACERS, |i| {
        let (store, job) = (store.clone(), job.clone());
        let at = t0() + minutes(i64::try_from(i).unwrap());
        async move {
            store
                .cancel_job(
                    ann.id,
                    &job,
                    at,
                    &crate::noted(domain::AuditAction::JobCancel),
                )
                .await
                .unwrap()
        }
    })
    .await;
    let changed = outcomes
        .iter()
        .filter(|o| **o == JobChange::Changed)
        .count();
    let refused = outcomes
        .iter()
        .filter(|o| **o == JobChange::Refused)
        .count();
    assert_eq!((changed, refused), (1, RACERS - 1), "{outcomes:?}");
    let counts = job_counts(&store, ann.id, &job, t0()).await;
    assert_eq!(counts.get(TargetStatus::Skipped), 3);
}
