use crate::rows;
use crate::store::SqliteStore;
use application::StoreError;
use application::ports::CommandRepository;
use async_trait::async_trait;
use domain::{Serial, Timestamp};
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
        self.run("queue reboot", move |conn| {
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
        .await
    }
}
