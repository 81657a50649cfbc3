//! Alert mail in windows (docs/architecture.md, "Alerts and webhooks"): an
//! account's window row, the mails of their own queued in the outbox, the
//! lines of a window's digest, and the digests of windows that ended.

use crate::outbox::enqueue;
use crate::rows::{from_secs, to_secs};
use application::mail::Email;
use application::ports::{DigestLine, DueDigest};
use chrono::Duration;
use domain::{AccountId, AlertId, MailAdmission, MailWindow, Timestamp};
use rusqlite::{Connection, OptionalExtension, TransactionBehavior, params};

/// Admits an owner's notifications at one moment into their mail window,
/// inside the transaction that made them.
pub(super) struct Mailer {
    owner: AccountId,
    now: Timestamp,
    length: Duration,
    window: Option<MailWindow>,
    changed: bool,
    mailed: bool,
}

impl Mailer {
    /// Reads `owner`'s current window.
    pub(super) fn open(
        conn: &Connection,
        owner: AccountId,
        now: Timestamp,
        length: Duration,
    ) -> rusqlite::Result<Self> {
        let window = conn
            .prepare_cached(
                "SELECT opened_time, mailed FROM alert_mail_windows WHERE account_id = ?1",
            )?
            .query_row([owner.0], |row| {
                Ok(MailWindow {
                    opened: from_secs(row.get(0)?),
                    mailed: row.get(1)?,
                })
            })
            .optional()?;
        Ok(Self {
            owner,
            now,
            length,
            window,
            changed: false,
            mailed: false,
        })
    }

    /// Admits `mail`, about `alert`: queued in the outbox, or a line of the
    /// window's digest.
    pub(super) fn admit(
        &mut self,
        conn: &Connection,
        mail: &Email,
        alert: &AlertId,
    ) -> rusqlite::Result<()> {
        let (window, admission) = MailWindow::admit(self.window, self.now, self.length);
        self.window = Some(window);
        self.changed = true;
        match admission {
            MailAdmission::Mail => {
                enqueue(conn, mail, self.now)?;
                self.mailed = true;
            }
            MailAdmission::Digest(opened) => {
                conn.prepare_cached(
                    "INSERT INTO alert_digest_lines (account_id, seq, window_opened, subject, \
                         alert_id) \
                     VALUES (?1, (SELECT COALESCE(MAX(seq), 0) + 1 FROM alert_digest_lines \
                                  WHERE account_id = ?1), ?2, ?3, ?4)",
                )?
                .execute(params![
                    self.owner.0,
                    to_secs(opened),
                    mail.subject,
                    alert.as_str()
                ])?;
            }
        }
        Ok(())
    }

    /// Writes the window back; whether mail was queued.
    pub(super) fn close(self, conn: &Connection) -> rusqlite::Result<bool> {
        if let (true, Some(window)) = (self.changed, self.window) {
            conn.prepare_cached(
                "INSERT INTO alert_mail_windows (account_id, opened_time, mailed) \
                 VALUES (?1, ?2, ?3) ON CONFLICT (account_id) \
                 DO UPDATE SET opened_time = excluded.opened_time, mailed = excluded.mailed",
            )?
            .execute(params![self.owner.0, to_secs(window.opened), window.mailed])?;
        }
        Ok(self.mailed)
    }
}

/// The digests of windows ended by `now` (windows of `length`) that hold
/// lines, by account and window, each's lines in the order they came.
pub(super) fn due(
    conn: &Connection,
    now: Timestamp,
    length: Duration,
) -> rusqlite::Result<Vec<DueDigest>> {
    // A window that opened at or before `now - length` has ended
    // (`MailWindow::has_ended`); stored times are whole seconds.
    let lines = conn
        .prepare_cached(
            "SELECT l.account_id, accounts.email, l.window_opened, l.subject, l.alert_id \
             FROM alert_digest_lines AS l CROSS JOIN accounts ON accounts.id = l.account_id \
             WHERE l.window_opened <= ?1 ORDER BY l.account_id, l.window_opened, l.seq",
        )?
        .query_map([to_secs(now - length)], |row| {
            Ok((
                AccountId(row.get(0)?),
                row.get::<_, String>(1)?,
                from_secs(row.get(2)?),
                DigestLine {
                    subject: row.get(3)?,
                    alert: AlertId::from_stored(row.get(4)?),
                },
            ))
        })?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    let mut digests: Vec<DueDigest> = Vec::new();
    for (owner, owner_email, window_opened, line) in lines {
        match digests.last_mut() {
            Some(last) if last.owner == owner && last.window_opened == window_opened => {
                last.lines.push(line);
            }
            _ => digests.push(DueDigest {
                owner,
                owner_email,
                window_opened,
                lines: vec![line],
            }),
        }
    }
    Ok(digests
        .into_iter()
        .filter(|digest| MailWindow::has_ended(digest.window_opened, now, length))
        .collect())
}

/// Deletes `owner`'s digest lines of the window opened at `window_opened`
/// and, if there were any, queues `mail` as of `now`; whether it did.
pub(super) fn send(
    conn: &mut Connection,
    owner: AccountId,
    window_opened: Timestamp,
    mail: &Email,
    now: Timestamp,
) -> rusqlite::Result<bool> {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let deleted = tx
        .prepare_cached(
            "DELETE FROM alert_digest_lines WHERE account_id = ?1 AND window_opened = ?2",
        )?
        .execute(params![owner.0, to_secs(window_opened)])?;
    if deleted > 0 {
        enqueue(&tx, mail, now)?;
    }
    tx.commit()?;
    Ok(deleted > 0)
}
