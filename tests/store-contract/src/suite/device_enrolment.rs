//! Enrolment of devices and their device tokens.

use super::devices::assert_untouched;
use crate::{
    RACERS, Store, account, created_device, enrol, enrolment, ids, minutes, port, ports_report,
    queue, race, report, rpi_4b, serial, t0, take, text,
};
use application::ports::{DeviceChanges, DeviceRepository, EnrolError};
use chrono::Duration;
use domain::secret::SecretHash;
use domain::{Device, DeviceFacts, MachineType, Protocol};

/// Enrolling a new serial creates a bare device.
pub async fn enrolling_a_new_serial_creates_a_bare_device(store: impl Store) {
    let ann = account(&store, "ann").await;
    let pi = serial(1);
    let mut e = enrolment(ann.id, &pi, "tok-1");
    e.now = t0() + minutes(5);
    let device = store
        .enroll(&e, &crate::noted(domain::AuditAction::DeviceInstall))
        .await
        .unwrap();

    let expected = Device {
        serial: pi.clone(),
        owner: ann.id,
        name: text("pi-tok-1"),
        description: text(""),
        wormhole_slug: "slug-tok-1".into(),
        facts: DeviceFacts::default(),
        tags: domain::TagSet::default(),
        last_seen: None,
        created_time: t0() + minutes(5),
    };
    assert_eq!(device, expected);
    assert_eq!(device.facts.machine_type, MachineType::UNKNOWN);
    assert!(!device.is_online(t0() + minutes(5), chrono::Duration::seconds(90)));
    assert_eq!(
        store.find_by_token(&SecretHash::of("tok-1")).await.unwrap(),
        Some(expected.clone())
    );
    assert_eq!(store.list_for(ann.id).await.unwrap(), vec![expected]);
}

/// Enrolling a new serial keeps the machine type sent.
pub async fn enrolling_a_new_serial_keeps_the_machine_type_sent(store: impl Store) {
    let ann = account(&store, "ann").await;
    let mut e = enrolment(ann.id, &serial(1), "tok-1");
    e.machine_type = Some(rpi_4b());
    let device = store
        .enroll(&e, &crate::noted(domain::AuditAction::DeviceInstall))
        .await
        .unwrap();
    assert_eq!(device.facts.machine_type, rpi_4b());
    assert_eq!(
        device.facts,
        DeviceFacts {
            machine_type: rpi_4b(),
            ..DeviceFacts::default()
        }
    );
}

/// Enrolling again rekeys and renames but keeps everything else.
pub async fn enrolling_again_rekeys_and_renames_but_keeps_everything_else(store: impl Store) {
    let ann = account(&store, "ann").await;
    let pi = serial(1);
    let mut first = enrolment(ann.id, &pi, "old-token");
    first.machine_type = Some(MachineType::from_code("rpi_3b").unwrap());
    store
        .enroll(&first, &crate::noted(domain::AuditAction::DeviceInstall))
        .await
        .unwrap();
    store
        .update(
            ann.id,
            &pi,
            &DeviceChanges {
                name: None,
                description: Some(text("in the attic")),
                tags: None,
            },
            &crate::origin(),
        )
        .await
        .unwrap()
        .unwrap();
    let mut facts = report();
    facts.ports = Some(vec![port(22, Protocol::Tcp, "sshd")]);
    store
        .record_heartbeat(&pi, &facts, t0() + minutes(1))
        .await
        .unwrap();
    assert!(queue(&store, &pi, "reboot-1", t0() + minutes(2)).await);
    let before = store.find_for(ann.id, &pi).await.unwrap().unwrap();

    // Again with a machine type: the type changes too.
    let mut again = enrolment(ann.id, &pi, "new-token");
    again.name = text("renamed");
    again.machine_type = Some(MachineType::from_code("rpi_5").unwrap());
    again.wormhole_slug = "another-slug".into();
    // Offline again: the heartbeat at one minute is older than this.
    again.now = t0() + minutes(3);
    again.online_after = t0() + minutes(1);
    let rekeyed = store
        .enroll(&again, &crate::noted(domain::AuditAction::DeviceInstall))
        .await
        .unwrap();
    let expected = Device {
        name: text("renamed"),
        facts: DeviceFacts {
            machine_type: MachineType::from_code("rpi_5").unwrap(),
            ..before.facts.clone()
        },
        ..before.clone()
    };
    assert_eq!(rekeyed, expected);
    assert_eq!(rekeyed.wormhole_slug, before.wormhole_slug);
    assert_eq!(rekeyed.description, "in the attic");
    assert_eq!(rekeyed.created_time, t0());
    assert_eq!(
        store.find_for(ann.id, &pi).await.unwrap(),
        Some(expected.clone())
    );
    assert_eq!(
        store
            .find_by_token(&SecretHash::of("old-token"))
            .await
            .unwrap(),
        None
    );
    assert_eq!(
        store
            .find_by_token(&SecretHash::of("new-token"))
            .await
            .unwrap(),
        Some(expected.clone())
    );

    // Again without a machine type: the type stays.
    let mut third = enrolment(ann.id, &pi, "third-token");
    third.name = text("renamed again");
    third.online_after = t0() + minutes(1);
    let rekeyed = store
        .enroll(&third, &crate::noted(domain::AuditAction::DeviceInstall))
        .await
        .unwrap();
    assert_eq!(
        rekeyed,
        Device {
            name: text("renamed again"),
            ..expected
        }
    );
    assert_eq!(
        store
            .find_by_token(&SecretHash::of("new-token"))
            .await
            .unwrap(),
        None
    );

    assert_eq!(
        store.ports(ann.id, &pi).await.unwrap(),
        Some(vec![port(22, Protocol::Tcp, "sshd")])
    );
    assert_eq!(
        ids(&take(&store, &pi, t0() + minutes(4)).await),
        ["reboot-1"]
    );
    assert_eq!(store.list_for(ann.id).await.unwrap().len(), 1);
}

/// An online device is not rekeyed.
pub async fn an_online_device_is_not_rekeyed(store: impl Store) {
    let ann = account(&store, "ann").await;
    let pi = serial(1);
    let enrolled = enrol(&store, ann.id, &pi, "live-token").await;
    store.record_heartbeat(&pi, &report(), t0()).await.unwrap();
    let mut again = enrolment(ann.id, &pi, "thief-token");
    again.online_after = t0() - Duration::seconds(1);
    assert!(matches!(
        store
            .enroll(&again, &crate::noted(domain::AuditAction::DeviceInstall))
            .await,
        Err(EnrolError::Online)
    ));
    let live = store
        .find_by_token(&SecretHash::of("live-token"))
        .await
        .unwrap();
    assert_eq!(live.map(|d| d.serial), Some(enrolled.serial));
    assert_eq!(
        store
            .find_by_token(&SecretHash::of("thief-token"))
            .await
            .unwrap(),
        None
    );
    // Once its last heartbeat is as old as the window, it is offline.
    again.online_after = t0();
    assert!(
        store
            .enroll(&again, &crate::noted(domain::AuditAction::DeviceInstall))
            .await
            .is_ok()
    );
}

/// A serial of another account cannot enrol.
pub async fn a_serial_of_another_account_cannot_enrol(store: impl Store) {
    let ann = account(&store, "ann").await;
    let bob = account(&store, "bob").await;
    let pi = serial(1);
    let bobs = enrol(&store, bob.id, &pi, "bob-token").await;
    store
        .record_heartbeat(
            &pi,
            &ports_report(vec![port(80, Protocol::Tcp, "nginx")]),
            t0(),
        )
        .await
        .unwrap();
    let bobs = store.find_for(bob.id, &bobs.serial).await.unwrap().unwrap();

    let mut e = enrolment(ann.id, &pi, "ann-token");
    e.machine_type = Some(rpi_4b());
    let refused = store
        .enroll(&e, &crate::noted(domain::AuditAction::DeviceInstall))
        .await;
    assert!(
        matches!(refused, Err(EnrolError::ForeignSerial)),
        "{refused:?}"
    );

    assert_untouched(&store, &bobs, "bob-token").await;
    assert_eq!(
        store
            .find_by_token(&SecretHash::of("ann-token"))
            .await
            .unwrap(),
        None
    );
    assert_eq!(store.find_for(ann.id, &pi).await.unwrap(), None);
    assert!(store.list_for(ann.id).await.unwrap().is_empty());
    assert_eq!(
        store.ports(bob.id, &pi).await.unwrap(),
        Some(vec![port(80, Protocol::Tcp, "nginx")])
    );
}

/// A device created without a token is enrolled by its owner.
pub async fn a_device_created_without_a_token_is_enrolled_by_its_owner(store: impl Store) {
    let ann = account(&store, "ann").await;
    let made = created_device(ann.id, 7);
    DeviceRepository::create(
        &store,
        &made,
        &crate::noted(domain::AuditAction::DeviceCreate),
    )
    .await
    .unwrap();

    let mut e = enrolment(ann.id, &made.serial, "first-token");
    e.name = text("enrolled");
    // Offline: it was last seen when it was created.
    e.online_after = made.last_seen.unwrap();
    let enrolled = store
        .enroll(&e, &crate::noted(domain::AuditAction::DeviceInstall))
        .await
        .unwrap();
    let expected = Device {
        name: text("enrolled"),
        ..made
    };
    assert_eq!(enrolled, expected);
    assert_eq!(
        store
            .find_by_token(&SecretHash::of("first-token"))
            .await
            .unwrap(),
        Some(expected)
    );
}

/// Enrolments of one new serial at once by its owner (an agent retrying,
/// say): no error, one device, created by one of them; each is handed the
/// device with its own name, and exactly one token, the one of the last
/// enrolment to be applied, is current.
pub async fn racing_enrolments_of_a_new_serial_make_one_device(store: impl Store) {
    let ann = account(&store, "ann").await;
    let pi = serial(1);
    let enrolled = race(RACERS, |i| {
        let store = store.clone();
        let e = enrolment(ann.id, &pi, &format!("tok-{i}"));
        async move {
            store
                .enroll(&e, &crate::noted(domain::AuditAction::DeviceInstall))
                .await
        }
    })
    .await;
    let enrolled: Vec<Device> = enrolled
        .into_iter()
        .enumerate()
        .map(|(i, e)| e.unwrap_or_else(|error| panic!("enrolment {i} failed with {error:?}")))
        .collect();

    let first = &enrolled[0];
    assert!(
        (0..RACERS).any(|i| first.wormhole_slug == format!("slug-tok-{i}")),
        "{first:?}"
    );
    for (i, device) in enrolled.iter().enumerate() {
        let expected = Device {
            name: text(&format!("pi-tok-{i}")),
            ..first.clone()
        };
        assert_eq!(device, &expected, "enrolment {i}");
    }
    let stored = store.list_for(ann.id).await.unwrap();
    assert_eq!(stored.len(), 1, "{stored:?}");
    let stored = stored.into_iter().next().unwrap();
    assert_eq!(
        stored,
        Device {
            name: stored.name.clone(),
            ..first.clone()
        }
    );

    let mut current = Vec::new();
    for i in 0..RACERS {
        if let Some(found) = store
            .find_by_token(&SecretHash::of(&format!("tok-{i}")))
            .await
            .unwrap()
        {
            assert_eq!(found, stored);
            current.push(i);
        }
    }
    assert_eq!(current.len(), 1, "current tokens: {current:?}");
    assert_eq!(stored.name.as_str(), format!("pi-tok-{}", current[0]));
}
