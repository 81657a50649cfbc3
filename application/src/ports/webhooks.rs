//! The ports of webhooks: the webhooks and their deliveries as stored, the
//! transport that checks addresses and posts, and the JSON an event carries.

use async_trait::async_trait;
#[cfg(any(test, feature = "mocks"))]
use mockall::automock;

use super::{AlertRecord, EventRecord, JobRecord, StoreError, Window};
use domain::{
    AccountId, AuditNote, DeliveryId, DeliveryStatus, EventSet, TargetUrl, Timestamp, WebhookEvent,
    WebhookId,
};

/// A webhook to store.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewWebhook {
    /// Its identity.
    pub id: WebhookId,
    /// Its account.
    pub owner: AccountId,
    /// Where its deliveries are posted.
    pub target: TargetUrl,
    /// The events it is sent.
    pub events: EventSet,
    /// The key of its signatures.
    pub secret: String,
    /// When it was created.
    pub created_time: Timestamp,
}

/// A webhook as its owner sees it (the secret is shown only at creation).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WebhookRecord {
    /// Its identity.
    pub id: WebhookId,
    /// Where its deliveries are posted, as sent.
    pub target_url: String,
    /// The events it is sent.
    pub events: EventSet,
    /// When it was created.
    pub created_time: Timestamp,
}

/// A page of an account's webhooks, newest first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WebhookPage {
    /// How many webhooks the account has.
    pub count: u64,
    /// Those of the page.
    pub webhooks: Vec<WebhookRecord>,
}

/// A delivery as its owner sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeliveryRecord {
    /// Its identity.
    pub id: DeliveryId,
    /// Its event.
    pub event: WebhookEvent,
    /// Where it stands.
    pub status: DeliveryStatus,
    /// Attempts made.
    pub attempts: u32,
    /// The HTTP status of the last attempt's answer (`None`: none yet, or no
    /// answer).
    pub response_code: Option<u16>,
    /// Why the last attempt failed, on one line ("" when it did not).
    pub error: String,
    /// When the event happened.
    pub created_time: Timestamp,
    /// When the last attempt was made.
    pub last_attempt_time: Option<Timestamp>,
    /// When the next attempt goes (`None` once it succeeded or failed).
    pub next_attempt_time: Option<Timestamp>,
}

/// A page of a webhook's deliveries, newest first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeliveryPage {
    /// How many deliveries the webhook has.
    pub count: u64,
    /// Those of the page.
    pub deliveries: Vec<DeliveryRecord>,
}

/// A delivery due for an attempt, with all an attempt needs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DueDelivery {
    /// Its identity.
    pub id: DeliveryId,
    /// Where it is posted, as stored.
    pub target_url: String,
    /// The webhook's secret.
    pub secret: String,
    /// Its event, when it happened and its data.
    pub event: EventRecord,
    /// Attempts made before this one.
    pub attempts: u32,
}

/// What an attempt came to, to be recorded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AttemptRecord {
    /// Where the delivery stands now.
    pub status: DeliveryStatus,
    /// Attempts made, this one included.
    pub attempts: u32,
    /// The answer's HTTP status, if there was an answer.
    pub response_code: Option<u16>,
    /// Why it failed ("" when it succeeded).
    pub error: String,
    /// When it was made.
    pub attempt_time: Timestamp,
    /// When the next one goes (`Pending` only).
    pub next_attempt_time: Option<Timestamp>,
}

/// Webhooks and their deliveries. Nothing here reads, counts or changes
/// another account's webhooks or deliveries.
#[cfg_attr(any(test, feature = "mocks"), automock)]
#[async_trait]
pub trait WebhookRepository: Send + Sync {
    /// Stores a new webhook.
    /// Appends `audit` in the same transaction.
    async fn create_webhook(
        &self,
        webhook: &NewWebhook,
        audit: &AuditNote,
    ) -> Result<(), StoreError>;
    /// A page of `owner`'s webhooks, newest first (in creation order, also
    /// within one second).
    async fn list_webhooks(
        &self,
        owner: AccountId,
        window: Window,
    ) -> Result<WebhookPage, StoreError>;
    /// One webhook of `owner`.
    async fn find_webhook(
        &self,
        owner: AccountId,
        id: &WebhookId,
    ) -> Result<Option<WebhookRecord>, StoreError>;
    /// Deletes a webhook of `owner` and its deliveries (none is attempted
    /// after); whether it existed.
    /// Appends `audit` when it did.
    async fn delete_webhook(
        &self,
        owner: AccountId,
        id: &WebhookId,
        audit: &AuditNote,
    ) -> Result<bool, StoreError>;
    /// Queues `event` (a ping) for this webhook alone as delivery `delivery`,
    /// due at once; whether `owner` has the webhook.
    async fn queue_ping(
        &self,
        owner: AccountId,
        id: &WebhookId,
        delivery: &DeliveryId,
        event: &EventRecord,
    ) -> Result<bool, StoreError>;
    /// A page of the deliveries of a webhook of `owner`, newest first (in
    /// creation order, also within one second); `None` when `owner` has no
    /// such webhook.
    async fn list_deliveries(
        &self,
        owner: AccountId,
        id: &WebhookId,
        window: Window,
    ) -> Result<Option<DeliveryPage>, StoreError>;
    /// Takes up to `limit` pending deliveries due at `now` (earliest due
    /// first) that no worker holds, and hides them from other workers until
    /// `lease_until`, so that of several instances exactly one attempts
    /// each (a worker that dies meanwhile leaves them to be taken again).
    async fn claim_deliveries(
        &self,
        now: Timestamp,
        lease_until: Timestamp,
        limit: u32,
    ) -> Result<Vec<DueDelivery>, StoreError>;
    /// Records an attempt and releases the delivery (nothing, when the
    /// webhook was deleted meanwhile).
    async fn record_attempt(
        &self,
        id: &DeliveryId,
        attempt: &AttemptRecord,
    ) -> Result<(), StoreError>;
}

/// Why a target's address is refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AddressRefusal {
    /// It is, or resolves to, a loopback, private, link-local … address.
    Forbidden,
    /// Its host name does not resolve.
    Unresolved,
}

/// How one attempt went.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PostOutcome {
    /// The target answered with this HTTP status within the time allowed.
    Answered(u16),
    /// No answer: a connection, TLS or time-out failure, on one line.
    NoAnswer(String),
    /// The address was refused; nothing was sent.
    Refused(AddressRefusal),
}

/// One post of a delivery.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutgoingPost {
    /// Where to.
    pub target: TargetUrl,
    /// `X-Devmgr-Event`.
    pub event: WebhookEvent,
    /// `X-Devmgr-Delivery`.
    pub delivery: DeliveryId,
    /// `X-Devmgr-Signature`.
    pub signature: String,
    /// The body (`application/json`).
    pub body: String,
}

/// Checks webhook addresses and posts deliveries. Unless the server allows
/// private targets, a target's host must be, or resolve only to, addresses
/// that [`domain::webhook::is_forbidden_address`] allows.
#[cfg_attr(any(test, feature = "mocks"), automock)]
#[async_trait]
pub trait WebhookTransport: Send + Sync {
    /// Whether `target` may be posted to now.
    async fn check(&self, target: &TargetUrl) -> Result<(), AddressRefusal>;
    /// Checks `post.target` as [`check`](Self::check) does and, if allowed,
    /// posts to the very address checked (no second resolution), never
    /// following redirects, within 10 s.
    async fn post(&self, post: &OutgoingPost) -> PostOutcome;
}

/// The JSON of the resources an event carries, as their GETs show them
/// (their `url`s under the server's public base).
#[cfg_attr(any(test, feature = "mocks"), automock)]
pub trait EventData: Send + Sync {
    /// An alert.
    fn alert(&self, alert: &AlertRecord) -> String;
    /// A job.
    fn job(&self, job: &JobRecord) -> String;
    /// A webhook.
    fn webhook(&self, webhook: &WebhookRecord) -> String;
}
