//! Unit tests of the job engine over a mocked job store: which step it
//! takes for each state a job can be in, and that a step another instance
//! took first is not counted.

use super::*;
use crate::ports::{ActiveJob, JobRecord, Settlement};
use crate::use_cases::test_support::{Harness, announcements, line, now};
use chrono::Duration;
use domain::{
    AccountId, HaltFailureRatio, JobSettings, TargetCounts, TargetStatus, WaveInterval, WaveSize,
};
use mockall::predicate::{always, eq};

fn id() -> JobId {
    JobId::from_random_bytes([9; 16])
}

/// A running job of account 7 with `targets` targets in waves of 2, an
/// interval of 30 s and the default halt ratio, at `wave`.
fn running(targets: u64, wave: u32, next: Option<i64>, counts: TargetCounts) -> ActiveJob {
    ActiveJob {
        id: id(),
        owner: AccountId(7),
        status: JobStatus::Running,
        settings: JobSettings {
            wave_size: Some(WaveSize::new(2).unwrap()),
            wave_interval: WaveInterval::new(30).unwrap(),
            halt_failure_ratio: HaltFailureRatio::DEFAULT,
        },
        start_time: now(),
        targets,
        current_wave: wave,
        next_wave_time: next.map(|offset| now() + Duration::seconds(offset)),
        wave_counts: counts,
    }
}

fn counts(pairs: &[(TargetStatus, u64)]) -> TargetCounts {
    pairs
        .iter()
        .fold(TargetCounts::default(), |c, &(s, n)| c.with(s, n))
}

fn lapse_before() -> Timestamp {
    now() - Duration::minutes(10)
}

/// The engine over `h`, stepping `job` once.
async fn step(h: Harness, job: ActiveJob) -> bool {
    let app = h.app();
    app.job_runner.step(job, now()).await.unwrap()
}

#[tokio::test]
async fn a_scheduled_job_begins_once_its_time_has_come() {
    let mut h = Harness::new();
    h.fleet_signals = announcements(1);
    h.jobs
        .expect_begin_job()
        .with(eq(id()), eq(now()), eq(now() - Duration::seconds(90)))
        .times(1)
        .returning(|_, _, _| Ok(true));
    let job = ActiveJob {
        status: JobStatus::Scheduled,
        targets: 0,
        ..running(0, 0, None, TargetCounts::default())
    };
    assert!(step(h, job.clone()).await);

    let mut h = Harness::new();
    h.fleet_signals = announcements(0);
    let later = ActiveJob {
        start_time: now() + Duration::seconds(1),
        ..job
    };
    assert!(!step(h, later).await, "not before its start time");
}

#[tokio::test]
async fn a_due_wave_starts_with_one_new_command_id_per_target_of_the_wave() {
    let mut h = Harness::new();
    h.fleet_signals = announcements(1);
    h.jobs
        .expect_start_wave()
        .withf(|job, wave, ids, at, lapse| {
            *job == id() && *wave == 3 && ids.len() == 1 && *at == now() && *lapse == lapse_before()
        })
        .times(1)
        .returning(|_, _, _, _, _| Ok(true));
    // Five targets in waves of 2: wave 3 holds the fifth alone.
    assert!(step(h, running(5, 2, Some(0), TargetCounts::default())).await);

    let mut h = Harness::new();
    h.jobs
        .expect_start_wave()
        .withf(|_, wave, ids, _, _| *wave == 1 && ids.len() == 2)
        .times(1)
        .returning(|_, _, _, _, _| Ok(true));
    assert!(step(h, running(5, 0, Some(-3), TargetCounts::default())).await);
}

#[tokio::test]
async fn nothing_happens_before_the_next_wave_is_due_or_while_a_wave_is_under_way() {
    let h = Harness::new();
    assert!(!step(h, running(4, 1, Some(1), TargetCounts::default())).await);
    let h = Harness::new();
    let under_way = counts(&[(TargetStatus::Done, 1), (TargetStatus::Delivered, 1)]);
    assert!(!step(h, running(4, 1, None, under_way)).await);
}

/// The job as read back before a settlement that ends it.
fn record(id: &JobId) -> JobRecord {
    JobRecord {
        id: id.clone(),
        action: domain::Action::Reboot,
        selector_json: "{\"all\": true}".into(),
        settings: running(4, 1, None, TargetCounts::default()).settings,
        status: JobStatus::Running,
        start_time: now(),
        created_time: now(),
        finished_time: None,
        counts: TargetCounts::default(),
    }
}

async fn settles(job: ActiveJob, expected: Settlement) {
    let mut h = Harness::new();
    h.fleet_signals = announcements(1);
    h.jobs
        .expect_find_job()
        .with(eq(AccountId(7)), eq(id()), eq(lapse_before()))
        .returning(|_, id, _| Ok(Some(record(id))));
    let wave = job.current_wave;
    let (event, action) = match expected {
        Settlement::Complete => (Some((WebhookEvent::JobCompleted, "completed")), "complete"),
        Settlement::Halt => (Some((WebhookEvent::JobHalted, "halted")), "halt"),
        Settlement::NextWaveAt(_) => (None, ""),
    };
    // The server itself ends a job's run; a next wave is not recorded.
    let entry = (!action.is_empty())
        .then(|| format!("system system - job.{action} job:{} {{}}", id().as_str()));
    h.jobs
        .expect_settle_wave()
        .withf(move |job, at_wave, how, at, lapse, notices| {
            let event_ok = match (event, &notices.event) {
                (None, None) => true,
                (Some((kind, status)), Some(sent)) => {
                    sent.event == kind
                        && sent.time == now()
                        && sent.data.contains(&format!("\"status\":\"{status}\""))
                }
                _ => false,
            };
            *job == id()
                && *at_wave == wave
                && *how == expected
                && *at == now()
                && *lapse == lapse_before()
                && event_ok
                && notices.audit.as_ref().map(line) == entry
        })
        .times(1)
        .returning(|_, _, _, _, _, _| Ok(true));
    assert!(step(h, job).await);
}

#[tokio::test]
async fn an_ended_wave_is_settled_by_its_failure_ratio() {
    let half = counts(&[(TargetStatus::Done, 1), (TargetStatus::Failed, 1)]);
    let next = Settlement::NextWaveAt(now() + Duration::seconds(30));
    settles(running(4, 1, None, half), next).await;
    let most = counts(&[(TargetStatus::Lapsed, 1), (TargetStatus::Failed, 1)]);
    settles(running(4, 1, None, most), Settlement::Halt).await;
    let skipped = counts(&[(TargetStatus::Skipped, 2)]);
    settles(running(4, 1, None, skipped), next).await;
}

#[tokio::test]
async fn the_last_wave_completes_the_job_and_a_job_without_targets_completes_at_once() {
    let failed = counts(&[(TargetStatus::Failed, 2)]);
    settles(running(4, 2, None, failed), Settlement::Complete).await;
    settles(
        running(0, 0, Some(0), TargetCounts::default()),
        Settlement::Complete,
    )
    .await;
}

#[tokio::test]
async fn a_step_another_instance_took_first_is_not_taken_again() {
    let mut h = Harness::new();
    h.fleet_signals = announcements(0);
    h.jobs
        .expect_start_wave()
        .returning(|_, _, _, _, _| Ok(false));
    assert!(!step(h, running(4, 1, Some(0), TargetCounts::default())).await);

    let mut h = Harness::new();
    h.fleet_signals = announcements(0);
    h.jobs
        .expect_settle_wave()
        .returning(|_, _, _, _, _, _| Ok(false));
    let ended = counts(&[(TargetStatus::Done, 2)]);
    assert!(!step(h, running(4, 1, None, ended)).await);
}

#[tokio::test]
async fn a_tick_steps_each_job_and_goes_on_after_one_fails() {
    let mut h = Harness::new();
    let other = JobId::from_random_bytes([8; 16]);
    let failing = ActiveJob {
        id: other.clone(),
        ..running(4, 0, Some(0), TargetCounts::default())
    };
    let due = running(4, 0, Some(0), TargetCounts::default());
    h.jobs
        .expect_active_jobs()
        .with(eq(now()), eq(lapse_before()))
        .times(1)
        .returning(move |_, _| Ok(vec![failing.clone(), due.clone()]));
    h.jobs
        .expect_start_wave()
        .with(eq(other), always(), always(), always(), always())
        .times(1)
        .returning(|_, _, _, _, _| Err(StoreError::message("disk full")));
    h.jobs
        .expect_start_wave()
        .with(eq(id()), eq(1), always(), always(), always())
        .times(1)
        .returning(|_, _, _, _, _| Ok(true));
    // After its wave started, the job has nothing more to do now.
    h.jobs
        .expect_active_job()
        .with(eq(id()), eq(lapse_before()))
        .times(1)
        .returning(|_, _| {
            Ok(Some(running(
                4,
                1,
                None,
                counts(&[(TargetStatus::Pending, 2)]),
            )))
        });
    let app = h.app();
    assert_eq!(app.job_runner.tick().await.unwrap(), 1);
}

#[tokio::test]
async fn advancing_takes_steps_one_after_the_other_until_none_is_due() {
    let mut h = Harness::new();
    let mut states = vec![
        running(4, 1, None, counts(&[(TargetStatus::Done, 2)])),
        ActiveJob {
            settings: JobSettings {
                wave_interval: WaveInterval::default(),
                ..running(4, 1, None, TargetCounts::default()).settings
            },
            ..running(4, 1, Some(0), TargetCounts::default())
        },
        running(4, 2, None, counts(&[(TargetStatus::Pending, 2)])),
    ]
    .into_iter();
    h.jobs
        .expect_active_job()
        .times(3)
        .returning(move |_, _| Ok(states.next()));
    h.jobs
        .expect_settle_wave()
        .times(1)
        .returning(|_, _, _, _, _, _| Ok(true));
    h.jobs
        .expect_start_wave()
        .with(eq(id()), eq(2), always(), always(), always())
        .times(1)
        .returning(|_, _, _, _, _| Ok(true));
    let app = h.app();
    assert_eq!(app.job_runner.advance(&id()).await.unwrap(), 2);
}
