//! The webhook transport (docs/webhooks.md): the address rule that keeps
//! deliveries out of private networks, and signed posts over HTTP(S) to the
//! very address that was checked, never following redirects, within 10 s.

mod addresses;
mod attempt;
mod failure;
mod tls;

use application::ports::{AddressRefusal, OutgoingPost, PostOutcome, WebhookTransport};
use async_trait::async_trait;
use domain::TargetUrl;
use std::sync::Arc;
use std::time::Duration;
use tokio::time::{Instant, timeout_at};

/// How long one attempt may take: resolving the target's name, connecting,
/// sending and the answer's status line and headers (and how long a check
/// may wait for the name to resolve).
pub const ATTEMPT_LIMIT: Duration = Duration::from_secs(10);

/// The `User-Agent` of every post.
pub const USER_AGENT: &str = concat!("devmgr-webhooks/", env!("CARGO_PKG_VERSION"));

/// Checks targets and posts deliveries over HTTP(S).
#[derive(Clone)]
pub struct HttpTransport {
    allow_private: bool,
    /// The TLS configuration every attempt's client shares: the process's
    /// own, on the system's authorities, unless a test gave its own.
    tls: Option<Arc<rustls::ClientConfig>>,
    limit: Duration,
}

impl std::fmt::Debug for HttpTransport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpTransport")
            .field("allow_private", &self.allow_private)
            .field("limit", &self.limit)
            .finish_non_exhaustive()
    }
}

impl HttpTransport {
    /// A transport trusting the system's certificate authorities (Mozilla's
    /// when the system has none, read at the process's first post);
    /// `allow_private` lifts the address rule.
    pub fn new(allow_private: bool) -> Self {
        Self {
            allow_private,
            tls: None,
            limit: ATTEMPT_LIMIT,
        }
    }

    /// This transport with `limit` per attempt instead of [`ATTEMPT_LIMIT`]
    /// (tests, which should not wait 10 s).
    #[cfg(test)]
    pub(crate) fn with_limit(mut self, limit: Duration) -> Self {
        self.limit = limit;
        self
    }

    /// This transport trusting only `roots` (tests, with their own
    /// authority).
    #[cfg(test)]
    pub(crate) fn with_roots(mut self, roots: rustls::RootCertStore) -> Self {
        self.tls = Some(Arc::new(tls::client_config(roots)));
        self
    }
}

#[async_trait]
impl WebhookTransport for HttpTransport {
    async fn check(&self, target: &TargetUrl) -> Result<(), AddressRefusal> {
        // A resolver that never answers is a name that does not resolve.
        tokio::time::timeout(self.limit, addresses::check(target, self.allow_private))
            .await
            .unwrap_or(Err(AddressRefusal::Unresolved))
            .map(drop)
    }

    async fn post(&self, post: &OutgoingPost) -> PostOutcome {
        // The limit covers the whole attempt, resolving the name included.
        let deadline = Instant::now() + self.limit;
        let check = addresses::check(&post.target, self.allow_private);
        let checked = match timeout_at(deadline, check).await {
            Err(_) => return PostOutcome::NoAnswer(failure::no_answer_within(self.limit)),
            Ok(Ok(checked)) => checked,
            Ok(Err(AddressRefusal::Forbidden)) => {
                return PostOutcome::Refused(AddressRefusal::Forbidden);
            }
            // DNS may come back: a failed attempt, retried, not a refusal.
            Ok(Err(AddressRefusal::Unresolved)) => {
                return PostOutcome::NoAnswer(domain::webhook::UNRESOLVED_HOST_MESSAGE.into());
            }
        };
        let tls = self.tls.as_ref().unwrap_or_else(|| tls::system_config());
        attempt::post(post, &checked, tls, deadline, self.limit).await
    }
}

#[cfg(test)]
mod tests;
