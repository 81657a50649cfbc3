//! Tests of the command journal.

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
    Ack::new(CommandStatus::Done, "reboot started")
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
    let failed = Ack::new(CommandStatus::Failed, "reboot command exited with status 1");
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
    let restarted = Ack::new(CommandStatus::Done, "The device restarted.");
    let stopped = Ack::new(
        CommandStatus::Failed,
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
