//! Fixtures of commands: queuing, taking and acknowledging them.

use crate::{Store, lapse, text};
use domain::command::REDELIVERY_AFTER;
use domain::{Command, CommandOutcome, CommandStatus, Serial, Timestamp};

/// A successful outcome.
pub fn done(detail: &str) -> CommandOutcome {
    CommandOutcome {
        status: CommandStatus::Done,
        detail: text(detail),
    }
}

/// A failed outcome.
pub fn failed(detail: &str) -> CommandOutcome {
    CommandOutcome {
        status: CommandStatus::Failed,
        detail: text(detail),
    }
}

/// Queues a reboot issued at `at`, lapsing [`lapse`] before; whether it was queued.
pub async fn queue(store: &impl Store, device: &Serial, id: &str, at: Timestamp) -> bool {
    store
        .queue_reboot(device, id, at, at - lapse())
        .await
        .unwrap()
}

/// Takes the due commands at `at`, lapsing [`lapse`] before, handed out
/// again after [`REDELIVERY_AFTER`].
pub async fn take(store: &impl Store, device: &Serial, at: Timestamp) -> Vec<Command> {
    store
        .take_due(device, at, at - lapse(), at - REDELIVERY_AFTER)
        .await
        .unwrap()
}

/// An acknowledgement of receipt.
pub fn received() -> CommandOutcome {
    CommandOutcome {
        status: CommandStatus::Received,
        detail: text(""),
    }
}

/// Acknowledges a command; whether the device has it.
pub async fn ack(
    store: &impl Store,
    device: &Serial,
    id: &str,
    outcome: CommandOutcome,
    at: Timestamp,
) -> bool {
    store.acknowledge(device, id, &outcome, at).await.unwrap()
}

/// The ids of the commands, in order.
pub fn ids(commands: &[Command]) -> Vec<&str> {
    commands.iter().map(|c| c.id.as_str()).collect()
}
