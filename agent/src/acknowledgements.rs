//! Sending acknowledgements (`POST /agent/commands/{id}/ack/`), and keeping
//! the final ones the server could not take, to send them again later.

use crate::client::{ApiError, DeviceClient};
use crate::command_journal::CommandJournal;
use crate::protocol::Ack;
use std::collections::VecDeque;

/// The final acknowledgements (`done`, `failed`) still to be delivered,
/// oldest first, at most one per command.
#[derive(Debug, Default)]
pub struct Acknowledgements {
    pending: VecDeque<(String, Ack)>,
}

impl Acknowledgements {
    /// Keeps `ack` of `id` for a later attempt, in place of an older one of
    /// the same command.
    pub fn queue(&mut self, id: String, ack: Ack) {
        match self.pending.iter_mut().find(|(pending, _)| *pending == id) {
            Some(slot) => slot.1 = ack,
            None => self.pending.push_back((id, ack)),
        }
    }

    /// Whether an acknowledgement of `id` waits for a later attempt.
    pub fn is_pending(&self, id: &str) -> bool {
        self.pending.iter().any(|(pending, _)| pending == id)
    }

    /// How many wait.
    pub fn len(&self) -> usize {
        self.pending.len()
    }

    /// Whether none waits.
    pub fn is_empty(&self) -> bool {
        self.pending.is_empty()
    }

    /// Sends `received` for `id` and waits for the answer (within the
    /// client's timeout). A failure is logged, not retried: the command is
    /// carried out anyway, and its final acknowledgement follows.
    pub async fn send_received(client: &DeviceClient, id: &str) {
        match client.ack(id, &Ack::received()).await {
            Ok(()) => tracing::debug!(%id, "receipt acknowledged"),
            Err(error) => tracing::warn!(
                %id,
                %error,
                "receipt not acknowledged; carrying the command out anyway"
            ),
        }
    }

    /// Sends the final `ack` of `id`, or keeps it for later if the server
    /// could not take it now. Once taken (or refused for good) it is marked
    /// reported in `journal`.
    pub async fn send_final(
        &mut self,
        client: &DeviceClient,
        journal: &mut CommandJournal,
        id: &str,
        ack: Ack,
    ) {
        if let Err(ack) = deliver(client, journal, id, ack).await {
            self.queue(id.to_owned(), ack);
        }
    }

    /// Sends the acknowledgements kept for later, oldest first, until one
    /// fails again.
    pub async fn deliver_pending(&mut self, client: &DeviceClient, journal: &mut CommandJournal) {
        while let Some((id, ack)) = self.pending.pop_front() {
            if let Err(ack) = deliver(client, journal, &id, ack).await {
                self.pending.push_front((id, ack));
                break;
            }
        }
    }
}

/// Sends `ack` once; gives it back if it should be tried again.
async fn deliver(
    client: &DeviceClient,
    journal: &mut CommandJournal,
    id: &str,
    ack: Ack,
) -> Result<(), Ack> {
    match client.ack(id, &ack).await {
        Ok(()) => {
            tracing::info!(
                %id,
                status = ?ack.status,
                detail = %ack.detail,
                "command acknowledged"
            );
        }
        // After 401 the token may come back (`devmgr-agent install` again).
        Err(error) if error.is_transient() || matches!(error, ApiError::Unauthorized { .. }) => {
            tracing::warn!(%id, %error, "acknowledgement not delivered; will retry");
            return Err(ack);
        }
        Err(error) => {
            tracing::warn!(%id, %error, "acknowledgement refused; dropping it");
        }
    }
    if journal.mark_reported(id) {
        journal.save_or_warn();
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use domain::CommandStatus;

    #[test]
    fn one_acknowledgement_per_command_is_kept_the_latest() {
        let mut acks = Acknowledgements::default();
        assert!(acks.is_empty());
        acks.queue("a".to_owned(), Ack::new(CommandStatus::Failed, "first"));
        acks.queue("b".to_owned(), Ack::new(CommandStatus::Done, "b"));
        acks.queue("a".to_owned(), Ack::new(CommandStatus::Done, "second"));
        assert_eq!(acks.len(), 2);
        assert!(acks.is_pending("a"));
        assert!(!acks.is_pending("c"));
        assert_eq!(
            acks.pending.front(),
            Some(&("a".to_owned(), Ack::new(CommandStatus::Done, "second")))
        );
    }
}
