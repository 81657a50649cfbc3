//! Keeping targets' statuses before the commands they are read through go:
//! when a device is deleted (its commands go with it) and when old commands
//! are purged. A target whose status is kept no longer depends on its
//! command (docs/architecture.md, "Fleet jobs").

use rusqlite::{Connection, params};

/// Keeps the statuses of the unkept targets of the device `?1` whose
/// command ended, if the account `?2` has the device.
pub(super) const KEEP_ENDED_OF_DEVICE: &str = "UPDATE job_targets \
     SET status = c.status, detail = COALESCE(c.detail, '') FROM device_commands AS c \
     WHERE job_targets.serial = ?1 AND job_targets.status IS NULL \
     AND c.id = job_targets.command_id AND c.status IN ('done', 'failed') \
     AND EXISTS (SELECT 1 FROM devices WHERE serial = ?1 AND account_id = ?2)";

/// Keeps the statuses of the unkept targets of the commands issued before
/// `?1`: done or failed as they ended, else lapsed.
pub(super) const KEEP_PURGED: &str = "UPDATE job_targets \
     SET status = CASE WHEN c.status IN ('done', 'failed') THEN c.status ELSE 'lapsed' END, \
         detail = COALESCE(c.detail, '') \
     FROM device_commands AS c \
     WHERE c.issued_time < ?1 AND job_targets.command_id = c.id AND job_targets.status IS NULL";

/// Before the device `serial` of `owner` is deleted: keeps the status and
/// detail of its targets whose command has ended (`done` or `failed`), so
/// they stay as they ended; the others, their command gone, read as
/// `skipped`. (A command that lapsed unacknowledged reads as skipped too:
/// the deletion does not know the commands' lifetime.) Nothing happens
/// unless `owner` has the device.
pub(crate) fn before_device_deleted(
    conn: &Connection,
    owner: i64,
    serial: &str,
) -> rusqlite::Result<usize> {
    conn.prepare_cached(KEEP_ENDED_OF_DEVICE)?
        .execute(params![serial, owner])
}

/// Before the commands issued before `before` are purged (all long ended
/// or lapsed): keeps the status of the targets read through them, `done`
/// or `failed` as they ended, else `lapsed`, with their detail.
pub(crate) fn before_commands_purged(conn: &Connection, before: i64) -> rusqlite::Result<usize> {
    conn.prepare_cached(KEEP_PURGED)?.execute([before])
}
