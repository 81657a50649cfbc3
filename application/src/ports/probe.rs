//! What a store says about itself: whether it answers at all (readiness) and
//! the counts an operator's monitoring graphs (metrics).

use async_trait::async_trait;
#[cfg(any(test, feature = "mocks"))]
use mockall::automock;

use super::StoreError;
use domain::{CommandState, Timestamp};

/// Health and counts of the whole store, over every account.
#[cfg_attr(any(test, feature = "mocks"), automock)]
#[async_trait]
pub trait StoreProbe: Send + Sync {
    /// Runs a trivial query: `Ok` once the database answered.
    async fn ping(&self) -> Result<(), StoreError>;
    /// Counts devices (online: a heartbeat after `online_after`, as
    /// [`domain::Device::is_online`] has it), commands by state (one never
    /// acknowledged and issued at or before `lapsed_before` is lapsed, as
    /// [`domain::CommandRecord::state`] has it) and mail waiting in the
    /// outbox, in a fixed number of queries whatever the fleet's size.
    async fn census(
        &self,
        online_after: Timestamp,
        lapsed_before: Timestamp,
    ) -> Result<Census, StoreError>;
}

/// The store's counts at one moment.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Census {
    /// Every device.
    pub devices: u64,
    /// Devices with a recent heartbeat.
    pub devices_online: u64,
    /// Commands still remembered, by state.
    pub commands: CommandCounts,
    /// Mail queued and not yet delivered (nor given up on).
    pub outbox_backlog: u64,
}

/// How many commands are in each [`CommandState`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CommandCounts {
    /// Not handed out yet.
    pub pending: u64,
    /// Handed out, not acknowledged.
    pub delivered: u64,
    /// Acknowledged as received.
    pub received: u64,
    /// Carried out.
    pub done: u64,
    /// Could not be carried out.
    pub failed: u64,
    /// Never acknowledged, now too old.
    pub lapsed: u64,
}

impl CommandCounts {
    /// Every state with its count, in [`CommandState`] order.
    pub fn by_state(&self) -> [(CommandState, u64); 6] {
        [
            (CommandState::Pending, self.pending),
            (CommandState::Delivered, self.delivered),
            (CommandState::Received, self.received),
            (CommandState::Done, self.done),
            (CommandState::Failed, self.failed),
            (CommandState::Lapsed, self.lapsed),
        ]
    }

    /// Adds `count` commands in `state`.
    pub fn add(&mut self, state: CommandState, count: u64) {
        let slot = match state {
            CommandState::Pending => &mut self.pending,
            CommandState::Delivered => &mut self.delivered,
            CommandState::Received => &mut self.received,
            CommandState::Done => &mut self.done,
            CommandState::Failed => &mut self.failed,
            CommandState::Lapsed => &mut self.lapsed,
        };
        *slot += count;
    }
}
