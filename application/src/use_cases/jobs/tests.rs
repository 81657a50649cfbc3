//! Unit tests of an owner's jobs over mocked ports: creating one that starts
//! now or later, and cancelling or resuming it.

use super::*;
use crate::ports::{ActiveJob, JobChange, JobRecord};
use crate::use_cases::test_support::{Harness, account, announcements, by, now};
use domain::{AccountId, TargetCounts};
use mockall::predicate::{always, eq};

fn id() -> JobId {
    // The mocked randomness counts 0, 1, 2, … for every request of bytes.
    JobId::from_random_bytes(std::array::from_fn(|i| i as u8))
}

fn record(status: JobStatus) -> JobRecord {
    JobRecord {
        id: id(),
        action: Action::Reboot,
        selector_json: r#"{"all": true}"#.to_owned(),
        settings: JobSettings::default(),
        status,
        start_time: now(),
        created_time: now(),
        finished_time: None,
        counts: TargetCounts::default(),
    }
}

fn request(start_time: Option<Timestamp>) -> JobRequest {
    JobRequest {
        action: Action::Reboot,
        selector: Selector::All,
        selector_json: r#"{"all": true}"#.to_owned(),
        start_time,
        settings: JobSettings::default(),
    }
}

fn found(h: &mut Harness, status: JobStatus) {
    h.jobs
        .expect_find_job()
        .with(eq(AccountId(7)), eq(id()), always())
        .returning(move |_, _, _| Ok(Some(record(status))));
}

#[tokio::test]
async fn a_job_without_a_future_start_starts_in_the_request() {
    for start in [None, Some(now()), Some(now() - chrono::Duration::hours(1))] {
        let mut h = Harness::new();
        h.jobs
            .expect_create_job()
            .withf(|job, online_after, _| {
                job.status == JobStatus::Running
                    && job.start_time == now()
                    && job.created_time == now()
                    && job.owner == AccountId(7)
                    && *online_after == now() - chrono::Duration::seconds(90)
            })
            .times(1)
            .returning(|_, _, _| Ok(()));
        // The engine looks at it at once: its first wave is started there.
        h.jobs
            .expect_active_job()
            .with(eq(id()), always())
            .times(1)
            .returning(|_, _| Ok(None::<ActiveJob>));
        found(&mut h, JobStatus::Running);
        let app = h.app();
        let job = app
            .jobs
            .create(by(&account(true, None)), request(start))
            .await
            .unwrap();
        assert_eq!(job.status, JobStatus::Running);
    }
}

#[tokio::test]
async fn a_job_with_a_future_start_is_scheduled_and_not_advanced() {
    let later = now() + chrono::Duration::seconds(5);
    let mut h = Harness::new();
    h.jobs
        .expect_create_job()
        .withf(move |job, _, _| job.status == JobStatus::Scheduled && job.start_time == later)
        .times(1)
        .returning(|_, _, _| Ok(()));
    h.jobs.expect_active_job().never();
    found(&mut h, JobStatus::Scheduled);
    let app = h.app();
    let job = app
        .jobs
        .create(by(&account(true, None)), request(Some(later)))
        .await
        .unwrap();
    assert_eq!(job.status, JobStatus::Scheduled);
}

#[tokio::test]
async fn cancelling_maps_each_outcome() {
    for (change, expected) in [
        (JobChange::Missing, "Not found."),
        (JobChange::Refused, "This job has already finished."),
    ] {
        let mut h = Harness::new();
        h.fleet_signals = announcements(0);
        h.jobs
            .expect_cancel_job()
            .with(eq(AccountId(7)), eq(id()), eq(now()), always())
            .returning(move |_, _, _, _| Ok(change));
        let app = h.app();
        let error = app
            .jobs
            .cancel(by(&account(true, None)), &id())
            .await
            .unwrap_err();
        assert_eq!(error.to_string(), expected);
    }
    let mut h = Harness::new();
    h.fleet_signals = announcements(1);
    h.jobs
        .expect_cancel_job()
        .returning(|_, _, _, _| Ok(JobChange::Changed));
    found(&mut h, JobStatus::Cancelled);
    let app = h.app();
    let job = app
        .jobs
        .cancel(by(&account(true, None)), &id())
        .await
        .unwrap();
    assert_eq!(job.status, JobStatus::Cancelled);
}

#[tokio::test]
async fn resuming_refuses_a_job_that_is_not_halted_and_starts_the_next_wave_of_one_that_is() {
    let mut h = Harness::new();
    h.fleet_signals = announcements(0);
    h.jobs
        .expect_resume_job()
        .returning(|_, _, _, _| Ok(JobChange::Refused));
    let app = h.app();
    let error = app
        .jobs
        .resume(by(&account(true, None)), &id())
        .await
        .unwrap_err();
    assert!(matches!(error, JobActionError::NotHalted), "{error:?}");
    assert_eq!(error.to_string(), "Only a halted job can be resumed.");

    let mut h = Harness::new();
    h.fleet_signals = announcements(1);
    h.jobs
        .expect_resume_job()
        .with(eq(AccountId(7)), eq(id()), eq(now()), always())
        .returning(|_, _, _, _| Ok(JobChange::Changed));
    h.jobs
        .expect_active_job()
        .with(eq(id()), always())
        .times(1)
        .returning(|_, _| Ok(None));
    found(&mut h, JobStatus::Running);
    let app = h.app();
    let job = app
        .jobs
        .resume(by(&account(true, None)), &id())
        .await
        .unwrap();
    assert_eq!(job.status, JobStatus::Running);
}

#[path = "audit_tests.rs"]
mod audit;
