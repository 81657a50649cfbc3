//! The job page's live updates: the `job` event of `/console/events/?job=<id>`
//! (with the page's `&page=N`) carries the job's status, counts and buttons
//! and the targets of that page, the same values the page shows. The job
//! engine announces each step to the account's fleet, and so does each
//! acknowledgement of a command, so the stream wakes when they change.

use super::jobs_page::TARGETS_PAGE_SIZE;
use super::jobs_views::{JobSummary, TargetRow};
use super::paging::{page_of, read_within};
use crate::state::HttpState;
use application::StoreError;
use application::ports::TargetPage;
use domain::{Account, JobId};
use serde::Serialize;

/// Which job (and page of its targets) a stream watches.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct WatchedJob {
    id: JobId,
    page: u64,
}

impl WatchedJob {
    /// The job a stream's query names (`job=<id>`, `page=N`); `None` without
    /// one, `Err` for a malformed id (404, as the page).
    pub(super) fn from_query(query: &str) -> Result<Option<Self>, super::failure::Failure> {
        let Some(raw) = super::notice_query::url_query_value(query, "job") else {
            return Ok(None);
        };
        Ok(Some(Self {
            id: super::jobs_page::job_id_of(&raw)?,
            page: page_of(query),
        }))
    }
}

/// The `job` event (`job` is null once the job is gone).
#[derive(Debug, Serialize)]
pub(super) struct JobState {
    job: Option<JobSummary>,
    targets: Vec<TargetRow>,
    /// How many targets the job has.
    count: u64,
}

/// How `watched` stands now, for `account`.
pub(super) async fn job_state(
    state: &HttpState,
    account: &Account,
    watched: &WatchedJob,
) -> Result<JobState, StoreError> {
    let jobs = &state.app.jobs;
    let Some(job) = jobs.get(account, &watched.id).await? else {
        return Ok(JobState {
            job: None,
            targets: Vec::new(),
            count: 0,
        });
    };
    // The page shows the last page when its own is past the end: so do its updates.
    let (targets, _) = read_within(watched.page, TARGETS_PAGE_SIZE, |window| async move {
        let read = jobs.targets(account, &watched.id, window).await?;
        Ok::<_, StoreError>(read.unwrap_or_else(|| TargetPage {
            count: 0,
            targets: Vec::new(),
        }))
    })
    .await?;
    Ok(JobState {
        job: Some(JobSummary::of(&job)),
        targets: targets.targets.iter().map(TargetRow::of).collect(),
        count: targets.count,
    })
}
