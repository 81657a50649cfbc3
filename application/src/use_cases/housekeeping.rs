//! Forgetting what is no longer needed, so tables cannot grow without bound.

use super::DevMgr;
use crate::ports::StoreError;

impl DevMgr {
    /// Forgets expired and used e-mailed keys, and commands issued longer
    /// ago than the retention (acknowledged or lapsed long since).
    pub async fn purge_expired(&self) -> Result<(), StoreError> {
        let now = self.ports.clock.now();
        self.ports.keys.purge_keys(now).await?;
        self.ports
            .commands
            .purge_commands(now - self.settings.command_retention)
            .await
    }
}

#[cfg(test)]
mod tests {
    use crate::use_cases::test_support::{Harness, now};
    use mockall::predicate::eq;

    #[tokio::test]
    async fn keys_expired_now_and_commands_older_than_30_days_go() {
        let mut h = Harness::new();
        h.keys
            .expect_purge_keys()
            .with(eq(now()))
            .times(1)
            .returning(|_| Ok(()));
        h.commands
            .expect_purge_commands()
            .with(eq(now() - chrono::Duration::days(30)))
            .times(1)
            .returning(|_| Ok(()));
        h.app().purge_expired().await.unwrap();
    }
}
