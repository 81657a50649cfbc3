//! Forgetting what is no longer needed, so tables cannot grow without bound.

use super::lockout::Lockout;
use crate::ports::{
    Clock, CommandRepository, ConsoleSessionRepository, EmailKeyRepository, StoreError,
};
use chrono::Duration;
use std::sync::Arc;

/// Purges of what is no longer needed.
#[derive(Clone)]
pub struct Housekeeping {
    pub(super) keys: Arc<dyn EmailKeyRepository>,
    pub(super) commands: Arc<dyn CommandRepository>,
    pub(super) console_sessions: Arc<dyn ConsoleSessionRepository>,
    pub(super) clock: Arc<dyn Clock>,
    pub(super) command_retention: Duration,
    pub(super) console_idle: Duration,
    pub(super) lockout: Lockout,
}

impl Housekeeping {
    /// Forgets expired and used e-mailed keys, idle console sessions, and
    /// commands issued longer ago than the retention (acknowledged or lapsed
    /// long since).
    pub async fn purge_expired(&self) -> Result<(), StoreError> {
        let now = self.clock.now();
        self.keys.purge_keys(now).await?;
        self.console_sessions
            .purge_sessions(now - self.console_idle)
            .await?;
        self.commands
            .purge_commands(now - self.command_retention)
            .await
    }

    /// Forgets failed logins and locks that are over.
    pub async fn purge_login_failures(&self) -> Result<(), StoreError> {
        self.lockout.purge().await
    }
}

#[cfg(test)]
mod tests;
