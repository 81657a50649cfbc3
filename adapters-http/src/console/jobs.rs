//! `/console/jobs/`: the account's fleet jobs, newest first, 50 a page
//! (`?page=2`): each job's name (a link to its page), its status, its
//! targets' counts in words and when it was created. Jobs are started from
//! the devices page ("Reboot devices", `reboot_devices.rs`); one job's
//! page and its buttons are `jobs_page.rs` and `jobs_actions.rs`.

use super::browser::Viewer;
use super::chrome::Chrome;
use super::failure::Failure;
use super::jobs_views::JobRow;
use super::notice_query::NoticeCode;
use super::paging::{Pager, page_of, page_url, read_within};
use super::respond::render;
use crate::state::HttpState;
use actix_web::http::StatusCode;
use actix_web::web::{self, Data};
use actix_web::{HttpRequest, HttpResponse};
use askama::Template;

/// How many jobs a page of the list shows.
pub(crate) const JOBS_PAGE_SIZE: u32 = 50;

/// Mounts the list.
pub(super) fn mount(config: &mut web::ServiceConfig) {
    config.service(web::resource("/jobs/").route(web::get().to(show)));
}

/// The jobs list.
#[derive(Template)]
#[template(path = "console/jobs.html")]
struct JobsPage {
    chrome: Chrome,
    rows: Vec<JobRow>,
    /// How many jobs the account has.
    count: u64,
    /// The page, from 1.
    page: u64,
}

impl JobsPage {
    /// Where the page stands in the list.
    fn pager(&self) -> Pager {
        Pager::new(self.page, self.count, JOBS_PAGE_SIZE, |page| {
            page_url("/console/jobs/", page)
        })
    }

    /// "12 jobs. Showing 51–62." (the range only when there are several pages).
    fn summary(&self) -> String {
        let mut text = match self.count {
            1 => "1 job.".to_owned(),
            n => format!("{n} jobs."),
        };
        if let Some(positions) = self.pager().positions(self.rows.len()) {
            text.push_str(&format!(" Showing {positions}."));
        }
        text
    }
}

async fn show(
    req: HttpRequest,
    state: Data<HttpState>,
    viewer: Viewer,
    NoticeCode(notice): NoticeCode,
) -> Result<HttpResponse, Failure> {
    let jobs = &state.app.jobs;
    let (listed, page) = read_within(page_of(req.query_string()), JOBS_PAGE_SIZE, |window| {
        jobs.list(&viewer.account, window)
    })
    .await?;
    let now = state.app.watching.now();
    let page = JobsPage {
        chrome: viewer
            .browser
            .chrome("Jobs", "jobs")
            .with_notice(notice.as_deref()),
        rows: listed.jobs.iter().map(|job| JobRow::of(job, now)).collect(),
        count: listed.count,
        page,
    };
    Ok(render(StatusCode::OK, &page, None))
}
