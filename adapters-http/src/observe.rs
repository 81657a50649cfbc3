//! What every request leaves behind (`docs/operations.md`, "Health, metrics
//! and logs"): an id, taken from the client's `X-Request-Id` when it is
//! usable and echoed in the answer, carried by every log line of the
//! request; one log line when it is answered; and its count and duration in
//! the metrics.

use crate::metrics;
use actix_web::HttpMessage;
use actix_web::body::MessageBody;
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::header::{HeaderMap, HeaderName, HeaderValue};
use actix_web::http::{Method, StatusCode};
use actix_web::middleware::Next;
use std::time::{Duration, Instant};
use tracing::Instrument;

/// The header of the request id, in and out.
pub(crate) const X_REQUEST_ID: HeaderName = HeaderName::from_static("x-request-id");

/// The longest request id taken from a client.
const MAX_ID_LENGTH: usize = 64;

/// Which route served a request, as its logs and metrics name it; the
/// dispatcher puts it in the request's extensions (actix's own routes are
/// named by their pattern).
#[derive(Debug, Clone)]
pub(crate) struct ServedBy {
    /// The route's pattern, `/devices/{serial}/`.
    pub(crate) route: metrics::Label,
    /// Its successes are logged at debug (heartbeats, polls, probes).
    pub(crate) quiet: bool,
}

/// Gives the request its id, runs it inside a span that carries the id, and
/// logs and counts it once answered.
pub(crate) async fn observe(
    req: ServiceRequest,
    next: Next<impl MessageBody>,
) -> Result<ServiceResponse<impl MessageBody>, actix_web::Error> {
    let started = Instant::now();
    let id = request_id(req.headers());
    let method = req.method().clone();
    let span = tracing::info_span!("request", request_id = id_text(&id));
    let outcome = next.call(req).instrument(span).await;
    let elapsed = started.elapsed();
    match outcome {
        Ok(mut response) => {
            let served = served_by(response.request());
            record(&id, &method, &served, response.status(), elapsed);
            response.headers_mut().insert(X_REQUEST_ID, id);
            Ok(response)
        }
        Err(error) => {
            let served = ServedBy::named("unmatched");
            let status = error.as_response_error().status_code();
            record(&id, &method, &served, status, elapsed);
            Err(error)
        }
    }
}

impl ServedBy {
    fn named(route: &'static str) -> Self {
        Self {
            route: route.into(),
            quiet: false,
        }
    }
}

/// The dispatcher's word, else actix's pattern, else `unmatched`.
fn served_by(req: &actix_web::HttpRequest) -> ServedBy {
    if let Some(served) = req.extensions().get::<ServedBy>() {
        return served.clone();
    }
    match req.match_pattern() {
        Some(pattern) => ServedBy {
            route: pattern.into(),
            quiet: false,
        },
        None => ServedBy::named("unmatched"),
    }
}

/// Logs the request (at debug when a quiet route succeeded) and counts it.
fn record(
    id: &HeaderValue,
    method: &Method,
    served: &ServedBy,
    status: StatusCode,
    elapsed: Duration,
) {
    let route: &str = &served.route;
    let duration_ms = elapsed.as_micros() as f64 / 1000.0;
    let (request_id, code) = (id_text(id), status.as_u16());
    if served.quiet && !status.is_client_error() && !status.is_server_error() {
        tracing::debug!(request_id, %method, route, status = code, duration_ms, "request");
    } else {
        tracing::info!(request_id, %method, route, status = code, duration_ms, "request");
    }
    metrics::count_request(&served.route, method, status, elapsed);
}

/// The client's `X-Request-Id` when it is 1–64 visible ASCII characters,
/// else a new random one (32 hexadecimal digits).
fn request_id(headers: &HeaderMap) -> HeaderValue {
    headers
        .get(X_REQUEST_ID)
        .filter(|value| is_usable_id(value.as_bytes()))
        .cloned()
        .unwrap_or_else(new_request_id)
}

fn is_usable_id(id: &[u8]) -> bool {
    (1..=MAX_ID_LENGTH).contains(&id.len()) && id.iter().all(|b| (0x21..=0x7e).contains(b))
}

fn new_request_id() -> HeaderValue {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let bits = rand::random::<u128>();
    let mut id = [0_u8; 32];
    for (place, digit) in id.iter_mut().rev().enumerate() {
        *digit = DIGITS[usize::from((bits >> (4 * place)) as u8 & 0xf)];
    }
    HeaderValue::from_bytes(&id).unwrap_or(HeaderValue::from_static("unknown"))
}

/// The id as text: always visible ASCII (checked, or made here).
fn id_text(id: &HeaderValue) -> &str {
    id.to_str().unwrap_or("unknown")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id_of(sent: Option<&[u8]>) -> String {
        let mut headers = HeaderMap::new();
        if let Some(sent) = sent {
            headers.insert(X_REQUEST_ID, HeaderValue::from_bytes(sent).unwrap());
        }
        id_text(&request_id(&headers)).to_owned()
    }

    #[test]
    fn a_usable_client_id_is_kept() {
        assert_eq!(id_of(Some(b"abc-123")), "abc-123");
        let longest = "x".repeat(64);
        assert_eq!(id_of(Some(longest.as_bytes())), longest);
        assert_eq!(id_of(Some(b"!~")), "!~");
    }

    #[test]
    fn an_unusable_or_missing_id_is_replaced_by_a_new_one() {
        let too_long = "x".repeat(65);
        for sent in [
            Some(too_long.as_bytes()),
            Some(b"has space".as_slice()),
            Some(b"tab\there".as_slice()),
            Some(b"caf\xc3\xa9".as_slice()),
            Some(b"".as_slice()),
            None,
        ] {
            let id = id_of(sent);
            assert_eq!(id.len(), 32, "{sent:?} gave {id}");
            assert!(id.bytes().all(|b| b.is_ascii_hexdigit()), "{id}");
            assert_ne!(id, id_of(sent), "each new id differs");
        }
    }

    #[test]
    fn new_ids_are_random_lowercase_hexadecimal() {
        let mut seen: Vec<u8> = (0..64).flat_map(|_| id_of(None).into_bytes()).collect();
        seen.sort_unstable();
        seen.dedup();
        assert_eq!(
            seen, b"0123456789abcdef",
            "2,048 random digits use all sixteen"
        );
    }
}
