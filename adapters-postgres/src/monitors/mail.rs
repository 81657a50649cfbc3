//! Alert mail in windows: each notification admitted into its account's
//! window under the window row's lock ([`MailWindow::admit`]), its own mail
//! queued in the outbox or a line kept for the window's digest; the digests
//! of ended windows, and a digest sent once however many instances try.

use crate::outbox;
use crate::prepared;
use crate::rows::{self, read};
use crate::store::Failure;
use application::StoreError;
use application::mail::Email;
use application::ports::{DigestLine, DueDigest};
use chrono::Duration;
use deadpool_postgres::{GenericClient, Transaction};
use domain::{AccountId, AlertId, MailAdmission, MailWindow, Timestamp};

type Outcome<T> = Result<T, Failure<StoreError>>;

/// Admits `mails` (in order) into `owner`'s mail window at `now`: each goes
/// into the outbox or becomes a line of the window's digest. The window row
/// is created if need be and locked first, so the admissions of racing
/// verdicts take turns. Whether any mail was queued.
pub(super) async fn admit(
    tx: &Transaction<'_>,
    owner: AccountId,
    mails: &[(&Email, &AlertId)],
    now: Timestamp,
    length: Duration,
) -> Outcome<bool> {
    if mails.is_empty() {
        return Ok(false);
    }
    // A window opened now with nothing mailed admits as no window does.
    prepared::execute(
        tx,
        "INSERT INTO alert_mail_windows (account_id, opened_time, mailed) VALUES ($1, $2, 0) \
         ON CONFLICT DO NOTHING",
        &[&owner.0, &rows::at(now)],
    )
    .await?;
    let row = prepared::query_one(
        tx,
        "SELECT opened_time, mailed FROM alert_mail_windows WHERE account_id = $1 FOR UPDATE",
        &[&owner.0],
    )
    .await?;
    let mailed: i32 = row.try_get(1).map_err(read)?;
    let mut window = MailWindow {
        opened: row.try_get(0).map_err(read)?,
        mailed: u32::try_from(mailed).unwrap_or_default(),
    };
    let (mut windows, mut subjects, mut alerts) = (vec![], vec![], vec![]);
    let mut queued = false;
    for (mail, alert) in mails {
        let (next, admission) = MailWindow::admit(Some(window), rows::at(now), length);
        window = next;
        match admission {
            MailAdmission::Mail => {
                outbox::enqueue(tx, mail, now).await?;
                queued = true;
            }
            MailAdmission::Digest(opened) => {
                windows.push(rows::at(opened));
                subjects.push(mail.subject.as_str());
                alerts.push(alert.as_str());
            }
        }
    }
    if !windows.is_empty() {
        prepared::execute(
            tx,
            "INSERT INTO alert_digest_lines (account_id, window_opened, subject, alert_id) \
             SELECT $1, l.opened, l.subject, l.alert \
             FROM UNNEST($2::timestamptz[], $3::text[], $4::text[]) WITH ORDINALITY \
                 AS l (opened, subject, alert, k) ORDER BY l.k",
            &[&owner.0, &windows, &subjects, &alerts],
        )
        .await?;
    }
    let mailed = i32::try_from(window.mailed).unwrap_or(i32::MAX);
    prepared::execute(
        tx,
        "UPDATE alert_mail_windows SET opened_time = $2, mailed = $3 WHERE account_id = $1",
        &[&owner.0, &rows::at(window.opened), &mailed],
    )
    .await?;
    Ok(queued)
}

/// The digests of windows ended by `now` (windows of `length`) that hold
/// lines, each with its account's address and its lines in the order they
/// came.
pub(super) async fn due_digests(
    c: &impl GenericClient,
    now: Timestamp,
    length: Duration,
) -> Outcome<Vec<DueDigest>> {
    let found = prepared::query(
        c,
        "SELECT l.account_id, a.email, l.window_opened, l.subject, l.alert_id \
         FROM alert_digest_lines l JOIN accounts a ON a.id = l.account_id \
         WHERE l.window_opened <= $1 ORDER BY l.account_id, l.window_opened, l.seq",
        &[&(now - length)],
    )
    .await?;
    let mut digests: Vec<DueDigest> = Vec::new();
    for row in &found {
        let owner = AccountId(row.try_get(0).map_err(read)?);
        let window_opened: Timestamp = row.try_get(2).map_err(read)?;
        let line = DigestLine {
            subject: row.try_get(3).map_err(read)?,
            alert: AlertId::from_stored(row.try_get(4).map_err(read)?),
        };
        match digests.last_mut() {
            Some(digest) if digest.owner == owner && digest.window_opened == window_opened => {
                digest.lines.push(line);
            }
            _ => digests.push(DueDigest {
                owner,
                owner_email: row.try_get(1).map_err(read)?,
                window_opened,
                lines: vec![line],
            }),
        }
    }
    Ok(digests)
}

/// Deletes the lines of `owner`'s digest of the window opened at
/// `window_opened` and, if there were any, queues `mail`: of racing
/// senders, the others find the lines gone. Whether it queued the mail
/// (as of `now`).
pub(super) async fn send_digest(
    tx: &Transaction<'_>,
    owner: AccountId,
    window_opened: Timestamp,
    mail: &Email,
    now: Timestamp,
) -> Outcome<bool> {
    let deleted = prepared::execute(
        tx,
        "DELETE FROM alert_digest_lines WHERE account_id = $1 AND window_opened = $2",
        &[&owner.0, &rows::at(window_opened)],
    )
    .await?;
    if deleted == 0 {
        return Ok(false);
    }
    outbox::enqueue(tx, mail, now).await?;
    Ok(true)
}
