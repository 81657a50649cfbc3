//! What the agent does with a command the server hands out, given what it
//! has recorded ([`crate::command_journal`]).

use crate::command_journal::CommandJournal;
use crate::commands;
use crate::protocol::{Ack, Command};

/// The longest command id the agent accepts, in bytes. The server's ids are
/// UUIDs (36 bytes); longer ones would only fill the record.
pub const MAX_COMMAND_ID_BYTES: usize = 128;

/// What to do with a command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    /// Not recorded: record it as started, acknowledge `received`, carry it
    /// out, record and acknowledge how it ended.
    Run,
    /// Not recorded, and not something this agent can do: record it as
    /// failed and send this acknowledgement.
    Refuse(Ack),
    /// Recorded already: never carry it out again, but send its last
    /// acknowledgement again, so that the server stops handing it out.
    AcknowledgeAgain(Ack),
    /// An empty or oversized id, which no server makes: leave it alone.
    Ignore,
}

/// What to do with `command`.
pub fn decide(journal: &CommandJournal, command: &Command) -> Decision {
    if command.id.is_empty() || command.id.len() > MAX_COMMAND_ID_BYTES {
        return Decision::Ignore;
    }
    if let Some(entry) = journal.entry(&command.id) {
        return Decision::AcknowledgeAgain(entry.last_ack());
    }
    if commands::is_known_action(&command.action) {
        Decision::Run
    } else {
        Decision::Refuse(commands::unknown_action_ack(command.action.code()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use domain::CommandStatus;
    use std::path::PathBuf;

    fn command(id: &str, action: &str) -> Command {
        Command::for_tests(id, action)
    }

    fn journal() -> CommandJournal {
        CommandJournal::empty(PathBuf::from("unused"))
    }

    #[test]
    fn a_new_reboot_is_run() {
        assert_eq!(decide(&journal(), &command("c1", "reboot")), Decision::Run);
    }

    #[test]
    fn a_command_recorded_as_started_is_acknowledged_as_received_again() {
        let mut journal = journal();
        journal.record_started(&command("c1", "reboot"));
        assert_eq!(
            decide(&journal, &command("c1", "reboot")),
            Decision::AcknowledgeAgain(Ack::received())
        );
    }

    #[test]
    fn a_finished_command_is_acknowledged_again_as_it_ended() {
        let mut journal = journal();
        let done = Ack::new(CommandStatus::Done, "reboot started");
        journal.record_finished(&command("c1", "reboot"), &done);
        journal.mark_reported("c1");
        assert_eq!(
            decide(&journal, &command("c1", "reboot")),
            Decision::AcknowledgeAgain(done)
        );
        let failed = Ack::new(CommandStatus::Failed, "reboot command exited with status 1");
        journal.record_finished(&command("c2", "reboot"), &failed);
        assert_eq!(
            decide(&journal, &command("c2", "reboot")),
            Decision::AcknowledgeAgain(failed)
        );
    }

    #[test]
    fn a_reboot_started_before_a_restart_is_acknowledged_as_done() {
        let directory = tempfile::tempdir().unwrap();
        let path = directory.path().join("record.json");
        let mut before = CommandJournal::empty(path.clone());
        before.record_started(&command("c1", "reboot"));
        before.save().unwrap();

        let mut after = CommandJournal::load(path);
        after.finish_interrupted();
        assert_eq!(
            decide(&after, &command("c1", "reboot")),
            Decision::AcknowledgeAgain(Ack::new(CommandStatus::Done, "The device restarted."))
        );
    }

    #[test]
    fn an_unknown_action_is_refused_and_then_acknowledged_again() {
        let mut journal = journal();
        let selfdestruct = command("c1", "selfdestruct");
        let Decision::Refuse(ack) = decide(&journal, &selfdestruct) else {
            panic!("not refused");
        };
        assert_eq!(
            ack,
            Ack::new(CommandStatus::Failed, "Unknown action \"selfdestruct\".")
        );
        journal.record_finished(&selfdestruct, &ack);
        assert_eq!(
            decide(&journal, &selfdestruct),
            Decision::AcknowledgeAgain(ack)
        );
    }

    #[test]
    fn empty_and_oversized_ids_are_ignored() {
        assert_eq!(decide(&journal(), &command("", "reboot")), Decision::Ignore);
        let long = "x".repeat(MAX_COMMAND_ID_BYTES + 1);
        assert_eq!(
            decide(&journal(), &command(&long, "reboot")),
            Decision::Ignore
        );
        let longest = "x".repeat(MAX_COMMAND_ID_BYTES);
        assert_eq!(
            decide(&journal(), &command(&longest, "reboot")),
            Decision::Run
        );
    }
}
