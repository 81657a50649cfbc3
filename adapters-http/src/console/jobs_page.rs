//! `/console/jobs/<id>/`: one fleet job: its status, settings and counts,
//! its targets (100 a page, `?page=2`, by wave then list order) with their
//! statuses, all kept live; and the buttons "Cancel job" (confirmed) while
//! it can be cancelled and "Resume" while it is halted.

use super::browser::Viewer;
use super::chrome::Chrome;
use super::failure::Failure;
use super::jobs_views::{JobSummary, TargetRow, title};
use super::notice_query::NoticeCode;
use super::paging::{Pager, page_of, page_url, read_within};
use super::respond::render;
use super::time::Moment;
use crate::state::HttpState;
use actix_web::http::StatusCode;
use actix_web::web::{self, Data};
use actix_web::{HttpRequest, HttpResponse};
use application::ports::{JobRecord, TargetPage};
use askama::Template;
use domain::{Account, JobId};

/// How many targets a page of a job shows.
pub(crate) const TARGETS_PAGE_SIZE: u32 = 100;

/// Mounts the job page.
pub(super) fn mount(config: &mut web::ServiceConfig) {
    config.service(web::resource("/jobs/{id}/").route(web::get().to(show)));
}

/// One setting of the job: a label and its value.
pub(crate) struct Setting {
    pub(crate) label: &'static str,
    pub(crate) value: String,
}

/// The job page.
#[derive(Template)]
#[template(path = "console/job.html")]
struct JobPage {
    chrome: Chrome,
    id: String,
    title: String,
    summary: JobSummary,
    settings: Vec<Setting>,
    targets: Vec<TargetRow>,
    /// How many targets the job has.
    count: u64,
    /// The page of targets, from 1.
    page: u64,
}

impl JobPage {
    /// Where the page stands in the list.
    fn pager(&self) -> Pager {
        let path = self.path();
        Pager::new(self.page, self.count, TARGETS_PAGE_SIZE, |page| {
            page_url(&path, page)
        })
    }

    fn path(&self) -> String {
        format!("/console/jobs/{}/", self.id)
    }

    /// "Targets 101–200 of 250." on a later page; "" with one page.
    fn range(&self) -> String {
        self.pager()
            .positions(self.targets.len())
            .map(|positions| format!("Targets {positions} of {}.", self.count))
            .unwrap_or_default()
    }

    /// The event stream of this page.
    fn events_url(&self) -> String {
        let mut url = format!("/console/events/?job={}", self.id);
        if self.page > 1 {
            url.push_str(&format!("&page={}", self.page));
        }
        url
    }
}

/// The job id in the path, or 404 (a malformed id too).
pub(crate) fn job_id_of(raw: &str) -> Result<JobId, Failure> {
    JobId::parse(raw).map_err(|_| Failure::NotFound)
}

/// The account's job with this id, or 404.
pub(crate) async fn job_of(
    state: &HttpState,
    account: &Account,
    raw: &str,
) -> Result<JobRecord, Failure> {
    let id = job_id_of(raw)?;
    state
        .app
        .jobs
        .get(account, &id)
        .await?
        .ok_or(Failure::NotFound)
}

/// A page of the job's targets (the last page when `page` is past it);
/// the page read, and the page number.
pub(crate) async fn targets_of(
    state: &HttpState,
    account: &Account,
    id: &JobId,
    page: u64,
) -> Result<(TargetPage, u64), Failure> {
    let jobs = &state.app.jobs;
    read_within(page, TARGETS_PAGE_SIZE, |window| async move {
        jobs.targets(account, id, window)
            .await?
            .ok_or(Failure::NotFound)
    })
    .await
}

/// The job's settings as the page lists them.
fn settings(job: &JobRecord, now: domain::Timestamp) -> Vec<Setting> {
    let moment = |at| {
        let moment = Moment::of(at, now);
        format!("{} ({})", moment.exact, moment.ago)
    };
    let settings = &job.settings;
    let mut list = vec![
        Setting {
            label: "Wave size",
            value: settings.wave_size.map_or_else(
                || "one wave".to_owned(),
                |size| super::notices::devices(u64::from(size.get())),
            ),
        },
        Setting {
            label: "Wave interval",
            value: format!("{} s", settings.wave_interval.seconds()),
        },
        Setting {
            label: "Halt failure ratio",
            value: settings.halt_failure_ratio.get().to_string(),
        },
        Setting {
            label: "Start time",
            value: moment(job.start_time),
        },
        Setting {
            label: "Created",
            value: moment(job.created_time),
        },
    ];
    if let Some(finished) = job.finished_time {
        list.push(Setting {
            label: "Finished",
            value: moment(finished),
        });
    }
    list
}

async fn show(
    req: HttpRequest,
    state: Data<HttpState>,
    viewer: Viewer,
    path: web::Path<String>,
    NoticeCode(notice): NoticeCode,
) -> Result<HttpResponse, Failure> {
    let job = job_of(&state, &viewer.account, &path).await?;
    let (targets, page) = targets_of(
        &state,
        &viewer.account,
        &job.id,
        page_of(req.query_string()),
    )
    .await?;
    let now = state.app.watching.now();
    let title = title(&job);
    let page = JobPage {
        chrome: viewer
            .browser
            .chrome(title.clone(), "jobs")
            .with_notice(notice.as_deref()),
        id: job.id.as_str().to_owned(),
        title,
        summary: JobSummary::of(&job),
        settings: settings(&job, now),
        targets: targets.targets.iter().map(TargetRow::of).collect(),
        count: targets.count,
        page,
    };
    Ok(render(StatusCode::OK, &page, None))
}
