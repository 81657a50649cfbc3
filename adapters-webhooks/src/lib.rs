//! The webhook transport (being written).

use application::ports::{AddressRefusal, OutgoingPost, PostOutcome, WebhookTransport};
use async_trait::async_trait;
use domain::TargetUrl;

/// Posts webhook deliveries over HTTP(S).
#[derive(Debug, Clone)]
pub struct HttpTransport {
    allow_private: bool,
}

impl HttpTransport {
    /// A transport; `allow_private` lifts the address rule.
    pub fn new(allow_private: bool) -> Self {
        Self { allow_private }
    }
}

#[async_trait]
impl WebhookTransport for HttpTransport {
    async fn check(&self, _target: &TargetUrl) -> Result<(), AddressRefusal> {
        if self.allow_private {
            Ok(())
        } else {
            Err(AddressRefusal::Forbidden)
        }
    }

    async fn post(&self, _post: &OutgoingPost) -> PostOutcome {
        PostOutcome::NoAnswer("not yet".into())
    }
}
