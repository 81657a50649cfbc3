//! The monitor engine: evaluates every monitor, records what it decided,
//! and sends the digests of alert mail windows that have ended. Each
//! monitor's verdict is one conditional transaction in the store, so of
//! several instances evaluating at once, each alert opens, resolves and is
//! notified exactly once.

use super::super::secrets::Secrets;
use super::verdicts::VerdictMaker;
use crate::mail;
use crate::ports::{Clock, EventData, FleetSignals, MonitorRepository, StoreError};
use chrono::Duration;
use std::collections::BTreeSet;
use std::sync::Arc;

/// The monitor engine: [`tick`](Self::tick) evaluates every monitor once.
#[derive(Clone)]
pub struct MonitorEngine {
    pub(in crate::use_cases) monitors: Arc<dyn MonitorRepository>,
    pub(in crate::use_cases) clock: Arc<dyn Clock>,
    pub(in crate::use_cases) secrets: Secrets,
    pub(in crate::use_cases) signals: Arc<dyn FleetSignals>,
    pub(in crate::use_cases) event_data: Arc<dyn EventData>,
    pub(in crate::use_cases) online_window: Duration,
    pub(in crate::use_cases) mail_window: Duration,
}

impl MonitorEngine {
    /// Evaluates every monitor now, opening and resolving alerts with their
    /// notices, then sends the digests that are due. A monitor whose verdict
    /// fails to be recorded is logged and evaluated again on the next tick;
    /// the others go on. Returns how many alerts opened or resolved.
    pub async fn tick(&self) -> Result<usize, StoreError> {
        let now = self.clock.now();
        let watches = self
            .monitors
            .watch_monitors(now, now - self.online_window)
            .await?;
        let maker = VerdictMaker {
            now,
            online_window: self.online_window,
            secrets: &self.secrets,
            event_data: self.event_data.as_ref(),
        };
        let mut changes = 0;
        let mut owners = BTreeSet::new();
        for watch in &watches {
            let verdict = maker.decide(watch);
            if VerdictMaker::is_idle(watch, &verdict) {
                continue;
            }
            match self
                .monitors
                .apply_verdict(&verdict, now, self.mail_window)
                .await
            {
                Ok(applied) => {
                    for alert in &applied.opened {
                        tracing::info!(monitor = %verdict.monitor, alert = %alert, "alert opened");
                    }
                    for alert in &applied.resolved {
                        tracing::info!(monitor = %verdict.monitor, alert = %alert, "alert resolved");
                    }
                    let changed = applied.opened.len() + applied.resolved.len();
                    if changed > 0 {
                        owners.insert(verdict.owner);
                    }
                    changes += changed;
                }
                Err(error) => {
                    tracing::error!(monitor = %verdict.monitor, error = ?error, "monitor verdict failed");
                }
            }
        }
        self.send_digests().await?;
        for owner in owners {
            self.signals.announce(owner).await;
        }
        Ok(changes)
    }

    /// Sends the digest of each alert mail window that has ended.
    async fn send_digests(&self) -> Result<(), StoreError> {
        let now = self.clock.now();
        for digest in self.monitors.due_digests(now, self.mail_window).await? {
            let lines: Vec<(String, String)> = digest
                .lines
                .iter()
                .map(|line| (line.subject.clone(), line.alert.to_string()))
                .collect();
            let mail = mail::alert_digest(self.secrets.mint_mail_id(), &digest.owner_email, &lines);
            if self
                .monitors
                .send_digest(digest.owner, digest.window_opened, &mail, now)
                .await?
            {
                tracing::info!(notifications = lines.len(), "alert digest queued");
            }
        }
        Ok(())
    }
}

#[cfg(test)]
#[path = "engine_tests.rs"]
mod tests;
