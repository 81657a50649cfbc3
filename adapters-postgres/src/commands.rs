use crate::notifications::COMMANDS_CHANNEL;
use crate::prepared;
use crate::rows::{self, COMMAND_COLUMNS, COMMAND_RECORD_COLUMNS};
use crate::store::PgStore;
use application::StoreError;
use application::ports::{CommandListener, CommandRepository, QueuedReboot};
use async_trait::async_trait;
use domain::{
    AccountId, AuditAction, AuditDetail, AuditNote, AuditTarget, Command, CommandId,
    CommandOutcome, CommandRecord, CommandStatus, Origin, Serial, Timestamp,
};
use tokio_postgres::Row;

/// The device `$1`'s commands that are due at `$2`: never acknowledged,
/// issued after `$3`, and never handed out or last handed out at or before `$4`.
const DUE: &str = "serial = $1 AND status IS NULL AND issued_time > $3 \
     AND (delivered_time IS NULL OR delivered_time <= $4)";

/// Appends the `device.reboot` entry naming the command a person's request
/// (`origin`) queued or joined, to the log of the device's account
/// (`owner`; none for a device that is not there), as the transaction's last
/// statements (docs/audit.md).
async fn note_reboot(
    c: &impl deadpool_postgres::GenericClient,
    owner: Option<i64>,
    serial: &Serial,
    reboot: &QueuedReboot,
    origin: Option<Origin>,
) -> Result<(), tokio_postgres::Error> {
    let (Some(owner), Some(origin)) = (owner, origin) else {
        return Ok(());
    };
    let note = AuditNote::with_detail(
        origin,
        AuditAction::DeviceReboot,
        AuditTarget::device(serial),
        AuditDetail::Command(reboot.command.command.id.clone()),
    );
    crate::audit::append_one(c, AccountId(owner), &note).await
}

#[async_trait]
impl CommandRepository for PgStore {
    async fn queue_reboot(
        &self,
        device: &Serial,
        command_id: &CommandId,
        now: Timestamp,
        lapse_before: Timestamp,
        origin: Option<&Origin>,
    ) -> Result<QueuedReboot, StoreError> {
        let reboot = self
            .transaction("queue reboot", |tx| {
                let (serial, id) = (device.clone(), command_id.as_str().to_owned());
                let origin = origin.cloned();
                Box::pin(async move {
                    // Locking the device makes concurrent requests take turns:
                    // the second sees (and joins) the first one's command.
                    let owner = prepared::query_opt(
                        tx,
                        "SELECT account_id FROM devices WHERE serial = $1 FOR UPDATE",
                        &[&serial.as_str()],
                    )
                    .await?;
                    let owner = owner.as_ref().map(|row: &Row| row.try_get(0)).transpose()?;
                    let owner: Option<i64> = owner;
                    let unfinished = format!(
                        "SELECT {COMMAND_RECORD_COLUMNS} FROM device_commands WHERE serial = $1 \
                         AND action = 'reboot' AND (status IS NULL OR status = 'received') \
                         AND issued_time > $2 ORDER BY seq DESC LIMIT 1"
                    );
                    let found = prepared::query_opt(
                        tx,
                        &unfinished,
                        &[&serial.as_str(), &rows::at(lapse_before)],
                    )
                    .await?;
                    if let Some(row) = found {
                        let reboot = QueuedReboot {
                            command: rows::command_record(&row)?,
                            queued: false,
                        };
                        note_reboot(tx, owner, &serial, &reboot, origin).await?;
                        return Ok(reboot);
                    }
                    let insert = format!(
                        "INSERT INTO device_commands (id, serial, action, issued_time) \
                         VALUES ($1, $2, 'reboot', $3) RETURNING {COMMAND_RECORD_COLUMNS}"
                    );
                    let row =
                        prepared::query_one(tx, &insert, &[&id, &serial.as_str(), &rows::at(now)])
                            .await?;
                    prepared::execute(
                        tx,
                        "SELECT pg_notify($1, $2)",
                        &[&COMMANDS_CHANNEL, &serial.as_str()],
                    )
                    .await?;
                    let reboot = QueuedReboot {
                        command: rows::command_record(&row)?,
                        queued: true,
                    };
                    note_reboot(tx, owner, &serial, &reboot, origin).await?;
                    Ok(reboot)
                })
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
        self.run("read a command", |c| {
            let (serial, id) = (device.clone(), command_id.as_str().to_owned());
            Box::pin(async move {
                let sql = format!(
                    "SELECT {COMMAND_RECORD_COLUMNS} FROM device_commands \
                     WHERE id = $1 AND serial = $2 AND EXISTS \
                         (SELECT 1 FROM devices WHERE serial = $2 AND account_id = $3)"
                );
                let row = prepared::query_opt(c, &sql, &[&id, &serial.as_str(), &owner.0]).await?;
                Ok(row.as_ref().map(rows::command_record).transpose()?)
            })
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
        let mut commands = self
            .run("hand out commands", |c| {
                let serial = device.clone();
                Box::pin(async move {
                    // One statement: two polls of one device never both get a
                    // command (the second re-checks the row once the first
                    // commits, and finds it just handed out).
                    let sql = format!(
                        "UPDATE device_commands SET delivered_time = $2 WHERE {DUE} \
                         RETURNING {COMMAND_COLUMNS}, seq"
                    );
                    let found = prepared::query(
                        c,
                        &sql,
                        &[
                            &serial.as_str(),
                            &rows::at(now),
                            &rows::at(lapse_before),
                            &rows::at(redeliver_before),
                        ],
                    )
                    .await?;
                    let mut commands = Vec::with_capacity(found.len());
                    for row in &found {
                        let seq: i64 = row.try_get(3).map_err(rows::read)?;
                        commands.push((rows::command(row)?, seq));
                    }
                    Ok(commands)
                })
            })
            .await?;
        commands.sort_by_key(|(_, seq)| *seq);
        Ok(commands.into_iter().map(|(command, _)| command).collect())
    }

    async fn last_unacknowledged_delivery(
        &self,
        device: &Serial,
        lapse_before: Timestamp,
    ) -> Result<Option<Timestamp>, StoreError> {
        self.run("find unacknowledged commands", |c| {
            let serial = device.clone();
            Box::pin(async move {
                let row = prepared::query_one(
                    c,
                    "SELECT MIN(delivered_time) FROM device_commands \
                     WHERE serial = $1 AND status IS NULL AND issued_time > $2 \
                     AND delivered_time IS NOT NULL",
                    &[&serial.as_str(), &rows::at(lapse_before)],
                )
                .await?;
                Ok(row.try_get::<_, Option<Timestamp>>(0)?)
            })
        })
        .await
    }

    async fn history(
        &self,
        device: &Serial,
        limit: usize,
    ) -> Result<Vec<CommandRecord>, StoreError> {
        self.run("read command history", |c| {
            let serial = device.clone();
            let limit = i64::try_from(limit).unwrap_or(i64::MAX);
            Box::pin(async move {
                let sql = format!(
                    "SELECT {COMMAND_RECORD_COLUMNS} FROM device_commands WHERE serial = $1 \
                     ORDER BY seq DESC LIMIT $2"
                );
                let found = prepared::query(c, &sql, &[&serial.as_str(), &limit]).await?;
                Ok(rows::all(&found, rows::command_record)?)
            })
        })
        .await
    }

    async fn purge_commands(&self, issued_before: Timestamp) -> Result<(), StoreError> {
        self.run("purge old commands", |c| {
            Box::pin(async move {
                // Job targets read through a purged command keep its final
                // status (all of them are old enough to have ended or lapsed).
                prepared::execute(
                    c,
                    "WITH purged AS (DELETE FROM device_commands WHERE issued_time < $1 \
                     RETURNING id, status, detail) \
                     UPDATE job_targets t SET detail = COALESCE(p.detail, ''), status = \
                     CASE WHEN p.status IN ('done', 'failed') THEN p.status ELSE 'lapsed' END \
                     FROM purged p WHERE t.command_id = p.id AND t.status IS NULL",
                    &[&rows::at(issued_before)],
                )
                .await?;
                Ok(())
            })
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
        self.run("acknowledge command", |c| {
            let (serial, id, outcome) = (
                device.clone(),
                command_id.as_str().to_owned(),
                outcome.clone(),
            );
            Box::pin(async move {
                // `received` only before any report; an outcome until one is in.
                let sql = if outcome.status == CommandStatus::Received {
                    "UPDATE device_commands SET acked_time = $3, status = $4, detail = $5, \
                     delivered_time = COALESCE(delivered_time, $3) \
                     WHERE id = $1 AND serial = $2 AND status IS NULL"
                } else {
                    "UPDATE device_commands SET acked_time = $3, status = $4, detail = $5, \
                     delivered_time = COALESCE(delivered_time, $3) \
                     WHERE id = $1 AND serial = $2 AND (status IS NULL OR status = 'received')"
                };
                let recorded = prepared::execute(
                    c,
                    sql,
                    &[
                        &id,
                        &serial.as_str(),
                        &rows::at(now),
                        &outcome.status.code(),
                        &outcome.detail.as_str(),
                    ],
                )
                .await?;
                if recorded > 0 {
                    return Ok(true);
                }
                let exists: bool = prepared::query_one(
                    c,
                    "SELECT EXISTS (SELECT 1 FROM device_commands \
                         WHERE id = $1 AND serial = $2)",
                    &[&id, &serial.as_str()],
                )
                .await?
                .try_get(0)?;
                Ok(exists)
            })
        })
        .await
    }

    fn listen(&self, device: &Serial) -> Box<dyn CommandListener> {
        Box::new(self.wakeups.listen(device))
    }
}
