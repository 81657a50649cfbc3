//! The `?notice=` code a page was opened with.

use actix_web::dev::Payload;
use actix_web::{FromRequest, HttpRequest};
use std::convert::Infallible;
use std::future::{Ready, ready};

/// The notice code in the query string, if any.
pub(crate) struct NoticeCode(pub(crate) Option<String>);

impl FromRequest for NoticeCode {
    type Error = Infallible;
    type Future = Ready<Result<Self, Infallible>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        let code = url_query_value(req.query_string(), "notice");
        ready(Ok(NoticeCode(code)))
    }
}

/// The value of `name` in a query string.
pub(crate) fn url_query_value(query: &str, name: &str) -> Option<String> {
    serde_urlencoded::from_str::<Vec<(String, String)>>(query)
        .ok()?
        .into_iter()
        .rev()
        .find(|(key, _)| key == name)
        .map(|(_, value)| value)
}
