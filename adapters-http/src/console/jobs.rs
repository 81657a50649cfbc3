//! `/console/jobs/`: the account's fleet jobs, newest first, 50 a page
//! (`?page=2`): each job's name (a link to its page), its status, its
//! targets' counts in words and when it was created. Jobs are started from
//! the devices page ("Reboot devices", `reboot_devices.rs`); one job's
//! page and its buttons are `jobs_page.rs` and `jobs_actions.rs`.

use super::browser::Viewer;
use super::chrome::Chrome;
use super::failure::Failure;
use super::jobs_views::JobRow;
use super::notice_query::{NoticeCode, url_query_value};
use super::respond::render;
use crate::state::HttpState;
use actix_web::http::StatusCode;
use actix_web::web::{self, Data};
use actix_web::{HttpRequest, HttpResponse};
use application::ports::Window;
use askama::Template;

/// How many jobs a page of the list shows.
pub(crate) const JOBS_PAGE_SIZE: u32 = 50;

/// Mounts the list, one job's page and its buttons.
pub(super) fn mount(config: &mut web::ServiceConfig) {
    config
        .service(web::resource("/jobs/").route(web::get().to(show)))
        .configure(super::jobs_page::mount)
        .configure(super::jobs_actions::mount);
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
    /// How many pages the list has.
    fn pages(&self) -> u64 {
        pages(self.count, JOBS_PAGE_SIZE)
    }

    /// "12 jobs. Showing 51–62." (the range only when there are several pages).
    fn summary(&self) -> String {
        let mut text = match self.count {
            1 => "1 job.".to_owned(),
            n => format!("{n} jobs."),
        };
        if self.pages() > 1 && !self.rows.is_empty() {
            let first = (self.page - 1) * u64::from(JOBS_PAGE_SIZE) + 1;
            let last = first + self.rows.len() as u64 - 1;
            text.push_str(&format!(" Showing {first}–{last}."));
        }
        text
    }

    fn previous_page(&self) -> Option<String> {
        (self.page > 1).then(|| page_url("/console/jobs/", self.page - 1))
    }

    fn next_page(&self) -> Option<String> {
        (self.page < self.pages()).then(|| page_url("/console/jobs/", self.page + 1))
    }
}

/// How many pages of `size` hold `count` items (at least one).
pub(crate) fn pages(count: u64, size: u32) -> u64 {
    count.div_ceil(u64::from(size)).max(1)
}

/// `path` on page `page` (`?page=` after the first).
pub(crate) fn page_url(path: &str, page: u64) -> String {
    if page > 1 {
        format!("{path}?page={page}")
    } else {
        path.to_owned()
    }
}

/// The `?page=` of a query string: 1 when absent or not a page number.
pub(crate) fn page_of(query: &str) -> u64 {
    url_query_value(query, "page")
        .and_then(|page| page.trim().parse().ok())
        .filter(|&page| page >= 1)
        .unwrap_or(1)
}

/// The window of page `page` of `size` items.
pub(crate) fn window(page: u64, size: u32) -> Window {
    Window {
        limit: size,
        offset: (page - 1).saturating_mul(u64::from(size)),
    }
}

async fn show(
    req: HttpRequest,
    state: Data<HttpState>,
    viewer: Viewer,
    NoticeCode(notice): NoticeCode,
) -> Result<HttpResponse, Failure> {
    let jobs = &state.app.jobs;
    let mut page = page_of(req.query_string());
    let mut listed = jobs
        .list(&viewer.account, window(page, JOBS_PAGE_SIZE))
        .await?;
    // A page past the last shows the last.
    let last = pages(listed.count, JOBS_PAGE_SIZE);
    if listed.jobs.is_empty() && page > last {
        page = last;
        listed = jobs
            .list(&viewer.account, window(page, JOBS_PAGE_SIZE))
            .await?;
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pages_and_their_addresses() {
        assert_eq!(pages(0, 50), 1);
        assert_eq!(pages(50, 50), 1);
        assert_eq!(pages(51, 50), 2);
        assert_eq!(page_url("/console/jobs/", 1), "/console/jobs/");
        assert_eq!(page_url("/console/jobs/", 3), "/console/jobs/?page=3");
        assert_eq!(page_of("page=3&notice=x"), 3);
        assert_eq!(page_of("page=0"), 1);
        assert_eq!(page_of("page=two"), 1);
        assert_eq!(page_of(""), 1);
        assert_eq!(window(3, 100).offset, 200);
    }
}
