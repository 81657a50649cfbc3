//! Fleet jobs: a reboot given to the devices a selector picked, in waves
//! that halt by themselves (`docs/api.md`, "Jobs"). Create, list, read,
//! page through the targets, cancel and resume.

mod body;
mod json;
mod pages;
#[cfg(test)]
mod tests;

pub use body::{JobBody, NoBody};
pub use json::{JOB_SCHEMA, JobJson, TARGET_SCHEMA, TargetJson};
pub use pages::{JOB_PAGE_SCHEMA, TARGET_PAGE_SCHEMA};

use crate::answer::{Detail, Json, Located};
use crate::description::Tag;
use crate::description::examples as ex;
use crate::error::ApiError;
use crate::extract::{BaseUrl, Query, User, Valid};
use crate::resources::lists::{IdPath, PAGING, Page, PageQuery};
use crate::route::Route;
use crate::state::HttpState;
use actix_web::HttpRequest;
use actix_web::web::Data;
use application::use_cases::{JobActionError, JobRequest};
use domain::{
    Action, Criteria, HaltFailureRatio, JobId, JobSettings, Selector, WaveInterval, WaveSize,
};

/// The answer to a cancel of a completed or cancelled job.
const ALREADY_FINISHED: &str = "This job has already finished.";
/// The answer to a resume of a job that is not halted.
const NOT_HALTED: &str = "Only a halted job can be resumed.";

/// The routes of this resource.
pub fn routes() -> Vec<Route> {
    let mut list = Route::new(
        Tag::Jobs,
        "/jobs/",
        "Job List",
        "The account's fleet jobs, newest first, a page at a time (`limit`, default\n100, and `offset`). POST creates one: a reboot of the devices the selector\npicks when it starts, `wave_size` at a time. A job without `start_time` (or\nwith a past one) starts in the request: the answer shows its first wave under\nway; a later `start_time` makes it `scheduled` until then.",
    );
    for parameter in PAGING {
        list = list.parameter(parameter);
    }
    let job_route = |pattern, name, description| {
        Route::new(Tag::Jobs, pattern, name, description).parameter(pages::JOB_ID)
    };
    let mut targets = job_route(
        "/jobs/{id}/targets/",
        "Job Targets",
        "The job's targets, by wave then list order, a page at a time (`limit`,\ndefault 100, and `offset`): each device, its wave, its command and its status.\nA scheduled job has none yet.",
    );
    for parameter in PAGING {
        targets = targets.parameter(parameter);
    }
    vec![
        list.get("listJobs", "List the account's jobs", list_jobs)
            .post("createJob", "Create a job", create)
            .request_example(example_body()),
        job_route(
            "/jobs/{id}/",
            "Job Detail",
            "One job of the account: its settings, its status and how many of its\ntargets stand in each status.",
        )
        .get("getJob", "Show a job", detail)
        .fails(&[404]),
        targets
            .get("listJobTargets", "List a job's targets", list_targets)
            .fails(&[404]),
        job_route(
            "/jobs/{id}/cancel/",
            "Job Cancel",
            "Cancel a job that has not finished: its waiting targets are skipped;\ncommands already given are not withdrawn. No body needed.",
        )
        .post("cancelJob", "Cancel a job", cancel)
        .request_example(NoBody)
        .failure_example(409, Detail::new(ALREADY_FINISHED))
        .fails(&[404]),
        job_route(
            "/jobs/{id}/resume/",
            "Job Resume",
            "Resume a halted job: it runs again, its next wave started at once. No body\nneeded.",
        )
        .post("resumeJob", "Resume a halted job", resume)
        .request_example(NoBody)
        .failure_example(409, Detail::new(NOT_HALTED))
        .fails(&[404]),
    ]
}

/// The example job: the online devices tagged as the examples' device,
/// four at a time, five minutes apart, halting when over a quarter fail.
fn example_body() -> JobBody {
    let tag = domain::Tag::parse(ex::TAGS[0]).expect("a valid tag");
    let selector = Selector::Matching(Criteria {
        tags: vec![tag],
        online: Some(true),
        ..Criteria::default()
    });
    let settings = JobSettings {
        wave_size: WaveSize::new(4).ok(),
        wave_interval: WaveInterval::new(300).unwrap_or_default(),
        halt_failure_ratio: HaltFailureRatio::new(0.25).unwrap_or_default(),
    };
    JobBody(JobRequest {
        action: Action::Reboot,
        selector_json: crate::fields::selector::selector_json(&selector).to_string(),
        selector,
        start_time: None,
        settings,
    })
}

/// `POST /jobs/`: 201 with the job, its first wave under way unless scheduled.
async fn create(
    state: Data<HttpState>,
    user: User,
    BaseUrl(base): BaseUrl,
    Valid(JobBody(request)): Valid<JobBody>,
) -> Result<Located<JobJson, 201>, ApiError> {
    let job = state.app.jobs.create(user.requester(), request).await?;
    let body = JobJson::new(&job, &base);
    Ok(Located {
        location: body.url().to_owned(),
        body,
    })
}

/// `GET /jobs/`: a page of the account's jobs, newest first.
async fn list_jobs(
    state: Data<HttpState>,
    user: User,
    req: HttpRequest,
    BaseUrl(base): BaseUrl,
    Query(PageQuery(window)): Query<PageQuery>,
) -> Result<Json<Page<JobJson>>, ApiError> {
    let page = state.app.jobs.list(&user.account, window).await?;
    let jobs = page
        .jobs
        .iter()
        .map(|job| JobJson::new(job, &base))
        .collect();
    Ok(Json(Page::new(&req, &base, window, page.count, jobs)))
}

/// `GET /jobs/{id}/`: 404 for a missing, malformed or foreign id alike.
async fn detail(
    state: Data<HttpState>,
    user: User,
    IdPath(id): IdPath<JobId>,
    BaseUrl(base): BaseUrl,
) -> Result<Json<JobJson>, ApiError> {
    let job = state
        .app
        .jobs
        .get(&user.account, &id)
        .await?
        .ok_or(ApiError::NotFound)?;
    Ok(Json(JobJson::new(&job, &base)))
}

/// `GET /jobs/{id}/targets/`: a page of the job's targets.
async fn list_targets(
    state: Data<HttpState>,
    user: User,
    req: HttpRequest,
    (IdPath(id), BaseUrl(base)): (IdPath<JobId>, BaseUrl),
    Query(PageQuery(window)): Query<PageQuery>,
) -> Result<Json<Page<TargetJson>>, ApiError> {
    let page = state
        .app
        .jobs
        .targets(&user.account, &id, window)
        .await?
        .ok_or(ApiError::NotFound)?;
    let targets = page.targets.iter().map(TargetJson::from).collect();
    Ok(Json(Page::new(&req, &base, window, page.count, targets)))
}

/// `POST /jobs/{id}/cancel/`.
async fn cancel(
    state: Data<HttpState>,
    user: User,
    IdPath(id): IdPath<JobId>,
    BaseUrl(base): BaseUrl,
    Valid(NoBody): Valid<NoBody>,
) -> Result<Json<JobJson>, ApiError> {
    let job = state.app.jobs.cancel(user.requester(), &id).await;
    Ok(Json(JobJson::new(&job.map_err(refusal)?, &base)))
}

/// `POST /jobs/{id}/resume/`.
async fn resume(
    state: Data<HttpState>,
    user: User,
    IdPath(id): IdPath<JobId>,
    BaseUrl(base): BaseUrl,
    Valid(NoBody): Valid<NoBody>,
) -> Result<Json<JobJson>, ApiError> {
    let job = state.app.jobs.resume(user.requester(), &id).await;
    Ok(Json(JobJson::new(&job.map_err(refusal)?, &base)))
}

/// A refused cancel or resume as the API answers it.
fn refusal(error: JobActionError) -> ApiError {
    match error {
        JobActionError::NotFound => ApiError::NotFound,
        JobActionError::AlreadyFinished => ApiError::Conflict(ALREADY_FINISHED),
        JobActionError::NotHalted => ApiError::Conflict(NOT_HALTED),
        JobActionError::Store(error) => error.into(),
    }
}
