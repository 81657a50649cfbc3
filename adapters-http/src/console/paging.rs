//! Pages of a console list: `?page=N` in the address, and the window of
//! the list each page shows.

use super::notice_query::url_query_value;
use application::ports::Window;

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
