//! Fixtures of commands: queuing, taking and acknowledging them.

use crate::{Store, lapse, text};
use domain::command::REDELIVERY_AFTER;
use domain::{Command, CommandId, CommandOutcome, CommandStatus, Serial, Timestamp};

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

/// The command id whose bytes spell `label` (at most 16 bytes, padded with
/// zeros), so that [`label`] reads it back.
pub fn command_id(label: &str) -> CommandId {
    assert!(label.len() <= 16, "label {label:?} longer than 16 bytes");
    let mut bytes = [0u8; 16];
    bytes[..label.len()].copy_from_slice(label.as_bytes());
    let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    let text = format!(
        "{}-{}-{}-{}-{}",
        &hex[..8],
        &hex[8..12],
        &hex[12..16],
        &hex[16..20],
        &hex[20..]
    );
    CommandId::parse(&text).expect("a canonical UUID")
}

/// The label a [`command_id`] spells.
pub fn label(id: &CommandId) -> String {
    let hex = id.as_str().replace('-', "");
    let bytes: Vec<u8> = (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).expect("hex digits"))
        .take_while(|b| *b != 0)
        .collect();
    String::from_utf8(bytes).expect("a label")
}

/// Queues a reboot with the id [`command_id`]`(id)` issued at `at`, lapsing
/// [`lapse`] before; whether it was queued.
pub async fn queue(store: &impl Store, device: &Serial, id: &str, at: Timestamp) -> bool {
    store
        .queue_reboot(device, &command_id(id), at, at - lapse(), None)
        .await
        .unwrap()
        .queued
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

/// Acknowledges the command [`command_id`]`(id)`; whether the device has it.
pub async fn ack(
    store: &impl Store,
    device: &Serial,
    id: &str,
    outcome: CommandOutcome,
    at: Timestamp,
) -> bool {
    store
        .acknowledge(device, &command_id(id), &outcome, at)
        .await
        .unwrap()
}

/// The ids of the commands, in order.
pub fn ids(commands: &[Command]) -> Vec<String> {
    commands.iter().map(|c| label(&c.id)).collect()
}
