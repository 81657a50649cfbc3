//! The record of the commands this device carried out, kept in a file beside
//! the configuration file (docs/agent-protocol.md, "Carrying out a command
//! once").
//!
//! The server hands a command out again until the agent acknowledges it, so
//! the agent sees the same id more than once, even across a reboot. Before it
//! starts a command it records the id here as `started`; once the command has
//! ended, as `done` or `failed` with the detail of its acknowledgement. An id
//! found here is never carried out again. The last [`CAPACITY`] ids are kept.
//!
//! The file, `<config file name>.commands.json`:
//!
//! ```json
//! {"commands": [
//!   {"id": "…", "action": "reboot", "state": "done", "detail": "reboot started", "reported": true},
//!   {"id": "…", "action": "reboot", "state": "started"}
//! ]}
//! ```
//!
//! oldest first; `reported` says whether the server took the final
//! acknowledgement. It is replaced atomically with mode 0600
//! ([`crate::private_file`]). A missing file records nothing; an unreadable
//! one is set aside as `<file>.corrupt` and the agent starts afresh.

use crate::commands;
use crate::private_file::{self, WriteError};
use crate::protocol::{Ack, AckStatus, Command};
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;
use std::ffi::OsString;
use std::io;
use std::path::{Path, PathBuf};

/// How many ids are kept: the oldest goes when a new one comes.
pub const CAPACITY: usize = 100;

/// What is appended to the configuration file's name to name the record.
pub const FILE_SUFFIX: &str = ".commands.json";

/// What is appended to the record's name to set an unreadable one aside.
pub const CORRUPT_SUFFIX: &str = ".corrupt";

/// The most characters of an action kept (longer ones are unknown anyway).
const MAX_ACTION_CHARS: usize = 100;

/// Where the commands of the agent configured by `config_path` are
/// recorded: `<config file name>.commands.json` in the same directory, so
/// that two configurations in one directory never share a record.
pub fn journal_path(config_path: &Path) -> PathBuf {
    let mut name = config_path
        .file_name()
        .map_or_else(|| OsString::from("config"), ToOwned::to_owned);
    name.push(FILE_SUFFIX);
    private_file::parent_directory(config_path).join(name)
}

/// How far a recorded command got.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CommandState {
    /// Recorded before it was started; not known to have ended.
    Started,
    /// Ended well.
    Done,
    /// Ended badly, or was never started.
    Failed,
}

impl CommandState {
    /// The state an acknowledgement with `status` reports.
    fn of(status: AckStatus) -> Self {
        match status {
            AckStatus::Received => CommandState::Started,
            AckStatus::Done => CommandState::Done,
            AckStatus::Failed => CommandState::Failed,
        }
    }
}

/// One recorded command.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct JournalEntry {
    /// The command's id.
    pub id: String,
    /// Its action (at most 100 characters of it).
    pub action: String,
    /// How far it got.
    pub state: CommandState,
    /// The detail of its final acknowledgement; empty while started.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub detail: String,
    /// Whether the server took its final acknowledgement.
    #[serde(default)]
    pub reported: bool,
}

impl JournalEntry {
    /// The last acknowledgement this command earned: `received` while
    /// started, else `done` or `failed` with the detail.
    pub fn last_ack(&self) -> Ack {
        match self.state {
            CommandState::Started => Ack::received(),
            CommandState::Done => Ack::new(AckStatus::Done, &self.detail),
            CommandState::Failed => Ack::new(AckStatus::Failed, &self.detail),
        }
    }
}

/// The file's contents.
#[derive(Debug, Serialize, Deserialize)]
struct JournalFile {
    commands: Vec<JournalEntry>,
}

/// The recorded commands, in memory and on disk.
#[derive(Debug, Clone)]
pub struct CommandJournal {
    path: PathBuf,
    entries: VecDeque<JournalEntry>,
}

impl CommandJournal {
    /// A record with nothing in it, to be saved at `path`.
    pub fn empty(path: PathBuf) -> Self {
        Self {
            path,
            entries: VecDeque::new(),
        }
    }

    /// Reads the record at `path`. Never fails: a missing file is an empty
    /// record; a file that cannot be read or parsed is logged, renamed to
    /// `<path>.corrupt` (when it can be read at all) and counts as empty.
    pub fn load(path: PathBuf) -> Self {
        let bytes = match std::fs::read(&path) {
            Ok(bytes) => bytes,
            Err(error) if error.kind() == io::ErrorKind::NotFound => return Self::empty(path),
            Err(error) => {
                tracing::warn!(
                    path = %path.display(),
                    %error,
                    "cannot read the record of commands carried out; starting with an empty one"
                );
                return Self::empty(path);
            }
        };
        match serde_json::from_slice::<JournalFile>(&bytes) {
            Ok(file) => {
                let mut entries = VecDeque::from(file.commands);
                while entries.len() > CAPACITY {
                    entries.pop_front();
                }
                Self { path, entries }
            }
            Err(error) => {
                let aside = corrupt_path(&path);
                let renamed = std::fs::rename(&path, &aside);
                tracing::warn!(
                    path = %path.display(),
                    %error,
                    set_aside_as = %aside.display(),
                    set_aside = renamed.is_ok(),
                    "the record of commands carried out is corrupt; starting with an empty one"
                );
                Self::empty(path)
            }
        }
    }

    /// Where the record is saved.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Writes the record atomically, mode 0600.
    pub fn save(&self) -> Result<(), WriteError> {
        let file = JournalFile {
            commands: self.entries.iter().cloned().collect(),
        };
        let mut text = serde_json::to_string(&file).expect("a record always serializes");
        text.push('\n');
        private_file::write_atomically(&self.path, text.as_bytes())
    }

    /// [`CommandJournal::save`], a failure logged: the agent carries on
    /// without a durable record rather than stop. Returns whether it saved.
    pub fn save_or_warn(&self) -> bool {
        match self.save() {
            Ok(()) => true,
            Err(error) => {
                tracing::warn!(%error, "cannot save the record of commands carried out");
                false
            }
        }
    }

    /// The recorded commands, oldest first.
    pub fn entries(&self) -> impl Iterator<Item = &JournalEntry> {
        self.entries.iter()
    }

    /// The entry of `id`, if it is recorded.
    pub fn entry(&self, id: &str) -> Option<&JournalEntry> {
        self.entries.iter().find(|entry| entry.id == id)
    }

    fn entry_mut(&mut self, id: &str) -> Option<&mut JournalEntry> {
        self.entries.iter_mut().find(|entry| entry.id == id)
    }

    /// Records `command` as started (before it is).
    pub fn record_started(&mut self, command: &Command) {
        self.record(command, &Ack::received());
    }

    /// Records how `command` ended, `ack` being its final acknowledgement,
    /// not yet reported.
    pub fn record_finished(&mut self, command: &Command, ack: &Ack) {
        self.record(command, ack);
    }

    fn record(&mut self, command: &Command, ack: &Ack) {
        let state = CommandState::of(ack.status);
        if let Some(entry) = self.entry_mut(&command.id) {
            entry.state = state;
            ack.detail.as_str().clone_into(&mut entry.detail);
            entry.reported = false;
            return;
        }
        if self.entries.len() >= CAPACITY {
            self.entries.pop_front();
        }
        self.entries.push_back(JournalEntry {
            id: command.id.clone(),
            action: command.action.chars().take(MAX_ACTION_CHARS).collect(),
            state,
            detail: ack.detail.as_str().to_owned(),
            reported: false,
        });
    }

    /// Notes that the server took the final acknowledgement of `id`; false
    /// when that changes nothing.
    pub fn mark_reported(&mut self, id: &str) -> bool {
        match self.entry_mut(id) {
            Some(entry) if entry.state != CommandState::Started && !entry.reported => {
                entry.reported = true;
                true
            }
            _ => false,
        }
    }

    /// Ends the commands recorded as started by an earlier run of the agent,
    /// which stopped (or whose device restarted) while carrying them out: a
    /// reboot is done, anything else failed ([`commands::interrupted_ack`]).
    /// Returns their ids and acknowledgements.
    pub fn finish_interrupted(&mut self) -> Vec<(String, Ack)> {
        let mut finished = Vec::new();
        for entry in &mut self.entries {
            if entry.state == CommandState::Started {
                let ack = commands::interrupted_ack(&entry.action);
                entry.state = CommandState::of(ack.status);
                ack.detail.as_str().clone_into(&mut entry.detail);
                entry.reported = false;
                finished.push((entry.id.clone(), ack));
            }
        }
        finished
    }

    /// The final acknowledgements the server has not taken yet, oldest first.
    pub fn unreported(&self) -> Vec<(String, Ack)> {
        self.entries
            .iter()
            .filter(|entry| entry.state != CommandState::Started && !entry.reported)
            .map(|entry| (entry.id.clone(), entry.last_ack()))
            .collect()
    }
}

/// `<path>.corrupt`.
fn corrupt_path(path: &Path) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(CORRUPT_SUFFIX);
    PathBuf::from(name)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    fn command(id: &str, action: &str) -> Command {
        Command::for_tests(id, action)
    }

    fn names_in(directory: &Path) -> Vec<String> {
        let mut names: Vec<_> = std::fs::read_dir(directory)
            .unwrap()
            .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    fn done() -> Ack {
        Ack::new(AckStatus::Done, "reboot started")
    }

    #[test]
    fn the_record_is_named_after_the_configuration_beside_it() {
        assert_eq!(
            journal_path(Path::new("/etc/devmgr-agent/config.json")),
            Path::new("/etc/devmgr-agent/config.json.commands.json")
        );
        assert_eq!(
            journal_path(Path::new("/etc/devmgr-agent/other.json")),
            Path::new("/etc/devmgr-agent/other.json.commands.json")
        );
        assert_eq!(
            journal_path(Path::new("config.json")),
            Path::new("./config.json.commands.json")
        );
    }

    #[test]
    fn a_saved_record_loads_back_private_and_with_no_temporary_file() {
        let directory = tempfile::tempdir().unwrap();
        let path = directory.path().join("config.json.commands.json");
        let mut journal = CommandJournal::load(path.clone());
        assert_eq!(journal.entries().count(), 0);
        journal.record_started(&command("a", "reboot"));
        journal.record_started(&command("b", "reboot"));
        journal.record_finished(&command("b", "reboot"), &done());
        journal.mark_reported("b");
        journal.save().unwrap();

        assert_eq!(names_in(directory.path()), ["config.json.commands.json"]);
        let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
        let on_disk: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        assert_eq!(
            on_disk,
            serde_json::json!({"commands": [
                {"id": "a", "action": "reboot", "state": "started", "reported": false},
                {"id": "b", "action": "reboot", "state": "done", "detail": "reboot started", "reported": true},
            ]})
        );
        let loaded = CommandJournal::load(path);
        assert_eq!(
            loaded.entries().collect::<Vec<_>>(),
            journal.entries().collect::<Vec<_>>()
        );
    }

    #[test]
    fn only_the_last_100_ids_are_kept() {
        let directory = tempfile::tempdir().unwrap();
        let path = directory.path().join("record.json");
        let mut journal = CommandJournal::empty(path.clone());
        for number in 0..150 {
            journal.record_started(&command(&format!("c{number}"), "reboot"));
        }
        // Recording an id again does not make it a new one.
        journal.record_finished(&command("c149", "reboot"), &done());
        journal.save().unwrap();
        let loaded = CommandJournal::load(path);
        let ids: Vec<_> = loaded.entries().map(|entry| entry.id.clone()).collect();
        let expected: Vec<_> = (50..150).map(|number| format!("c{number}")).collect();
        assert_eq!(ids, expected);
        assert!(loaded.entry("c49").is_none());
        assert_eq!(loaded.entry("c149").unwrap().state, CommandState::Done);
    }

    #[test]
    fn a_longer_file_keeps_its_last_100_ids() {
        let directory = tempfile::tempdir().unwrap();
        let path = directory.path().join("record.json");
        let commands: Vec<_> = (0..120)
            .map(|number| serde_json::json!({"id": format!("c{number}"), "action": "reboot", "state": "done"}))
            .collect();
        std::fs::write(&path, serde_json::json!({"commands": commands}).to_string()).unwrap();
        let loaded = CommandJournal::load(path);
        assert_eq!(loaded.entries().count(), CAPACITY);
        assert_eq!(loaded.entries().next().unwrap().id, "c20");
    }

    #[test]
    fn a_corrupt_file_is_set_aside_and_the_record_starts_empty() {
        let directory = tempfile::tempdir().unwrap();
        let path = directory.path().join("record.json");
        for contents in [
            &b"{\"commands\": [{\"id\": "[..],
            b"not json",
            br#"{"commands": [{"id": "a", "action": "reboot", "state": "exploded"}]}"#,
            b"\xff\xfe",
        ] {
            std::fs::write(&path, contents).unwrap();
            let journal = CommandJournal::load(path.clone());
            assert_eq!(journal.entries().count(), 0);
            assert_eq!(names_in(directory.path()), ["record.json.corrupt"]);
            assert_eq!(
                std::fs::read(directory.path().join("record.json.corrupt")).unwrap(),
                contents
            );
            // It saves over the corrupt file's old place.
            journal.save().unwrap();
            assert!(!CommandJournal::load(path.clone()).entries().any(|_| true));
            std::fs::remove_file(&path).unwrap();
        }
    }

    #[test]
    fn an_unreadable_record_counts_as_empty() {
        let directory = tempfile::tempdir().unwrap();
        // A directory cannot be read as a file.
        let path = directory.path().join("record.json");
        std::fs::create_dir(&path).unwrap();
        assert_eq!(CommandJournal::load(path).entries().count(), 0);
    }

    #[test]
    fn each_entry_gives_back_its_last_acknowledgement() {
        let mut journal = CommandJournal::empty(PathBuf::from("unused"));
        journal.record_started(&command("a", "reboot"));
        assert_eq!(journal.entry("a").unwrap().last_ack(), Ack::received());
        let failed = Ack::new(AckStatus::Failed, "reboot command exited with status 1");
        journal.record_finished(&command("a", "reboot"), &failed);
        assert_eq!(journal.entry("a").unwrap().last_ack(), failed);
    }

    #[test]
    fn final_acknowledgements_stay_unreported_until_the_server_takes_them() {
        let mut journal = CommandJournal::empty(PathBuf::from("unused"));
        journal.record_started(&command("a", "reboot"));
        assert!(journal.unreported().is_empty(), "started is not final");
        assert!(!journal.mark_reported("a"));
        journal.record_finished(&command("a", "reboot"), &done());
        assert_eq!(journal.unreported(), [("a".to_owned(), done())]);
        assert!(journal.mark_reported("a"));
        assert!(!journal.mark_reported("a"));
        assert!(!journal.mark_reported("unknown"));
        assert!(journal.unreported().is_empty());
    }

    #[test]
    fn commands_left_started_by_an_earlier_run_are_finished() {
        let directory = tempfile::tempdir().unwrap();
        let path = directory.path().join("record.json");
        let mut before = CommandJournal::empty(path.clone());
        before.record_started(&command("reboot-1", "reboot"));
        before.record_started(&command("other-1", "update"));
        before.record_started(&command("reboot-2", "reboot"));
        before.record_finished(&command("reboot-2", "reboot"), &done());
        before.mark_reported("reboot-2");
        before.save().unwrap();

        let mut after = CommandJournal::load(path);
        let restarted = Ack::new(AckStatus::Done, "The device restarted.");
        let stopped = Ack::new(
            AckStatus::Failed,
            "The agent stopped before the command finished.",
        );
        assert_eq!(
            after.finish_interrupted(),
            [
                ("reboot-1".to_owned(), restarted.clone()),
                ("other-1".to_owned(), stopped)
            ]
        );
        assert_eq!(after.entry("reboot-1").unwrap().last_ack(), restarted);
        assert_eq!(after.entry("other-1").unwrap().state, CommandState::Failed);
        let unreported: Vec<_> = after.unreported().into_iter().map(|(id, _)| id).collect();
        assert_eq!(unreported, ["reboot-1", "other-1"]);
        assert!(after.finish_interrupted().is_empty());
    }

    #[test]
    fn long_actions_are_cut() {
        let mut journal = CommandJournal::empty(PathBuf::from("unused"));
        journal.record_started(&command("a", &"x".repeat(5000)));
        assert_eq!(journal.entry("a").unwrap().action.len(), MAX_ACTION_CHARS);
    }
}
