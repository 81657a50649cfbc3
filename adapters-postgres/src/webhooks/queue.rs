//! Queuing deliveries: an event for each of its account's webhooks
//! subscribed to it, inside the transaction of the change that causes it
//! (a verdict, a job's settlement), or a ping for one webhook. A queued
//! delivery is pending, due at once (at the event's time).

use super::records;
use crate::prepared;
use crate::rows::{self, read};
use crate::store::Failure;
use application::StoreError;
use application::ports::EventRecord;
use deadpool_postgres::{GenericClient, Transaction};
use domain::{AccountId, DeliveryId, Timestamp, WebhookId};

type Outcome<T> = Result<T, Failure<StoreError>>;

/// A new delivery id: a random UUID in canonical (lowercase) form.
fn new_delivery_id() -> String {
    uuid::Uuid::new_v4().hyphenated().to_string()
}

/// Queues `event` for each of `owner`'s webhooks subscribed to it; how many
/// deliveries were queued.
pub(crate) async fn queue_event(
    tx: &Transaction<'_>,
    owner: AccountId,
    event: &EventRecord,
) -> Outcome<usize> {
    queue_events(tx, owner, std::slice::from_ref(event)).await
}

/// Queues each of `events`, in order, for each of `owner`'s webhooks
/// subscribed to it: two statements however many events and webhooks. How
/// many deliveries were queued.
pub(crate) async fn queue_events(
    tx: &Transaction<'_>,
    owner: AccountId,
    events: &[EventRecord],
) -> Outcome<usize> {
    if events.is_empty() {
        return Ok(0);
    }
    let found = prepared::query(
        tx,
        "SELECT id, events FROM webhooks WHERE account_id = $1 ORDER BY seq",
        &[&owner.0],
    )
    .await?;
    let mut webhooks = Vec::with_capacity(found.len());
    for row in &found {
        let id: String = row.try_get(0).map_err(read)?;
        let set: String = row.try_get(1).map_err(read)?;
        webhooks.push((id, records::event_set(&set)?));
    }
    let mut rows_to_insert = Deliveries::default();
    for event in events {
        for (webhook, set) in &webhooks {
            if set.contains(event.event) {
                rows_to_insert.push(new_delivery_id(), webhook.clone(), event);
            }
        }
    }
    rows_to_insert.insert(tx, owner).await
}

/// Queues `event` (a ping) as delivery `delivery` for webhook `id` of
/// `owner` alone; whether `owner` has the webhook.
pub(super) async fn queue_ping(
    c: &impl GenericClient,
    owner: AccountId,
    id: &WebhookId,
    delivery: &DeliveryId,
    event: &EventRecord,
) -> Outcome<bool> {
    let queued = prepared::execute(
        c,
        "INSERT INTO webhook_deliveries (id, webhook_id, account_id, event, data, status, \
         created_time, next_attempt_time) \
         SELECT $1, w.id, w.account_id, $4, $5, 'pending', $6, $6 FROM webhooks w \
         WHERE w.id = $2 AND w.account_id = $3",
        &[
            &delivery.as_str(),
            &id.as_str(),
            &owner.0,
            &event.event.code(),
            &event.data,
            &rows::at(event.time),
        ],
    )
    .await?;
    Ok(queued > 0)
}

/// Deliveries to insert, as the columns `UNNEST` takes.
#[derive(Default)]
struct Deliveries<'a> {
    ids: Vec<String>,
    webhooks: Vec<String>,
    events: Vec<&'static str>,
    data: Vec<&'a str>,
    times: Vec<Timestamp>,
}

impl<'a> Deliveries<'a> {
    fn push(&mut self, id: String, webhook: String, event: &'a EventRecord) {
        self.ids.push(id);
        self.webhooks.push(webhook);
        self.events.push(event.event.code());
        self.data.push(&event.data);
        self.times.push(rows::at(event.time));
    }

    /// Inserts them all, in order, in one statement; how many.
    async fn insert(&self, tx: &Transaction<'_>, owner: AccountId) -> Outcome<usize> {
        if self.ids.is_empty() {
            return Ok(0);
        }
        let inserted = prepared::execute(
            tx,
            "INSERT INTO webhook_deliveries (id, webhook_id, account_id, event, data, status, \
             created_time, next_attempt_time) \
             SELECT q.id, q.webhook, $1, q.event, q.data, 'pending', q.at, q.at \
             FROM UNNEST($2::text[], $3::text[], $4::text[], $5::text[], $6::timestamptz[]) \
                 WITH ORDINALITY AS q (id, webhook, event, data, at, k) ORDER BY q.k",
            &[
                &owner.0,
                &self.ids,
                &self.webhooks,
                &self.events,
                &self.data,
                &self.times,
            ],
        )
        .await?;
        Ok(usize::try_from(inserted).unwrap_or(usize::MAX))
    }
}
