//! A verdict recorded in one transaction (docs/architecture.md, "Alerts and
//! webhooks"). Its first statement locks the monitor's row, so verdicts on
//! one monitor, from this instance or another, take turns; then each change
//! is conditional on the rows as the one before left them: an opening is
//! inserted only if the monitor has no open alert for its device (the
//! unique index of open alerts), a resolution only changes an open alert.
//! Only the changes that took effect are notified.

use super::mail;
use crate::prepared;
use crate::rows::{self, read};
use crate::store::Failure;
use crate::webhooks::queue_events;
use application::StoreError;
use application::ports::{AlertNotice, AlertTransition, AppliedVerdict, MonitorVerdict};
use chrono::Duration;
use deadpool_postgres::Transaction;
use domain::{AlertId, Timestamp};
use std::collections::HashSet;

type Outcome<T> = Result<T, Failure<StoreError>>;

/// Records `verdict` at `now`; what took effect, and whether mail was
/// queued (this instance's mail worker is then to be woken after commit).
pub(super) async fn apply(
    tx: &Transaction<'_>,
    verdict: &MonitorVerdict,
    now: Timestamp,
    mail_window: Duration,
) -> Outcome<(AppliedVerdict, bool)> {
    let monitor = verdict.monitor.as_str();
    let owner = verdict.owner.0;
    let locked = prepared::query_opt(
        tx,
        "SELECT 1 FROM monitors WHERE id = $1 AND account_id = $2 FOR UPDATE",
        &[&monitor, &owner],
    )
    .await?;
    if locked.is_none() {
        return Ok((AppliedVerdict::default(), false));
    }
    prepared::execute(
        tx,
        "UPDATE monitors SET above_since = $2 WHERE id = $1 AND above_since IS DISTINCT FROM $2",
        &[&monitor, &verdict.above_since.map(rows::at)],
    )
    .await?;
    let opened = open(tx, verdict, owner).await?;
    let resolved = resolve(tx, verdict, now).await?;
    keep_calm(tx, verdict).await?;
    let notices: Vec<(&AlertNotice, &AlertId)> = taken(&verdict.opened, &opened)
        .chain(taken(&verdict.resolved, &resolved))
        .collect();
    let events: Vec<_> = notices
        .iter()
        .map(|(notice, _)| notice.event.clone())
        .collect();
    queue_events(tx, verdict.owner, &events).await?;
    let mails: Vec<_> = notices
        .iter()
        .map(|(notice, id)| (&notice.mail, *id))
        .collect();
    let mailed = mail::admit(tx, verdict.owner, &mails, now, mail_window).await?;
    Ok((AppliedVerdict { opened, resolved }, mailed))
}

/// The notices, with their alerts, of the transitions whose alert is among
/// `took_effect`, in the verdict's order.
fn taken<'a>(
    transitions: &'a [AlertTransition],
    took_effect: &'a [AlertId],
) -> impl Iterator<Item = (&'a AlertNotice, &'a AlertId)> + 'a {
    let took_effect: HashSet<&str> = took_effect.iter().map(AlertId::as_str).collect();
    transitions
        .iter()
        .filter(move |t| took_effect.contains(t.alert.id.as_str()))
        .filter_map(|t| t.notice.as_ref().map(|notice| (notice, &t.alert.id)))
}

/// Inserts the verdict's openings, each unless its monitor already has an
/// open alert for the device (or a fleet alert) or the id is taken; the ids
/// inserted, in the verdict's order.
async fn open(tx: &Transaction<'_>, verdict: &MonitorVerdict, owner: i64) -> Outcome<Vec<AlertId>> {
    if verdict.opened.is_empty() {
        return Ok(Vec::new());
    }
    let (mut ids, mut serials, mut started, mut reasons) = (vec![], vec![], vec![], vec![]);
    for transition in &verdict.opened {
        let alert = &transition.alert;
        ids.push(alert.id.as_str());
        serials.push(alert.serial.as_ref().map(|serial| serial.as_str()));
        started.push(rows::at(alert.started_time));
        reasons.push(alert.reason.as_str());
    }
    let inserted = prepared::query(
        tx,
        "INSERT INTO alerts (id, account_id, monitor_id, serial, state, started_time, reason) \
         SELECT o.id, $1, $2, o.serial, 'open', o.started, o.reason \
         FROM UNNEST($3::text[], $4::text[], $5::timestamptz[], $6::text[]) \
             WITH ORDINALITY AS o (id, serial, started, reason, k) \
         ORDER BY o.k ON CONFLICT DO NOTHING RETURNING id",
        &[
            &owner,
            &verdict.monitor.as_str(),
            &ids,
            &serials,
            &started,
            &reasons,
        ],
    )
    .await?;
    in_verdict_order(&verdict.opened, &inserted)
}

/// Resolves the verdict's alerts that are still open; their ids, in the
/// verdict's order.
async fn resolve(
    tx: &Transaction<'_>,
    verdict: &MonitorVerdict,
    now: Timestamp,
) -> Outcome<Vec<AlertId>> {
    if verdict.resolved.is_empty() {
        return Ok(Vec::new());
    }
    let ids: Vec<&str> = verdict
        .resolved
        .iter()
        .map(|t| t.alert.id.as_str())
        .collect();
    let changed = prepared::query(
        tx,
        "UPDATE alerts SET state = 'resolved', resolved_time = $3, calm_since = NULL \
         WHERE id = ANY($1::text[]) AND monitor_id = $2 AND state = 'open' RETURNING id",
        &[&ids, &verdict.monitor.as_str(), &rows::at(now)],
    )
    .await?;
    in_verdict_order(&verdict.resolved, &changed)
}

/// Keeps since when the verdict's alerts still open have been calm.
async fn keep_calm(tx: &Transaction<'_>, verdict: &MonitorVerdict) -> Outcome<()> {
    if verdict.calm.is_empty() {
        return Ok(());
    }
    let ids: Vec<&str> = verdict.calm.iter().map(|(id, _)| id.as_str()).collect();
    let since: Vec<Option<Timestamp>> = verdict
        .calm
        .iter()
        .map(|(_, at)| at.map(rows::at))
        .collect();
    prepared::execute(
        tx,
        "UPDATE alerts SET calm_since = c.since \
         FROM UNNEST($1::text[], $2::timestamptz[]) AS c (id, since) \
         WHERE alerts.id = c.id AND alerts.monitor_id = $3 AND alerts.state = 'open'",
        &[&ids, &since, &verdict.monitor.as_str()],
    )
    .await?;
    Ok(())
}

/// The ids returned in `rows`, in the order of `transitions`.
fn in_verdict_order(
    transitions: &[AlertTransition],
    rows: &[tokio_postgres::Row],
) -> Outcome<Vec<AlertId>> {
    let returned: HashSet<String> = rows
        .iter()
        .map(|row| row.try_get(0))
        .collect::<Result<_, _>>()
        .map_err(read)?;
    Ok(transitions
        .iter()
        .map(|t| &t.alert.id)
        .filter(|id| returned.contains(id.as_str()))
        .cloned()
        .collect())
}
