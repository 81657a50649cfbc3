//! What an owner's changes to jobs ask the log to record (`docs/audit.md`);
//! the engine's own (`job.complete`, `job.halt`) are in the runner's tests.

use super::super::*;
use super::{found, id, request};
use crate::ports::JobChange;
use crate::use_cases::test_support::{Harness, Notes, account, by, now};

/// The line of `action` by the tests' user on the tests' job.
fn entry(action: &str) -> String {
    format!(
        "user owner@example.com 203.0.113.9 {action} job:{} {{}}",
        id().as_str()
    )
}

#[tokio::test]
async fn creating_a_job_asks_to_record_it() {
    let mut h = Harness::new();
    let notes = Notes::default();
    let kept = notes.clone();
    h.jobs
        .expect_create_job()
        .times(1)
        .returning(move |_, _, audit| {
            kept.keep(audit);
            Ok(())
        });
    found(&mut h, JobStatus::Scheduled);
    let later = Some(now() + chrono::Duration::hours(1));
    h.app()
        .jobs
        .create(by(&account(true, None)), request(later))
        .await
        .unwrap();
    assert_eq!(notes.lines(), [entry("job.create")]);
}

#[tokio::test]
async fn cancelling_and_resuming_hand_their_entries_to_the_store() {
    let mut h = Harness::new();
    let notes = Notes::default();
    let (cancel, resume) = (notes.clone(), notes.clone());
    // The store appends them only when the job changed: either way the
    // use case hands them over.
    h.jobs
        .expect_cancel_job()
        .times(1)
        .returning(move |_, _, _, audit| {
            cancel.keep(audit);
            Ok(JobChange::Missing)
        });
    h.jobs
        .expect_resume_job()
        .times(1)
        .returning(move |_, _, _, audit| {
            resume.keep(audit);
            Ok(JobChange::Refused)
        });
    let owner = account(true, None);
    let app = h.app();
    app.jobs.cancel(by(&owner), &id()).await.unwrap_err();
    app.jobs.resume(by(&owner), &id()).await.unwrap_err();
    assert_eq!(notes.lines(), [entry("job.cancel"), entry("job.resume")]);
}
