use crate::notifications::COMMANDS_CHANNEL;
use crate::prepared;
use crate::rows::{self, COMMAND_COLUMNS};
use crate::store::PgStore;
use application::StoreError;
use application::ports::{CommandListener, CommandRepository};
use async_trait::async_trait;
use domain::{Command, CommandOutcome, Serial, Timestamp};

#[async_trait]
impl CommandRepository for PgStore {
    async fn queue_reboot(
        &self,
        device: &Serial,
        command_id: &str,
        now: Timestamp,
        lapse_before: Timestamp,
    ) -> Result<bool, StoreError> {
        let queued = self
            .transaction("queue reboot", |tx| {
                let (serial, id) = (device.clone(), command_id.to_owned());
                Box::pin(async move {
                    // Locking the device makes concurrent requests take turns:
                    // the second sees the first one's command.
                    prepared::execute(
                        tx,
                        "SELECT 1 FROM devices WHERE serial = $1 FOR UPDATE",
                        &[&serial.as_str()],
                    )
                    .await?;
                    let pending: bool = prepared::query_one(
                        tx,
                        "SELECT EXISTS (SELECT 1 FROM device_commands WHERE serial = $1 \
                             AND action = 'reboot' AND delivered_time IS NULL \
                             AND issued_time > $2)",
                        &[&serial.as_str(), &rows::at(lapse_before)],
                    )
                    .await?
                    .try_get(0)?;
                    if pending {
                        return Ok(false);
                    }
                    prepared::execute(
                        tx,
                        "INSERT INTO device_commands (id, serial, action, issued_time) \
                         VALUES ($1, $2, 'reboot', $3)",
                        &[&id, &serial.as_str(), &rows::at(now)],
                    )
                    .await?;
                    prepared::execute(
                        tx,
                        "SELECT pg_notify($1, $2)",
                        &[&COMMANDS_CHANNEL, &serial.as_str()],
                    )
                    .await?;
                    Ok(true)
                })
            })
            .await?;
        if queued {
            self.command_signals.wake(device);
        }
        Ok(queued)
    }

    async fn take_pending(
        &self,
        device: &Serial,
        now: Timestamp,
        lapse_before: Timestamp,
    ) -> Result<Vec<Command>, StoreError> {
        let mut commands = self
            .run("hand out commands", |c| {
                let serial = device.clone();
                Box::pin(async move {
                    // One statement: two polls of one device never both get a
                    // command (the second re-checks delivered_time once the
                    // first commits).
                    let sql = format!(
                        "UPDATE device_commands SET delivered_time = $2 \
                         WHERE serial = $1 AND delivered_time IS NULL AND issued_time > $3 \
                         RETURNING {COMMAND_COLUMNS}"
                    );
                    let found = prepared::query(
                        c,
                        &sql,
                        &[&serial.as_str(), &rows::at(now), &rows::at(lapse_before)],
                    )
                    .await?;
                    Ok(rows::all(&found, rows::command)?)
                })
            })
            .await?;
        commands.sort_by(|a, b| (a.issued_time, &a.id).cmp(&(b.issued_time, &b.id)));
        Ok(commands)
    }

    async fn purge_commands(&self, issued_before: Timestamp) -> Result<(), StoreError> {
        self.run("purge old commands", |c| {
            Box::pin(async move {
                prepared::execute(
                    c,
                    "DELETE FROM device_commands WHERE issued_time < $1",
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
        command_id: &str,
        outcome: &CommandOutcome,
        now: Timestamp,
    ) -> Result<bool, StoreError> {
        self.run("acknowledge command", |c| {
            let (serial, id, outcome) = (device.clone(), command_id.to_owned(), outcome.clone());
            Box::pin(async move {
                let recorded = prepared::execute(
                    c,
                    "UPDATE device_commands SET acked_time = $3, status = $4, detail = $5, \
                         delivered_time = COALESCE(delivered_time, $3) \
                         WHERE id = $1 AND serial = $2 AND acked_time IS NULL",
                    &[
                        &id,
                        &serial.as_str(),
                        &rows::at(now),
                        &outcome.status.code(),
                        &outcome.detail,
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
        Box::new(self.command_signals.listen(device))
    }
}
