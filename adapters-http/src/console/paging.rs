//! Pages of a console list: `?page=N` in the address, and the window of
//! the list each page shows.

use super::notice_query::url_query_value;
use application::ports::{
    AuditPage, DeliveryPage, JobPage, MonitorPage, TargetPage, WebhookPage, Window,
};
use std::future::Future;

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

/// Where a page of a console list stands: the pager under it, and the
/// "Showing 51–100." of its summary.
pub(crate) struct Pager {
    /// This page, from 1.
    pub(crate) page: u64,
    /// How many pages the list has (at least one).
    pub(crate) pages: u64,
    /// The address of the page before, on a later page.
    pub(crate) previous: Option<String>,
    /// The address of the page after, before the last.
    pub(crate) next: Option<String>,
    /// The position of this page's first item, from 1.
    first: u64,
}

impl Pager {
    /// Page `page` of a list of `count` items, `size` a page, each page
    /// at the address `url` gives for its number.
    pub(crate) fn new(page: u64, count: u64, size: u32, url: impl Fn(u64) -> String) -> Self {
        let pages = pages(count, size);
        Self {
            page,
            pages,
            previous: (page > 1).then(|| url(page - 1)),
            next: (page < pages).then(|| url(page + 1)),
            first: window(page, size).offset.saturating_add(1),
        }
    }

    /// The positions of the page's `shown` items ("51–100") when the list
    /// has several pages and this one shows some.
    pub(crate) fn positions(&self, shown: usize) -> Option<String> {
        let last = self.first + (shown as u64).checked_sub(1)?;
        (self.pages > 1).then(|| format!("{}–{last}", self.first))
    }
}

/// A page of a list that says how long the whole list is.
pub(crate) trait Counted {
    /// How many items the whole list has.
    fn count(&self) -> u64;
}

macro_rules! counted {
    ($($page:ty),+) => {
        $(impl Counted for $page {
            fn count(&self) -> u64 {
                self.count
            }
        })+
    };
}
counted!(
    AuditPage,
    DeliveryPage,
    JobPage,
    MonitorPage,
    TargetPage,
    WebhookPage
);

/// Page `page` of a list, `size` items a page, read with `read`; a page
/// past the last (an address asking too far, or a list that shrank) reads
/// and shows the last instead. What was read, and the number of its page.
pub(crate) async fn read_within<T, E, Fut>(
    page: u64,
    size: u32,
    read: impl Fn(Window) -> Fut,
) -> Result<(T, u64), E>
where
    T: Counted,
    Fut: Future<Output = Result<T, E>>,
{
    let listed = read(window(page, size)).await?;
    let last = pages(listed.count(), size);
    if page <= last {
        return Ok((listed, page));
    }
    Ok((read(window(last, size)).await?, last))
}

/// The window of page `page` of `size` items.
pub(crate) fn window(page: u64, size: u32) -> Window {
    Window {
        limit: size,
        offset: (page - 1).saturating_mul(u64::from(size)),
    }
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

    #[actix_web::test]
    async fn a_page_past_the_last_reads_the_last() {
        let reads = std::cell::RefCell::new(Vec::new());
        let read = |window: Window| {
            reads.borrow_mut().push(window.offset);
            let page = JobPage {
                count: 120,
                jobs: Vec::new(),
            };
            async { Ok::<_, ()>(page) }
        };
        assert_eq!(read_within(2, 50, read).await.map(|(_, page)| page), Ok(2));
        assert_eq!(reads.take(), [50]);
        assert_eq!(read_within(7, 50, read).await.map(|(_, page)| page), Ok(3));
        assert_eq!(reads.take(), [300, 100]);
    }

    #[test]
    fn a_pager_links_the_pages_beside_it_and_says_what_it_shows() {
        let url = |page| page_url("/console/jobs/", page);
        let middle = Pager::new(2, 120, 50, url);
        assert_eq!((middle.page, middle.pages), (2, 3));
        assert_eq!(middle.previous.as_deref(), Some("/console/jobs/"));
        assert_eq!(middle.next.as_deref(), Some("/console/jobs/?page=3"));
        assert_eq!(middle.positions(50).as_deref(), Some("51–100"));
        let last = Pager::new(3, 120, 50, url);
        assert_eq!(last.next, None);
        assert_eq!(last.positions(20).as_deref(), Some("101–120"));
        assert_eq!(last.positions(0), None);
        let only = Pager::new(1, 3, 50, url);
        assert_eq!((&only.previous, &only.next), (&None, &None));
        assert_eq!(only.positions(3), None);
    }
}
