//! What health checks and metrics ask of the store.

use crate::ports::{Census, Clock, StoreError, StoreProbe};
use chrono::Duration;
use std::sync::Arc;

/// Readiness and the store's counts, for probes and metrics.
#[derive(Clone)]
pub struct Probes {
    pub(super) probe: Arc<dyn StoreProbe>,
    pub(super) clock: Arc<dyn Clock>,
    pub(super) online_window: Duration,
    pub(super) command_lifetime: Duration,
}

impl Probes {
    /// `Ok` once the database answered a trivial query. The caller bounds
    /// how long it waits.
    pub async fn database(&self) -> Result<(), StoreError> {
        self.probe.ping().await
    }

    /// Devices, devices online, commands by state and the outbox backlog,
    /// over every account, now.
    pub async fn census(&self) -> Result<Census, StoreError> {
        let now = self.clock.now();
        self.probe
            .census(now - self.online_window, now - self.command_lifetime)
            .await
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{Harness, now};
    use crate::ports::{Census, StoreError};
    use chrono::Duration;

    #[tokio::test]
    async fn the_census_asks_with_the_online_window_and_the_command_lifetime() {
        let mut h = Harness::new();
        h.probe
            .expect_census()
            .withf(|online_after, lapsed_before| {
                *online_after == now() - Duration::seconds(90)
                    && *lapsed_before == now() - Duration::minutes(10)
            })
            .times(1)
            .returning(|_, _| {
                Ok(Census {
                    devices: 3,
                    devices_online: 2,
                    ..Census::default()
                })
            });
        let census = h.app().probes.census().await.unwrap();
        assert_eq!((census.devices, census.devices_online), (3, 2));
    }

    #[tokio::test]
    async fn a_database_that_fails_the_ping_is_reported() {
        let mut h = Harness::new();
        h.probe
            .expect_ping()
            .times(1)
            .returning(|| Err(StoreError::unavailable("ping")));
        let error = h.app().probes.database().await.unwrap_err();
        assert!(error.is_unavailable());
    }
}
