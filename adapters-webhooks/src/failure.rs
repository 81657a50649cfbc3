//! Why an attempt got no answer, on one line, without the URL (it may carry
//! credentials) or anything of the post.

use std::error::Error;
use std::time::Duration;

/// "No answer within 10 s."
pub(crate) fn no_answer_within(limit: Duration) -> String {
    if limit.subsec_millis() == 0 {
        format!("No answer within {} s.", limit.as_secs())
    } else {
        format!("No answer within {} ms.", limit.as_millis())
    }
}

/// `error` in words: what failed and its deepest cause.
pub(crate) fn describe(error: &reqwest::Error, limit: Duration) -> String {
    if error.is_timeout() {
        return no_answer_within(limit);
    }
    let what = if error.is_connect() {
        "Could not connect"
    } else {
        "The request failed"
    };
    let mut cause: Option<&dyn Error> = None;
    let mut source = error.source();
    while let Some(next) = source {
        cause = Some(next);
        source = next.source();
    }
    match cause {
        Some(cause) => {
            let words = cause.to_string();
            format!("{what}: {}.", words.trim_end_matches('.'))
        }
        None => format!("{what}."),
    }
}
