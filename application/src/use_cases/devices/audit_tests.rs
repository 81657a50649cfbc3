//! What changing devices asks the log to record (`docs/audit.md`): the
//! notes it hands over, and the origin it hands the store for the notes the
//! store writes itself (an update's changed fields, a reboot's command).

use super::super::*;
use super::reboot_command;
use crate::ports::Retagged;
use crate::use_cases::test_support::{Harness, Notes, account, by, device, email, text};
use domain::{Selector, Tag, TagChange};

/// The device's target, as its entries name it.
fn target() -> String {
    format!("device:{}", device(None).serial)
}

#[tokio::test]
async fn a_device_added_at_the_command_line_is_recorded_without_an_address() {
    let mut h = Harness::new();
    let notes = Notes::default();
    let kept = notes.clone();
    h.accounts
        .expect_find_by_email()
        .returning(|_| Ok(Some(account(true, None))));
    h.devices
        .expect_create()
        .times(1)
        .returning(move |_, audit| {
            kept.keep(audit);
            Ok(())
        });
    let spec = DeviceSpec {
        name: text("pi"),
        serial: Some(device(None).serial),
        description: text(""),
        facts: domain::DeviceFacts::default(),
        online: false,
        tags: domain::TagSet::default(),
    };
    h.app().devices.add(&email(), spec).await.unwrap();
    assert_eq!(
        notes.lines(),
        [format!("cli cli - device.create {} {{}}", target())]
    );
}

#[tokio::test]
async fn update_retag_and_reboot_hand_the_store_the_users_origin() {
    let mut h = Harness::new();
    let origins = Notes::default();
    let (update, retag, reboot) = (origins.clone(), origins.clone(), origins.clone());
    h.devices
        .expect_update()
        .times(1)
        .returning(move |_, _, _, origin| {
            update.keep_origin(origin);
            Ok(Some(device(None)))
        });
    h.devices
        .expect_retag()
        .times(1)
        .returning(move |_, _, _, _, origin| {
            retag.keep_origin(origin);
            Ok(Retagged::Matched(1))
        });
    h.devices.expect_owns().returning(|_, _| Ok(true));
    h.commands
        .expect_queue_reboot()
        .times(1)
        .returning(move |_, id, at, _, origin| {
            // A person's reboot names its origin: the store records it.
            reboot.keep_origin(origin.expect("a person's reboot is recorded"));
            Ok(reboot_command(id.clone(), at, true))
        });
    let app = h.app();
    let owner = account(true, None);
    let serial = device(None).serial;
    let changes = DeviceChanges {
        name: Some(text("attic")),
        description: None,
        tags: None,
    };
    app.devices
        .update(by(&owner), &serial, changes)
        .await
        .unwrap();
    let change = TagChange {
        remove: vec![],
        add: vec![Tag::parse("lab").unwrap()],
    };
    app.devices
        .retag(by(&owner), &Selector::All, &change)
        .await
        .unwrap();
    app.devices.reboot(by(&owner), &serial).await.unwrap();
    assert_eq!(origins.lines(), ["user owner@example.com 203.0.113.9"; 3]);
}

#[tokio::test]
async fn delete_asks_to_record_the_device_it_deletes() {
    let mut h = Harness::new();
    let notes = Notes::default();
    let kept = notes.clone();
    h.devices
        .expect_delete()
        .times(1)
        .returning(move |_, _, audit| {
            kept.keep(audit);
            Ok(true)
        });
    let owner = account(true, None);
    h.app()
        .devices
        .delete(by(&owner), &device(None).serial)
        .await
        .unwrap();
    assert_eq!(
        notes.lines(),
        [format!(
            "user owner@example.com 203.0.113.9 device.delete {} {{}}",
            target()
        )]
    );
}
