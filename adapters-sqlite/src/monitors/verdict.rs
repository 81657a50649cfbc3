//! A verdict recorded: one `BEGIN IMMEDIATE` transaction that opens the
//! alerts not yet open, resolves those still open, keeps what the engine
//! remembers, and queues the notices of what took effect (webhook
//! deliveries, and mail admitted into the owner's mail window). Of several
//! instances applying the same verdict, exactly one opens or resolves each
//! alert, so each is notified once.

use super::mail::Mailer;
use crate::rows::to_secs;
use crate::webhooks::queue_event;
use application::ports::{AlertNotice, AppliedVerdict, MonitorVerdict};
use chrono::Duration;
use domain::{AlertId, Timestamp};
use rusqlite::{Connection, OptionalExtension, TransactionBehavior, params};

/// Opens an alert unless the monitor has one open for the same device (the
/// unique index on open alerts) or the alert exists already.
const OPEN: &str = "INSERT OR IGNORE INTO alerts (id, account_id, monitor_id, seq, serial, \
         state, started_time, resolved_time, reason, calm_since) \
     VALUES (?1, ?2, ?3, (SELECT COALESCE(MAX(seq), 0) + 1 FROM alerts), ?4, 'open', ?5, NULL, \
             ?6, NULL)";

/// Resolves alert `?1` of monitor `?2` at `?3` if it is open.
const RESOLVE: &str = "UPDATE alerts SET state = 'resolved', resolved_time = ?3, \
     calm_since = NULL WHERE id = ?1 AND monitor_id = ?2 AND state = 'open'";

/// Records since when open alert `?1` of monitor `?2` has been calm.
const CALM: &str =
    "UPDATE alerts SET calm_since = ?3 WHERE id = ?1 AND monitor_id = ?2 AND state = 'open'";

/// Records `verdict` at `now` with mail windows of `mail_window`; what took
/// effect, and whether mail was queued (the caller wakes the mail worker
/// after the commit).
pub(super) fn apply(
    conn: &mut Connection,
    verdict: &MonitorVerdict,
    now: Timestamp,
    mail_window: Duration,
) -> rusqlite::Result<(AppliedVerdict, bool)> {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let (monitor, owner) = (verdict.monitor.as_str(), verdict.owner);
    let exists = tx
        .prepare_cached(
            "UPDATE monitors SET above_since = ?3 WHERE id = ?1 AND account_id = ?2 RETURNING 1",
        )?
        .query_row(
            params![monitor, owner.0, verdict.above_since.map(to_secs)],
            |_| Ok(()),
        )
        .optional()?
        .is_some();
    if !exists {
        return Ok((AppliedVerdict::default(), false));
    }
    let mut applied = AppliedVerdict::default();
    let mut notices: Vec<(&AlertId, &AlertNotice)> = Vec::new();
    for opening in &verdict.opened {
        let alert = &opening.alert;
        let opened = tx.prepare_cached(OPEN)?.execute(params![
            alert.id.as_str(),
            owner.0,
            monitor,
            alert.serial.as_ref().map(|serial| serial.as_str()),
            to_secs(alert.started_time),
            alert.reason,
        ])? > 0;
        if opened {
            applied.opened.push(alert.id.clone());
            notices.extend(opening.notice.iter().map(|notice| (&alert.id, notice)));
        }
    }
    for resolution in &verdict.resolved {
        let alert = &resolution.alert;
        let resolved_time = to_secs(alert.resolved_time.unwrap_or(now));
        let resolved = tx.prepare_cached(RESOLVE)?.execute(params![
            alert.id.as_str(),
            monitor,
            resolved_time
        ])? > 0;
        if resolved {
            applied.resolved.push(alert.id.clone());
            notices.extend(resolution.notice.iter().map(|notice| (&alert.id, notice)));
        }
    }
    for (alert, calm_since) in &verdict.calm {
        tx.prepare_cached(CALM)?.execute(params![
            alert.as_str(),
            monitor,
            calm_since.map(to_secs)
        ])?;
    }
    let mut mailer = Mailer::open(&tx, owner, now, mail_window)?;
    for (alert, notice) in notices {
        queue_event(&tx, owner, &notice.event)?;
        mailer.admit(&tx, &notice.mail, alert)?;
    }
    let mailed = mailer.close(&tx)?;
    tx.commit()?;
    Ok((applied, mailed))
}
