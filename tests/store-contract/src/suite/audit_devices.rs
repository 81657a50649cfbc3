//! The audited changes to devices (docs/audit.md): created, installed,
//! updated (naming the fields whose value changed), retagged (one entry per
//! device whose tags changed, in serial order), rebooted (naming the command
//! queued or joined) and deleted; exactly one entry each when the change
//! happens, none when it does not.

use crate::{
    Store, account, command_id, create_devices, enrolment, fleet_device, fleet_serial, lapse,
    note_on, online_after, origin, serial, t0, tag, tags, text, written_by,
};
use application::ports::{DeviceChanges, DeviceRepository, Retagged};
use domain::{AuditAction, AuditEntry, AuditNote, AuditTarget, Selector, Serial, TagChange};

/// A note of `action` on device `serial`.
fn on(serial: &Serial, action: AuditAction) -> AuditNote {
    note_on(action, AuditTarget::device(serial))
}

/// The entries' targets and details.
fn written(entries: &[AuditEntry]) -> Vec<(String, String, String)> {
    entries
        .iter()
        .map(|e| (e.action.clone(), e.target.clone(), e.detail.clone()))
        .collect()
}

/// `(action, device:<serial>, detail)`.
fn expected(action: &str, serial: &Serial, detail: &str) -> (String, String, String) {
    (
        action.to_owned(),
        format!("device:{}", serial.as_str()),
        detail.to_owned(),
    )
}

/// Creating a device writes one entry; a serial already taken writes none.
/// Enrolling writes one; deleting writes one, a device that is not there
/// none.
pub async fn devices_created_installed_and_deleted_are_recorded_once(store: impl Store) {
    let ann = account(&store, "ann").await;
    let bob = account(&store, "bob").await;
    let pi = crate::created_device(ann.id, 1);
    let create = on(&pi.serial, AuditAction::DeviceCreate);
    let (made, entries) = written_by(&store, DeviceRepository::create(&store, &pi, &create)).await;
    made.unwrap();
    assert_eq!(
        written(&entries),
        [expected("device.create", &pi.serial, "{}")]
    );
    let twin = crate::created_device(bob.id, 1);
    let (made, entries) =
        written_by(&store, DeviceRepository::create(&store, &twin, &create)).await;
    assert!(made.is_err());
    assert!(entries.is_empty(), "a duplicate serial writes nothing");

    let new = serial(2);
    let install = on(&new, AuditAction::DeviceInstall);
    let enrolling = enrolment(ann.id, &new, "tok");
    let enrolled = store.enroll(&enrolling, &install);
    let (device, entries) = written_by(&store, enrolled).await;
    device.unwrap();
    assert_eq!(written(&entries), [expected("device.install", &new, "{}")]);

    let delete = on(&new, AuditAction::DeviceDelete);
    let (gone, entries) = written_by(&store, store.delete(bob.id, &new, &delete)).await;
    assert!(!gone.unwrap());
    assert!(entries.is_empty(), "not bob's device");
    let (gone, entries) = written_by(&store, store.delete(ann.id, &new, &delete)).await;
    assert!(gone.unwrap());
    assert_eq!(written(&entries), [expected("device.delete", &new, "{}")]);
    let (gone, entries) = written_by(&store, store.delete(ann.id, &new, &delete)).await;
    assert!(!gone.unwrap());
    assert!(entries.is_empty(), "already deleted");
}

/// An update writes one entry naming, sorted, the fields whose value
/// changed, by the origin given; equal values, or another account's or
/// a missing device, write none.
pub async fn an_update_names_the_fields_whose_value_changed(store: impl Store) {
    let ann = account(&store, "ann").await;
    let bob = account(&store, "bob").await;
    let pi = crate::created_device(ann.id, 1);
    DeviceRepository::create(&store, &pi, &on(&pi.serial, AuditAction::DeviceCreate))
        .await
        .unwrap();
    let same = DeviceChanges {
        name: Some(pi.name.clone()),
        description: Some(pi.description.clone()),
        tags: Some(pi.tags.clone()),
    };
    let (device, entries) =
        written_by(&store, store.update(ann.id, &pi.serial, &same, &origin())).await;
    assert_eq!(device.unwrap().unwrap().name, pi.name);
    assert!(entries.is_empty(), "equal values change nothing");
    let (device, entries) =
        written_by(&store, store.update(bob.id, &pi.serial, &same, &origin())).await;
    assert!(device.unwrap().is_none());
    assert!(entries.is_empty());

    let name_only = DeviceChanges {
        name: Some(text("renamed")),
        ..same.clone()
    };
    let (_, entries) = written_by(
        &store,
        store.update(ann.id, &pi.serial, &name_only, &origin()),
    )
    .await;
    let changed = r#"{"changed":["name"]}"#;
    assert_eq!(
        written(&entries),
        [expected("device.update", &pi.serial, changed)]
    );
    assert_eq!(entries[0].actor_label, "ops@example.com");
    assert_eq!(entries[0].ip.as_deref(), Some("192.0.2.7"));

    let all = DeviceChanges {
        name: Some(text("again")),
        description: Some(text("new words")),
        tags: Some(tags(&["lab"])),
    };
    let (device, entries) =
        written_by(&store, store.update(ann.id, &pi.serial, &all, &origin())).await;
    assert_eq!(device.unwrap().unwrap().tags, tags(&["lab"]));
    let changed = r#"{"changed":["description","name","tags"]}"#;
    assert_eq!(
        written(&entries),
        [expected("device.update", &pi.serial, changed)]
    );
    let tags_only = DeviceChanges {
        tags: Some(tags(&["lab", "west"])),
        ..DeviceChanges::default()
    };
    let (_, entries) = written_by(
        &store,
        store.update(ann.id, &pi.serial, &tags_only, &origin()),
    )
    .await;
    let changed = r#"{"changed":["tags"]}"#;
    assert_eq!(
        written(&entries),
        [expected("device.update", &pi.serial, changed)]
    );
}

/// A retag writes one `device.update` entry per selected device whose tags
/// changed, in serial order; one that changes nothing, or is refused for
/// too many tags, writes none.
pub async fn a_retag_records_each_device_whose_tags_change(store: impl Store) {
    let ann = account(&store, "ann").await;
    create_devices(
        &store,
        &[
            fleet_device(ann.id, 3, "three", "", &["lab"], None, 0),
            fleet_device(ann.id, 1, "one", "", &["old"], None, 0),
            fleet_device(ann.id, 2, "two", "", &["lab", "old"], None, 0),
            fleet_device(ann.id, 4, "four", "", &[], None, 0),
        ],
    )
    .await;
    let change = |remove: &[&str], add: &[&str]| TagChange {
        remove: remove.iter().map(|name| tag(name)).collect(),
        add: add.iter().map(|name| tag(name)).collect(),
    };
    let owner = ann.id;
    let retag = |change: TagChange| {
        let store = store.clone();
        async move {
            store
                .retag(owner, &Selector::All, online_after(), &change, &origin())
                .await
                .unwrap()
        }
    };
    let (outcome, entries) = written_by(&store, retag(change(&["old"], &["lab"]))).await;
    assert_eq!(outcome, Retagged::Matched(4));
    let changed = r#"{"changed":["tags"]}"#;
    let want: Vec<_> = [1, 2, 4]
        .map(|n| expected("device.update", &fleet_serial(n), changed))
        .into();
    assert_eq!(
        written(&entries),
        want,
        "device 3 already had lab and no old"
    );
    assert!(entries.iter().all(|e| e.actor_label == "ops@example.com"));

    let (outcome, entries) = written_by(&store, retag(change(&["old"], &["lab"]))).await;
    assert_eq!(outcome, Retagged::Matched(4));
    assert!(entries.is_empty(), "nothing changes the second time");
    let (_, entries) = written_by(&store, retag(change(&["lab"], &["lab"]))).await;
    assert!(entries.is_empty(), "removed and added back");
    let many: Vec<String> = (0..21).map(|n| format!("t{n:02}")).collect();
    let many: Vec<&str> = many.iter().map(String::as_str).collect();
    let (outcome, entries) = written_by(&store, retag(change(&[], &many))).await;
    assert_eq!(outcome, Retagged::TooManyTags);
    assert!(entries.is_empty(), "refused: nothing changed");
}

/// A person's reboot writes one entry naming the command it returns, the
/// one it queued or the one under way it joined, in the device's owner's
/// log; a job's reboot (no origin) writes none.
pub async fn a_reboot_names_the_command_queued_or_joined(store: impl Store) {
    let ann = account(&store, "ann").await;
    let pi = serial(1);
    crate::enrol(&store, ann.id, &pi, "tok").await;
    let reboot = |id: &'static str, by: Option<domain::Origin>| {
        let (store, pi) = (store.clone(), pi.clone());
        async move {
            store
                .queue_reboot(&pi, &command_id(id), t0(), t0() - lapse(), by.as_ref())
                .await
                .unwrap()
        }
    };
    let (queued, entries) = written_by(&store, reboot("c1", Some(origin()))).await;
    assert!(queued.queued);
    let first = format!(r#"{{"command":"{}"}}"#, command_id("c1").as_str());
    assert_eq!(written(&entries), [expected("device.reboot", &pi, &first)]);
    let (joined, entries) = written_by(&store, reboot("c2", Some(origin()))).await;
    assert!(!joined.queued);
    assert_eq!(written(&entries), [expected("device.reboot", &pi, &first)]);
    let page = store
        .audit_page(ann.id, &Default::default(), crate::all())
        .await
        .unwrap();
    assert_eq!(page.entries[0], entries[0]);
    let (_, entries) = written_by(&store, reboot("c3", None)).await;
    assert!(entries.is_empty());
}
