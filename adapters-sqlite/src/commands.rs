use crate::rows::{self, COMMAND_COLUMNS, COMMAND_RECORD_COLUMNS, command_record_columns};
use crate::store::SqliteStore;
use application::StoreError;
use application::ports::{CommandListener, CommandRepository, QueuedReboot};
use async_trait::async_trait;
use domain::{
    AccountId, AuditAction, AuditDetail, AuditNote, AuditTarget, Command, CommandId,
    CommandOutcome, CommandRecord, CommandStatus, Origin, Serial, Timestamp,
};
use rusqlite::{OptionalExtension, TransactionBehavior, params};

/// The device `?1`'s commands that are due at `?2`: never acknowledged,
/// issued after `?3`, and never handed out or last handed out at or before `?4`.
const DUE: &str = "serial = ?1 AND status IS NULL AND issued_time > ?3 \
     AND (delivered_time IS NULL OR delivered_time <= ?4)";

/// Appends the `device.reboot` entry naming the command a person's request
/// queued or joined, to the log of the device's account (docs/audit.md).
fn note_reboot(
    conn: &rusqlite::Connection,
    serial: &Serial,
    reboot: &QueuedReboot,
    origin: Origin,
) -> rusqlite::Result<()> {
    let owner: Option<i64> = conn
        .prepare_cached("SELECT account_id FROM devices WHERE serial = ?1")?
        .query_row([serial.as_str()], |row| row.get(0))
        .optional()?;
    let Some(owner) = owner else {
        return Ok(());
    };
    let note = AuditNote::with_detail(
        origin,
        AuditAction::DeviceReboot,
        AuditTarget::device(serial),
        AuditDetail::Command(reboot.command.command.id.clone()),
    );
    crate::audit::append_one(conn, AccountId(owner), &note)
}

#[async_trait]
impl CommandRepository for SqliteStore {
    async fn queue_reboot(
        &self,
        device: &Serial,
        command_id: &CommandId,
        now: Timestamp,
        lapse_before: Timestamp,
        origin: Option<&Origin>,
    ) -> Result<QueuedReboot, StoreError> {
        let (serial, id) = (device.clone(), command_id.as_str().to_owned());
        let origin = origin.cloned();
        let reboot = self
            .write_grouped("queue reboot", move |conn| {
                // In the writer's transaction: the check and the insert see no
                // concurrent writer in between.
                let unfinished = conn
                    .prepare_cached(concat!(
                        "SELECT ",
                        command_record_columns!(),
                        " FROM device_commands \
                         WHERE serial = ?1 AND action = 'reboot' \
                         AND (status IS NULL OR status = 'received') AND issued_time > ?2 \
                         ORDER BY seq DESC, issued_time DESC, id DESC LIMIT 1"
                    ))?
                    .query_row(
                        params![serial.as_str(), rows::to_secs(lapse_before)],
                        rows::command_record,
                    )
                    .optional()?;
                let reboot = match unfinished {
                    Some(command) => QueuedReboot {
                        command,
                        queued: false,
                    },
                    None => QueuedReboot {
                        command: conn
                            .prepare_cached(concat!(
                                "INSERT INTO device_commands (id, serial, action, issued_time, seq) \
                                 VALUES (?1, ?2, 'reboot', ?3, \
                                         (SELECT COALESCE(MAX(seq), 0) + 1 FROM device_commands \
                                          WHERE serial = ?2)) \
                                 RETURNING ",
                                command_record_columns!()
                            ))?
                            .query_row(
                                params![id, serial.as_str(), rows::to_secs(now)],
                                rows::command_record,
                            )?,
                        queued: true,
                    },
                };
                if let Some(origin) = origin {
                    note_reboot(conn, &serial, &reboot, origin)?;
                }
                Ok(reboot)
            })
            .await?;
        if reboot.queued {
            self.wakeups.wake(device);
        }
        Ok(reboot)
    }

    async fn find_command(
        &self,
        owner: AccountId,
        device: &Serial,
        command_id: &CommandId,
    ) -> Result<Option<CommandRecord>, StoreError> {
        let (serial, id) = (device.clone(), command_id.as_str().to_owned());
        self.run("read a command", move |conn| {
            conn.prepare_cached(&format!(
                "SELECT {COMMAND_RECORD_COLUMNS} FROM device_commands \
                 WHERE id = ?1 AND serial = ?2 AND EXISTS \
                     (SELECT 1 FROM devices WHERE serial = ?2 AND account_id = ?3)"
            ))?
            .query_row(params![id, serial.as_str(), owner.0], rows::command_record)
            .optional()
        })
        .await
    }

    async fn take_due(
        &self,
        device: &Serial,
        now: Timestamp,
        lapse_before: Timestamp,
        redeliver_before: Timestamp,
    ) -> Result<Vec<Command>, StoreError> {
        let serial = device.clone();
        let times = [now, lapse_before, redeliver_before].map(rows::to_secs);
        self.run("hand out commands", move |conn| {
            let [now, lapse_before, redeliver_before] = times;
            let at = params![serial.as_str(), now, lapse_before, redeliver_before];
            // Most polls find nothing: a read tells so without the write lock.
            let any_due: bool = conn
                .prepare_cached(&format!(
                    "SELECT EXISTS (SELECT 1 FROM device_commands WHERE {DUE})"
                ))?
                .query_row(at, |row| row.get(0))?;
            if !any_due {
                return Ok(Vec::new());
            }
            // One statement: two polls of one device never both get a command.
            conn.prepare_cached(&format!(
                "UPDATE device_commands SET delivered_time = ?2 WHERE {DUE} \
                 RETURNING {COMMAND_COLUMNS}, seq"
            ))?
            .query_map(at, |row| Ok((rows::command(row)?, row.get::<_, i64>(3)?)))?
            .collect::<rusqlite::Result<Vec<(Command, i64)>>>()
            .map(oldest_first)
        })
        .await
    }

    async fn last_unacknowledged_delivery(
        &self,
        device: &Serial,
        lapse_before: Timestamp,
    ) -> Result<Option<Timestamp>, StoreError> {
        let serial = device.clone();
        let lapse_before = rows::to_secs(lapse_before);
        self.run("find unacknowledged commands", move |conn| {
            conn.prepare_cached(
                "SELECT MIN(delivered_time) FROM device_commands \
                 WHERE serial = ?1 AND status IS NULL AND issued_time > ?2 \
                 AND delivered_time IS NOT NULL",
            )?
            .query_row(params![serial.as_str(), lapse_before], |row| {
                row.get::<_, Option<i64>>(0)
            })
            .map(|at| at.map(rows::from_secs))
        })
        .await
    }

    async fn acknowledge(
        &self,
        device: &Serial,
        command_id: &CommandId,
        outcome: &CommandOutcome,
        now: Timestamp,
    ) -> Result<bool, StoreError> {
        let (serial, id, outcome) = (
            device.clone(),
            command_id.as_str().to_owned(),
            outcome.clone(),
        );
        self.run("acknowledge command", move |conn| {
            // `received` only before any report; an outcome until one is in.
            let open = if outcome.status == CommandStatus::Received {
                "status IS NULL"
            } else {
                "(status IS NULL OR status = 'received')"
            };
            let recorded = conn.execute(
                &format!(
                    "UPDATE device_commands SET acked_time = ?3, status = ?4, detail = ?5, \
                     delivered_time = COALESCE(delivered_time, ?3) \
                     WHERE id = ?1 AND serial = ?2 AND {open}"
                ),
                params![
                    id,
                    serial.as_str(),
                    rows::to_secs(now),
                    outcome.status.code(),
                    outcome.detail.as_str()
                ],
            )?;
            if recorded > 0 {
                return Ok(true);
            }
            conn.query_row(
                "SELECT EXISTS (SELECT 1 FROM device_commands WHERE id = ?1 AND serial = ?2)",
                params![id, serial.as_str()],
                |row| row.get(0),
            )
        })
        .await
    }

    async fn history(
        &self,
        device: &Serial,
        limit: usize,
    ) -> Result<Vec<CommandRecord>, StoreError> {
        let serial = device.clone();
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        self.run("read command history", move |conn| {
            conn.prepare_cached(&format!(
                "SELECT {COMMAND_RECORD_COLUMNS} FROM device_commands WHERE serial = ?1 \
                 ORDER BY seq DESC, issued_time DESC, id DESC LIMIT ?2"
            ))?
            .query_map(params![serial.as_str(), limit], rows::command_record)?
            .collect()
        })
        .await
    }

    async fn purge_commands(&self, issued_before: Timestamp) -> Result<(), StoreError> {
        let before = rows::to_secs(issued_before);
        self.write("purge old commands", move |conn| {
            let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
            // The job targets read through them keep how they ended.
            crate::jobs::before_commands_purged(&tx, before)?;
            tx.prepare_cached("DELETE FROM device_commands WHERE issued_time < ?1")?
                .execute([before])?;
            tx.commit()
        })
        .await
    }

    fn listen(&self, device: &Serial) -> Box<dyn CommandListener> {
        Box::new(self.wakeups.listen(device))
    }
}

/// The commands in the order they were requested.
fn oldest_first(mut commands: Vec<(Command, i64)>) -> Vec<Command> {
    commands.sort_by_key(|(_, seq)| *seq);
    commands.into_iter().map(|(command, _)| command).collect()
}
