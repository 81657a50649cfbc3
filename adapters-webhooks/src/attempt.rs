//! One attempt: a signed post to the address checked, redirects not
//! followed, within the attempt's limit.

use crate::addresses::Checked;
use crate::failure;
use application::ports::{OutgoingPost, PostOutcome};
use reqwest::dns::{Name, Resolve, Resolving};
use reqwest::header::CONTENT_TYPE;
use std::sync::Arc;
use std::time::Duration;
use tokio::time::{Instant, timeout_at};

/// How much of an answer's body is read (and thrown away) at most.
const BODY_READ_LIMIT: usize = 64 * 1024;

/// Posts `post` to the `checked` address by `deadline`, the end of the
/// attempt's `limit`.
pub(crate) async fn post(
    post: &OutgoingPost,
    checked: &Checked,
    tls: &Arc<rustls::ClientConfig>,
    deadline: Instant,
    limit: Duration,
) -> PostOutcome {
    let client = match client(checked, tls) {
        Ok(client) => client,
        Err(error) => return PostOutcome::NoAnswer(failure::describe(&error, limit)),
    };
    let request = client
        .post(post.target.as_str())
        .header(CONTENT_TYPE, "application/json")
        .header("X-Devmgr-Event", post.event.code())
        .header("X-Devmgr-Delivery", post.delivery.as_str())
        .header("X-Devmgr-Signature", &post.signature)
        .body(post.body.clone());
    let mut answer = match timeout_at(deadline, request.send()).await {
        Ok(Ok(answer)) => answer,
        Ok(Err(error)) => return PostOutcome::NoAnswer(failure::describe(&error, limit)),
        Err(_) => return PostOutcome::NoAnswer(failure::no_answer_within(limit)),
    };
    let status = answer.status().as_u16();
    // The status decides; a little of the body is read so the receiver's
    // write completes, within what is left of the limit.
    let _ = timeout_at(deadline, async {
        let mut read = 0;
        while read < BODY_READ_LIMIT {
            match answer.chunk().await {
                Ok(Some(chunk)) => read += chunk.len(),
                _ => break,
            }
        }
    })
    .await;
    PostOutcome::Answered(status)
}

/// A client for this attempt alone: a host name goes to the addresses
/// checked (reqwest keeps such overrides per client) and nothing else is
/// resolved; no proxy, no redirect, no pooled connection; the shared TLS
/// configuration.
fn client(checked: &Checked, tls: &Arc<rustls::ClientConfig>) -> reqwest::Result<reqwest::Client> {
    let builder = reqwest::Client::builder()
        .use_preconfigured_tls(rustls::ClientConfig::clone(tls))
        .user_agent(crate::USER_AGENT)
        .redirect(reqwest::redirect::Policy::none())
        .no_proxy()
        .pool_max_idle_per_host(0)
        .dns_resolver(Arc::new(NoResolution));
    match checked {
        Checked::Literal(_) => builder,
        Checked::Resolved { name, addresses } => builder.resolve_to_addrs(name, addresses),
    }
    .build()
}

/// Refuses every resolution: an attempt connects only to the addresses its
/// check found, so a name reqwest did not get from the check is an error,
/// never a second lookup.
struct NoResolution;

impl Resolve for NoResolution {
    fn resolve(&self, _name: Name) -> Resolving {
        Box::pin(async { Err("the host name was not checked".into()) })
    }
}
