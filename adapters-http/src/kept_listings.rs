//! Listing answers kept between requests (docs/architecture.md, "Listing
//! answers"): the bytes of a `GET /devices/` answer with the stamp the
//! application gave its devices, sent again while the application finds the
//! listing unchanged since that stamp.
//!
//! An answer is kept under its account and its absolute URL (the base URL,
//! the path and the query as the request wrote them), which together fix
//! everything the bytes show besides the devices and the time. The cache is
//! bounded by the bytes it holds; a large answer is not kept at all.

use actix_web::HttpRequest;
use actix_web::web::Bytes;
use application::use_cases::ListingStamp;
use domain::AccountId;
use quick_cache::sync::Cache;
use quick_cache::{OptionsBuilder, Weighter};

/// The bytes all kept answers may take together (the server's memory
/// grows by up to this much when listings are many and large).
const CAPACITY: u64 = 4 << 20;
/// The largest answer kept: about 1,500 devices.
pub(crate) const LARGEST: usize = 1 << 20;
/// The cache's shards; each holds half of [`CAPACITY`], room for an answer
/// of [`LARGEST`] bytes.
const SHARDS: usize = 2;

/// What an answer is kept under.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct AnswerKey {
    account: AccountId,
    url: Box<str>,
}

impl AnswerKey {
    /// The key of `req`'s answer for `account`, its URLs under `base`.
    pub(crate) fn of(account: AccountId, base: &str, req: &HttpRequest) -> Self {
        let (path, query) = (req.path(), req.query_string());
        let mut url = String::with_capacity(base.len() + path.len() + query.len() + 1);
        url.push_str(base);
        url.push_str(path);
        url.push('?');
        url.push_str(query);
        Self {
            account,
            url: url.into_boxed_str(),
        }
    }
}

/// A kept answer.
#[derive(Debug, Clone)]
pub(crate) struct KeptAnswer {
    /// What its devices were read at.
    pub(crate) stamp: ListingStamp,
    /// Its body.
    pub(crate) body: Bytes,
}

/// An entry's weight: the bytes it holds.
#[derive(Debug, Clone, Copy)]
struct ByBytes;

impl Weighter<AnswerKey, KeptAnswer> for ByBytes {
    fn weight(&self, key: &AnswerKey, answer: &KeptAnswer) -> u64 {
        (key.url.len() + answer.body.len()) as u64
    }
}

/// Listing answers kept between requests.
pub(crate) struct KeptListings {
    answers: Cache<AnswerKey, KeptAnswer, ByBytes>,
}

impl Default for KeptListings {
    fn default() -> Self {
        let options = OptionsBuilder::new()
            .shards(SHARDS)
            .estimated_items_capacity(256)
            .weight_capacity(CAPACITY)
            .build()
            .expect("every option is given");
        Self {
            answers: Cache::with_options(options, ByBytes, Default::default(), Default::default()),
        }
    }
}

impl KeptListings {
    /// The answer kept under `key`, if any.
    pub(crate) fn get(&self, key: &AnswerKey) -> Option<KeptAnswer> {
        self.answers.get(key)
    }

    /// Keeps `answer` under `key` (in place of any before), unless it is
    /// larger than [`LARGEST`].
    pub(crate) fn keep(&self, key: AnswerKey, answer: KeptAnswer) {
        if answer.body.len() <= LARGEST {
            self.answers.insert(key, answer);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use application::ports::FleetVersion;

    fn key(account: i64, url: &str) -> AnswerKey {
        AnswerKey {
            account: AccountId(account),
            url: url.into(),
        }
    }

    fn answer(bytes: usize) -> KeptAnswer {
        KeptAnswer {
            stamp: ListingStamp::for_tests(FleetVersion(1), chrono::Utc::now()),
            body: Bytes::from(vec![b' '; bytes]),
        }
    }

    #[test]
    fn answers_up_to_the_largest_are_kept_under_their_account_and_url() {
        let kept = KeptListings::default();
        kept.keep(key(1, "http://h/devices/?"), answer(LARGEST));
        kept.keep(key(1, "http://h/devices/?limit=5"), answer(LARGEST + 1));
        let found = kept
            .get(&key(1, "http://h/devices/?"))
            .map(|a| a.body.len());
        assert_eq!(found, Some(LARGEST));
        assert!(
            kept.get(&key(2, "http://h/devices/?")).is_none(),
            "another account's"
        );
        assert!(
            kept.get(&key(1, "http://h/devices/?limit=5")).is_none(),
            "too large"
        );
    }

    #[test]
    fn the_answers_kept_never_take_more_than_the_capacity() {
        let kept = KeptListings::default();
        for n in 0..64 {
            kept.keep(key(1, &format!("http://h/devices/?n={n}")), answer(700_000));
        }
        let held: u64 = (0..64)
            .filter_map(|n| kept.get(&key(1, &format!("http://h/devices/?n={n}"))))
            .map(|answer| answer.body.len() as u64)
            .sum();
        assert!(held > 0, "the latest are kept");
        assert!(held <= CAPACITY, "{held} bytes kept");
    }
}
