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
use crate::protocol::{Ack, Command};
use domain::CommandStatus;
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
    fn of(status: CommandStatus) -> Self {
        match status {
            CommandStatus::Received => CommandState::Started,
            CommandStatus::Done => CommandState::Done,
            CommandStatus::Failed => CommandState::Failed,
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
            CommandState::Done => Ack::new(CommandStatus::Done, &self.detail),
            CommandState::Failed => Ack::new(CommandStatus::Failed, &self.detail),
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
            action: command
                .action
                .code()
                .chars()
                .take(MAX_ACTION_CHARS)
                .collect(),
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
mod tests;
