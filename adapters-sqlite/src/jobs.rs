//! Fleet jobs (being written: every method refuses until it is).

use crate::store::SqliteStore;
use application::StoreError;
use application::ports::{
    ActiveJob, JobChange, JobPage, JobRecord, JobRepository, NewJob, Settlement, TargetPage, Window,
};
use async_trait::async_trait;
use domain::{AccountId, CommandId, JobId, Timestamp};

fn unwritten() -> StoreError {
    StoreError::message("fleet jobs are not written yet")
}

#[async_trait]
impl JobRepository for SqliteStore {
    async fn create_job(&self, _job: &NewJob, _online_after: Timestamp) -> Result<(), StoreError> {
        Err(unwritten())
    }
    async fn begin_job(
        &self,
        _id: &JobId,
        _now: Timestamp,
        _online_after: Timestamp,
    ) -> Result<bool, StoreError> {
        Err(unwritten())
    }
    async fn active_jobs(
        &self,
        _now: Timestamp,
        _lapse_before: Timestamp,
    ) -> Result<Vec<ActiveJob>, StoreError> {
        Ok(Vec::new())
    }
    async fn active_job(
        &self,
        _id: &JobId,
        _lapse_before: Timestamp,
    ) -> Result<Option<ActiveJob>, StoreError> {
        Err(unwritten())
    }
    async fn start_wave(
        &self,
        _id: &JobId,
        _wave: u32,
        _command_ids: &[CommandId],
        _now: Timestamp,
        _lapse_before: Timestamp,
    ) -> Result<bool, StoreError> {
        Err(unwritten())
    }
    async fn settle_wave(
        &self,
        _id: &JobId,
        _wave: u32,
        _settlement: Settlement,
        _now: Timestamp,
        _lapse_before: Timestamp,
    ) -> Result<bool, StoreError> {
        Err(unwritten())
    }
    async fn cancel_job(
        &self,
        _owner: AccountId,
        _id: &JobId,
        _now: Timestamp,
    ) -> Result<JobChange, StoreError> {
        Err(unwritten())
    }
    async fn resume_job(
        &self,
        _owner: AccountId,
        _id: &JobId,
        _now: Timestamp,
    ) -> Result<JobChange, StoreError> {
        Err(unwritten())
    }
    async fn find_job(
        &self,
        _owner: AccountId,
        _id: &JobId,
        _lapse_before: Timestamp,
    ) -> Result<Option<JobRecord>, StoreError> {
        Err(unwritten())
    }
    async fn list_jobs(
        &self,
        _owner: AccountId,
        _window: Window,
        _lapse_before: Timestamp,
    ) -> Result<JobPage, StoreError> {
        Err(unwritten())
    }
    async fn job_targets(
        &self,
        _owner: AccountId,
        _id: &JobId,
        _window: Window,
        _lapse_before: Timestamp,
    ) -> Result<Option<TargetPage>, StoreError> {
        Err(unwritten())
    }
}
