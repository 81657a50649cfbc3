//! Devices: creation and listing, edits and deletion.

use crate::{
    RACERS, Store, account, ack, created_device, device, done, enrol, ids, minutes, new_account,
    port, ports_report, queue, race, serial, t0, take, text,
};
use application::ports::{AccountRepository, CreateDeviceError, DeviceChanges, DeviceRepository};
use chrono::Duration;
use domain::secret::SecretHash;
use domain::{Device, Protocol};

/// The device is stored exactly as `device`, for its owner and by its token.
pub(super) async fn assert_untouched(store: &impl Store, device: &Device, token: &str) {
    assert_eq!(
        store
            .find_for(device.owner, &device.serial)
            .await
            .unwrap()
            .as_ref(),
        Some(device)
    );
    assert_eq!(
        store
            .find_by_token(&SecretHash::of(token))
            .await
            .unwrap()
            .as_ref(),
        Some(device)
    );
}

/// Devices are listed in order and foreign ones are invisible.
pub async fn devices_are_listed_in_order_and_foreign_ones_are_invisible(store: impl Store) {
    let ann = AccountRepository::create(
        &store,
        new_account("ann@example.com", None),
        &crate::noted(domain::AuditAction::AccountCreate),
    )
    .await
    .unwrap();
    let bob = AccountRepository::create(
        &store,
        new_account("bob@example.com", None),
        &crate::noted(domain::AuditAction::AccountCreate),
    )
    .await
    .unwrap();
    let later = device(ann.id, 1, t0() + Duration::seconds(5));
    let first_b = device(ann.id, 9, t0());
    let first_a = device(ann.id, 2, t0());
    for d in [&later, &first_b, &first_a] {
        DeviceRepository::create(&store, d, &crate::noted(domain::AuditAction::DeviceCreate))
            .await
            .unwrap();
    }
    let bobs = device(bob.id, 3, t0());
    DeviceRepository::create(
        &store,
        &bobs,
        &crate::noted(domain::AuditAction::DeviceCreate),
    )
    .await
    .unwrap();

    let listed = store.list_for(ann.id).await.unwrap();
    let mut expected = vec![first_a.clone(), first_b.clone()];
    expected.sort_by(|a, b| a.serial.cmp(&b.serial));
    expected.push(later.clone());
    assert_eq!(listed, expected);

    assert_eq!(
        store.find_for(ann.id, &later.serial).await.unwrap(),
        Some(later.clone())
    );
    assert_eq!(store.find_for(ann.id, &bobs.serial).await.unwrap(), None);
    assert!(store.owns(ann.id, &later.serial).await.unwrap());
    assert!(!store.owns(ann.id, &bobs.serial).await.unwrap());
    assert!(store.owns(bob.id, &bobs.serial).await.unwrap());

    let again = DeviceRepository::create(
        &store,
        &device(bob.id, 1, t0()),
        &crate::noted(domain::AuditAction::DeviceCreate),
    )
    .await;
    assert!(matches!(again, Err(CreateDeviceError::DuplicateSerial)));
}

/// An update changes only the fields given.
pub async fn an_update_changes_only_the_fields_given(store: impl Store) {
    let ann = account(&store, "ann").await;
    let made = created_device(ann.id, 1);
    DeviceRepository::create(
        &store,
        &made,
        &crate::noted(domain::AuditAction::DeviceCreate),
    )
    .await
    .unwrap();

    let renamed = store
        .update(
            ann.id,
            &made.serial,
            &DeviceChanges {
                name: Some(text("kitchen")),
                description: None,
                tags: None,
            },
            &crate::origin(),
        )
        .await
        .unwrap();
    let expected = Device {
        name: text("kitchen"),
        ..made.clone()
    };
    assert_eq!(renamed, Some(expected.clone()));

    let described = store
        .update(
            ann.id,
            &made.serial,
            &DeviceChanges {
                name: None,
                description: Some(text("by the fridge")),
                tags: None,
            },
            &crate::origin(),
        )
        .await
        .unwrap();
    let expected = Device {
        description: text("by the fridge"),
        ..expected
    };
    assert_eq!(described, Some(expected.clone()));

    let both = store
        .update(
            ann.id,
            &made.serial,
            &DeviceChanges {
                name: Some(text("hall")),
                description: Some(text("")),
                tags: None,
            },
            &crate::origin(),
        )
        .await
        .unwrap();
    let expected = Device {
        name: text("hall"),
        description: text(""),
        ..expected
    };
    assert_eq!(both, Some(expected.clone()));

    let nothing = store
        .update(
            ann.id,
            &made.serial,
            &DeviceChanges::default(),
            &crate::origin(),
        )
        .await
        .unwrap();
    assert_eq!(nothing, Some(expected.clone()));
    assert_eq!(
        store.find_for(ann.id, &made.serial).await.unwrap(),
        Some(expected)
    );
}

/// An update of a foreign or missing device changes nothing.
pub async fn an_update_of_a_foreign_or_missing_device_changes_nothing(store: impl Store) {
    let ann = account(&store, "ann").await;
    let bob = account(&store, "bob").await;
    let bobs = created_device(bob.id, 1);
    DeviceRepository::create(
        &store,
        &bobs,
        &crate::noted(domain::AuditAction::DeviceCreate),
    )
    .await
    .unwrap();
    let changes = DeviceChanges {
        name: Some(text("stolen")),
        description: Some(text("mine now")),
        tags: None,
    };

    assert_eq!(
        store
            .update(ann.id, &bobs.serial, &changes, &crate::origin())
            .await
            .unwrap(),
        None
    );
    assert_eq!(
        store
            .update(bob.id, &serial(2), &changes, &crate::origin())
            .await
            .unwrap(),
        None
    );
    assert_eq!(
        store.find_for(bob.id, &bobs.serial).await.unwrap(),
        Some(bobs)
    );
    assert!(store.list_for(ann.id).await.unwrap().is_empty());
    assert_eq!(store.list_for(bob.id).await.unwrap().len(), 1);
}

/// A deleted device goes with its token ports and commands.
pub async fn a_deleted_device_goes_with_its_token_ports_and_commands(store: impl Store) {
    let ann = account(&store, "ann").await;
    let pi = serial(1);
    let kept = serial(2);
    enrol(&store, ann.id, &pi, "pi-token").await;
    enrol(&store, ann.id, &kept, "kept-token").await;
    store
        .record_heartbeat(
            &pi,
            &ports_report(vec![port(22, Protocol::Tcp, "sshd")]),
            t0(),
        )
        .await
        .unwrap();
    assert!(queue(&store, &pi, "handed-out", t0()).await);
    assert_eq!(ids(&take(&store, &pi, t0()).await), ["handed-out"]);
    assert!(ack(&store, &pi, "handed-out", done(""), t0()).await);
    assert!(queue(&store, &pi, "pending", t0() + minutes(1)).await);

    assert!(
        store
            .delete(
                ann.id,
                &pi,
                &crate::noted(domain::AuditAction::DeviceDelete)
            )
            .await
            .unwrap()
    );

    assert_eq!(store.find_for(ann.id, &pi).await.unwrap(), None);
    let listed = store.list_for(ann.id).await.unwrap();
    assert_eq!(
        listed.iter().map(|d| &d.serial).collect::<Vec<_>>(),
        [&kept]
    );
    assert_eq!(
        store
            .find_by_token(&SecretHash::of("pi-token"))
            .await
            .unwrap(),
        None
    );
    assert_eq!(store.ports(ann.id, &pi).await.unwrap(), None);
    assert!(take(&store, &pi, t0() + minutes(2)).await.is_empty());
    for id in ["handed-out", "pending"] {
        assert!(
            !ack(&store, &pi, id, done("ok"), t0() + minutes(2)).await,
            "{id} was acknowledged after its device was deleted"
        );
    }
    assert!(
        !store
            .delete(
                ann.id,
                &pi,
                &crate::noted(domain::AuditAction::DeviceDelete)
            )
            .await
            .unwrap()
    );

    // A device made again with the serial inherits nothing.
    let mut again = created_device(ann.id, 1);
    again.wormhole_slug = "again".into();
    DeviceRepository::create(
        &store,
        &again,
        &crate::noted(domain::AuditAction::DeviceCreate),
    )
    .await
    .unwrap();
    assert_eq!(store.ports(ann.id, &pi).await.unwrap(), Some(vec![]));
    assert!(take(&store, &pi, t0() + minutes(2)).await.is_empty());
    assert!(!ack(&store, &pi, "pending", done("ok"), t0() + minutes(2)).await);
    assert_eq!(
        store
            .find_by_token(&SecretHash::of("pi-token"))
            .await
            .unwrap(),
        None
    );
}

/// Deleting a device of another account keeps it.
pub async fn deleting_a_device_of_another_account_keeps_it(store: impl Store) {
    let ann = account(&store, "ann").await;
    let bob = account(&store, "bob").await;
    let pi = serial(1);
    let bobs = enrol(&store, bob.id, &pi, "bob-token").await;
    assert!(queue(&store, &pi, "bob-reboot", t0()).await);

    assert!(
        !store
            .delete(
                ann.id,
                &pi,
                &crate::noted(domain::AuditAction::DeviceDelete)
            )
            .await
            .unwrap()
    );
    assert!(
        !store
            .delete(
                ann.id,
                &serial(9),
                &crate::noted(domain::AuditAction::DeviceDelete)
            )
            .await
            .unwrap()
    );

    assert_untouched(&store, &bobs, "bob-token").await;
    assert_eq!(ids(&take(&store, &pi, t0()).await), ["bob-reboot"]);
}

/// Creations of one serial at once, by one account or several: exactly one
/// device is made, every other creation is told the serial is taken.
pub async fn racing_creations_of_one_serial_make_one_device(store: impl Store) {
    let ann = account(&store, "ann").await;
    let bob = account(&store, "bob").await;
    let attempts = race(RACERS, |i| {
        let store = store.clone();
        let owner = if i % 2 == 0 { ann.id } else { bob.id };
        let mut made = created_device(owner, 1);
        made.name = text(&format!("device-{i}"));
        made.wormhole_slug = format!("created-{i}");
        async move {
            (
                DeviceRepository::create(
                    &store,
                    &made,
                    &crate::noted(domain::AuditAction::DeviceCreate),
                )
                .await,
                made,
            )
        }
    })
    .await;

    let mut winners = Vec::new();
    for (i, (attempt, made)) in attempts.into_iter().enumerate() {
        match attempt {
            Ok(()) => winners.push(made),
            Err(CreateDeviceError::DuplicateSerial) => {}
            Err(other) => panic!("creation {i} failed with {other:?}"),
        }
    }
    assert_eq!(winners.len(), 1, "{winners:?}");
    let winner = winners.pop().unwrap();
    assert_eq!(
        store.find_for(winner.owner, &serial(1)).await.unwrap(),
        Some(winner.clone())
    );
    let mut everyones = store.list_for(ann.id).await.unwrap();
    everyones.extend(store.list_for(bob.id).await.unwrap());
    assert_eq!(everyones, [winner]);
}
