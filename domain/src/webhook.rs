//! Webhooks: where an account's events are posted, which events, how each
//! post is signed, retried, and kept from reaching private networks.

mod address;
mod backoff;
mod events;
mod signature;
mod target;

pub use address::is_forbidden_address;
pub use backoff::{DELIVERY_GIVE_UP_AFTER, MAX_RETRY_DELAY_SECONDS, next_attempt_time};
pub use events::{EventSet, WebhookEvent};
pub use signature::signature_header;
pub use target::{InvalidTargetUrl, MAX_TARGET_URL_CHARS, TargetHost, TargetUrl};

use crate::canonical_uuid;

canonical_uuid::uuid_identity!(
    /// A webhook's identity: a UUID in its canonical form.
    WebhookId,
    /// The text was not a webhook id.
    InvalidWebhookId,
    "webhook"
);

canonical_uuid::uuid_identity!(
    /// A delivery's identity: a UUID in its canonical form.
    DeliveryId,
    /// The text was not a delivery id.
    InvalidDeliveryId,
    "delivery"
);

/// The fewest characters of a webhook secret.
pub const MIN_SECRET_CHARS: usize = 16;
/// The most characters of a webhook secret.
pub const MAX_SECRET_CHARS: usize = 200;

/// Where a delivery stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DeliveryStatus {
    /// Not attempted yet, or to be attempted again.
    Pending,
    /// An attempt was answered with a 2xx.
    Succeeded,
    /// Given up: 24 h of failures, or an address refused.
    Failed,
}

impl DeliveryStatus {
    /// The word the API shows and the stores keep.
    pub const fn code(self) -> &'static str {
        match self {
            Self::Pending => "pending",
            Self::Succeeded => "succeeded",
            Self::Failed => "failed",
        }
    }

    /// The status named `code`, if any.
    pub fn parse(code: &str) -> Option<Self> {
        [Self::Pending, Self::Succeeded, Self::Failed]
            .into_iter()
            .find(|status| status.code() == code)
    }
}

/// Why an address is refused, in the API's words.
pub const FORBIDDEN_ADDRESS_MESSAGE: &str =
    "Webhooks may not target loopback, private or link-local addresses.";
/// Why a host name is refused, in the API's words.
pub const UNRESOLVED_HOST_MESSAGE: &str = "The host name does not resolve.";
