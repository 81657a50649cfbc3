//! What every request handler shares.

use crate::long_polls::LongPolls;
use crate::throttle::{AccountThrottle, AddressThrottle};
use actix_web::HttpRequest;
use actix_web::http::header;
use application::Services;
use application::ports::LongPollRegistry;
use std::sync::Arc;

/// Shared state of the HTTP adapter.
pub struct HttpState {
    /// The use cases.
    pub app: Services,
    /// `--public-url`, without a trailing slash.
    public_url: Option<String>,
    /// Where the server listens; the host of last resort for absolute URLs.
    local_host: String,
    /// Rate limiting of unauthenticated write routes, when on.
    pub(crate) throttle: Option<Arc<AddressThrottle>>,
    /// Rate limiting of password changes per account, when on.
    pub(crate) password_changes: Option<Arc<AccountThrottle>>,
    /// The open long polls of each device: in memory unless
    /// [`with_long_polls`](Self::with_long_polls) says otherwise.
    pub(crate) long_polls: Arc<dyn LongPollRegistry>,
    /// The latest read of each watched fleet, shared by console streams.
    pub(crate) fleet_reads: crate::fleet_reads::FleetReads,
    /// Device listing answers kept between requests.
    pub(crate) kept_listings: crate::kept_listings::KeptListings,
    /// Whether the client's address is the last `X-Forwarded-For` entry
    /// (`--trust-proxy`), for the audit log as for throttling.
    trust_proxy: bool,
    /// Turns true when the server stops: open event streams end.
    stopping: tokio::sync::watch::Sender<bool>,
}

impl HttpState {
    /// Builds the state; `public_url` loses any trailing slash.
    pub fn new(app: Services, public_url: Option<String>, local_host: String) -> Self {
        let public_url = public_url.map(|url| url.trim_end_matches('/').to_owned());
        Self {
            app,
            public_url,
            local_host,
            throttle: None,
            password_changes: None,
            long_polls: Arc::new(LongPolls::default()),
            fleet_reads: Default::default(),
            kept_listings: Default::default(),
            trust_proxy: false,
            stopping: tokio::sync::watch::Sender::new(false),
        }
    }

    /// Tells open event streams that the server stops.
    pub(crate) fn stop_streams(&self) {
        self.stopping.send_replace(true);
    }

    /// Watches for the server stopping.
    pub(crate) fn stopping(&self) -> tokio::sync::watch::Receiver<bool> {
        self.stopping.subscribe()
    }

    /// Turns on rate limiting of the unauthenticated write routes.
    pub fn with_throttle(mut self, throttle: Arc<AddressThrottle>) -> Self {
        self.throttle = Some(throttle);
        self
    }

    /// Takes the client's address from `X-Forwarded-For`'s last entry, as a
    /// reverse proxy in front of the server writes it.
    pub fn with_trust_proxy(mut self, trust_proxy: bool) -> Self {
        self.trust_proxy = trust_proxy;
        self
    }

    /// The request's client address, as the audit log records it.
    pub(crate) fn client_ip(&self, req: &HttpRequest) -> Option<std::net::IpAddr> {
        crate::throttle::client_ip(req, self.trust_proxy)
    }

    /// Turns on rate limiting of password changes per account.
    pub fn with_password_change_throttle(mut self, throttle: Arc<AccountThrottle>) -> Self {
        self.password_changes = Some(throttle);
        self
    }

    /// Registers long polls in `registry` (one that instances sharing a
    /// database count together) instead of this instance's memory.
    pub fn with_long_polls(mut self, registry: Arc<dyn LongPollRegistry>) -> Self {
        self.long_polls = registry;
        self
    }

    /// Whether the console's cookies carry `Secure`: the public URL is https.
    pub(crate) fn secure_cookies(&self) -> bool {
        self.public_url.as_deref().is_some_and(|url| {
            url.get(..8)
                .is_some_and(|s| s.eq_ignore_ascii_case("https://"))
        })
    }

    /// The base of absolute URLs: the public URL when configured, else
    /// `http://` and the request's `Host` (when it is a plausible host name).
    pub fn base_url(&self, req: &HttpRequest) -> String {
        if let Some(url) = &self.public_url {
            return url.clone();
        }
        let host = req
            .headers()
            .get(header::HOST)
            .and_then(|v| v.to_str().ok())
            .filter(|host| is_plausible_host(host))
            .unwrap_or(&self.local_host);
        format!("http://{host}")
    }
}

/// Letters, digits, `.-:[]` only: a host name, IPv4 or bracketed IPv6, with
/// an optional port. Anything else could inject text into mailed links.
fn is_plausible_host(host: &str) -> bool {
    !host.is_empty()
        && host.len() <= 255
        && host
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-' | b':' | b'[' | b']'))
}

#[cfg(test)]
mod tests {
    use super::is_plausible_host;

    #[test]
    fn hosts_with_markup_or_paths_are_refused() {
        assert!(is_plausible_host("devmgr.example:8000"));
        assert!(is_plausible_host("[::1]:8000"));
        assert!(!is_plausible_host("evil.example/\"><script>"));
        assert!(!is_plausible_host("a b"));
        assert!(!is_plausible_host(""));
    }
}
