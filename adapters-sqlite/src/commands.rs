use crate::rows::{self, COMMAND_COLUMNS};
use crate::store::SqliteStore;
use application::StoreError;
use application::ports::{CommandListener, CommandRepository};
use async_trait::async_trait;
use domain::{Command, CommandOutcome, Serial, Timestamp};
use rusqlite::{TransactionBehavior, params};

#[async_trait]
impl CommandRepository for SqliteStore {
    async fn queue_reboot(
        &self,
        device: &Serial,
        command_id: &str,
        now: Timestamp,
        lapse_before: Timestamp,
    ) -> Result<bool, StoreError> {
        let (serial, id) = (device.clone(), command_id.to_owned());
        let queued = self
            .run("queue reboot", move |conn| {
                // IMMEDIATE: the check and the insert see no concurrent writer in between.
                let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
                let pending: bool = tx.query_row(
                    "SELECT EXISTS (SELECT 1 FROM device_commands WHERE serial = ?1 AND action = 'reboot' \
                     AND delivered_time IS NULL AND issued_time > ?2)",
                    params![serial.as_str(), rows::to_secs(lapse_before)],
                    |row| row.get(0),
                )?;
                if !pending {
                    tx.execute(
                        "INSERT INTO device_commands (id, serial, action, issued_time) VALUES (?1, ?2, 'reboot', ?3)",
                        params![id, serial.as_str(), rows::to_secs(now)],
                    )?;
                }
                tx.commit()?;
                Ok(!pending)
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
        let serial = device.clone();
        let mut commands = self
            .run("hand out commands", move |conn| {
                // Most polls find nothing: a read tells so without the write lock.
                let any_pending: bool = conn
                    .prepare_cached(
                        "SELECT EXISTS (SELECT 1 FROM device_commands \
                         WHERE serial = ?1 AND delivered_time IS NULL AND issued_time > ?2)",
                    )?
                    .query_row(
                        params![serial.as_str(), rows::to_secs(lapse_before)],
                        |row| row.get(0),
                    )?;
                if !any_pending {
                    return Ok(Vec::new());
                }
                // One statement: two polls of one device never both get a command.
                conn.prepare_cached(&format!(
                    "UPDATE device_commands SET delivered_time = ?2 \
                     WHERE serial = ?1 AND delivered_time IS NULL AND issued_time > ?3 \
                     RETURNING {COMMAND_COLUMNS}"
                ))?
                .query_map(
                    params![
                        serial.as_str(),
                        rows::to_secs(now),
                        rows::to_secs(lapse_before)
                    ],
                    rows::command,
                )?
                .collect::<rusqlite::Result<Vec<Command>>>()
            })
            .await?;
        commands.sort_by(|a, b| (a.issued_time, &a.id).cmp(&(b.issued_time, &b.id)));
        Ok(commands)
    }

    async fn acknowledge(
        &self,
        device: &Serial,
        command_id: &str,
        outcome: &CommandOutcome,
        now: Timestamp,
    ) -> Result<bool, StoreError> {
        let (serial, id, outcome) = (device.clone(), command_id.to_owned(), outcome.clone());
        self.run("acknowledge command", move |conn| {
            let recorded = conn.execute(
                "UPDATE device_commands SET acked_time = ?3, status = ?4, detail = ?5, \
                 delivered_time = COALESCE(delivered_time, ?3) \
                 WHERE id = ?1 AND serial = ?2 AND acked_time IS NULL",
                params![
                    id,
                    serial.as_str(),
                    rows::to_secs(now),
                    outcome.status.code(),
                    outcome.detail
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

    async fn purge_commands(&self, issued_before: Timestamp) -> Result<(), StoreError> {
        let before = rows::to_secs(issued_before);
        self.run("purge old commands", move |conn| {
            conn.prepare_cached("DELETE FROM device_commands WHERE issued_time < ?1")?
                .execute([before])
                .map(drop)
        })
        .await
    }

    fn listen(&self, device: &Serial) -> Box<dyn CommandListener> {
        Box::new(self.command_signals.listen(device))
    }
}
