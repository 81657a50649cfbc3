//! Devices: creation and listing, enrolment and device tokens, edits and
//! deletion, heartbeats and ports.

use application::ports::{
    AccountRepository, CreateDeviceError, DeviceChanges, DeviceRepository, EnrolError,
};
use chrono::Duration;
use domain::secret::SecretHash;
use domain::{Device, DeviceFacts, FactsReport, MachineType, Protocol};
use store_contract::{
    RACERS, Store, account, ack, created_device, device, done, enrol, enrolment, ids, minutes,
    new_account, port, ports_report, queue, race, report, rpi_4b, serial, t0, take, text,
};

/// The device is stored exactly as `device`, for its owner and by its token.
async fn assert_untouched(store: &impl Store, device: &Device, token: &str) {
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

async fn devices_are_listed_in_order_and_foreign_ones_are_invisible(store: impl Store) {
    let ann = AccountRepository::create(&store, new_account("ann@example.com", None))
        .await
        .unwrap();
    let bob = AccountRepository::create(&store, new_account("bob@example.com", None))
        .await
        .unwrap();
    let later = device(ann.id, 1, t0() + Duration::seconds(5));
    let first_b = device(ann.id, 9, t0());
    let first_a = device(ann.id, 2, t0());
    for d in [&later, &first_b, &first_a] {
        DeviceRepository::create(&store, d).await.unwrap();
    }
    let bobs = device(bob.id, 3, t0());
    DeviceRepository::create(&store, &bobs).await.unwrap();

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

    let again = DeviceRepository::create(&store, &device(bob.id, 1, t0())).await;
    assert!(matches!(again, Err(CreateDeviceError::DuplicateSerial)));
}

async fn enrolling_a_new_serial_creates_a_bare_device(store: impl Store) {
    let ann = account(&store, "ann").await;
    let pi = serial(1);
    let mut e = enrolment(ann.id, &pi, "tok-1");
    e.now = t0() + minutes(5);
    let device = store.enroll(&e).await.unwrap();

    let expected = Device {
        serial: pi.clone(),
        owner: ann.id,
        name: text("pi-tok-1"),
        description: text(""),
        wormhole_slug: "slug-tok-1".into(),
        facts: DeviceFacts::default(),
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

async fn enrolling_a_new_serial_keeps_the_machine_type_sent(store: impl Store) {
    let ann = account(&store, "ann").await;
    let mut e = enrolment(ann.id, &serial(1), "tok-1");
    e.machine_type = Some(rpi_4b());
    let device = store.enroll(&e).await.unwrap();
    assert_eq!(device.facts.machine_type, rpi_4b());
    assert_eq!(
        device.facts,
        DeviceFacts {
            machine_type: rpi_4b(),
            ..DeviceFacts::default()
        }
    );
}

async fn enrolling_again_rekeys_and_renames_but_keeps_everything_else(store: impl Store) {
    let ann = account(&store, "ann").await;
    let pi = serial(1);
    let mut first = enrolment(ann.id, &pi, "old-token");
    first.machine_type = Some(MachineType::from_code("rpi_3b").unwrap());
    store.enroll(&first).await.unwrap();
    store
        .update(
            ann.id,
            &pi,
            &DeviceChanges {
                name: None,
                description: Some(text("in the attic")),
            },
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
    let rekeyed = store.enroll(&again).await.unwrap();
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
    let rekeyed = store.enroll(&third).await.unwrap();
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

async fn an_online_device_is_not_rekeyed(store: impl Store) {
    let ann = account(&store, "ann").await;
    let pi = serial(1);
    let enrolled = enrol(&store, ann.id, &pi, "live-token").await;
    store.record_heartbeat(&pi, &report(), t0()).await.unwrap();
    let mut again = enrolment(ann.id, &pi, "thief-token");
    again.online_after = t0() - Duration::seconds(1);
    assert!(matches!(
        store.enroll(&again).await,
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
    assert!(store.enroll(&again).await.is_ok());
}

async fn a_serial_of_another_account_cannot_enrol(store: impl Store) {
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
    let refused = store.enroll(&e).await;
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

async fn a_device_created_without_a_token_is_enrolled_by_its_owner(store: impl Store) {
    let ann = account(&store, "ann").await;
    let made = created_device(ann.id, 7);
    DeviceRepository::create(&store, &made).await.unwrap();

    let mut e = enrolment(ann.id, &made.serial, "first-token");
    e.name = text("enrolled");
    // Offline: it was last seen when it was created.
    e.online_after = made.last_seen.unwrap();
    let enrolled = store.enroll(&e).await.unwrap();
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

async fn an_update_changes_only_the_fields_given(store: impl Store) {
    let ann = account(&store, "ann").await;
    let made = created_device(ann.id, 1);
    DeviceRepository::create(&store, &made).await.unwrap();

    let renamed = store
        .update(
            ann.id,
            &made.serial,
            &DeviceChanges {
                name: Some(text("kitchen")),
                description: None,
            },
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
            },
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
            },
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
        .update(ann.id, &made.serial, &DeviceChanges::default())
        .await
        .unwrap();
    assert_eq!(nothing, Some(expected.clone()));
    assert_eq!(
        store.find_for(ann.id, &made.serial).await.unwrap(),
        Some(expected)
    );
}

async fn an_update_of_a_foreign_or_missing_device_changes_nothing(store: impl Store) {
    let ann = account(&store, "ann").await;
    let bob = account(&store, "bob").await;
    let bobs = created_device(bob.id, 1);
    DeviceRepository::create(&store, &bobs).await.unwrap();
    let changes = DeviceChanges {
        name: Some(text("stolen")),
        description: Some(text("mine now")),
    };

    assert_eq!(
        store.update(ann.id, &bobs.serial, &changes).await.unwrap(),
        None
    );
    assert_eq!(
        store.update(bob.id, &serial(2), &changes).await.unwrap(),
        None
    );
    assert_eq!(
        store.find_for(bob.id, &bobs.serial).await.unwrap(),
        Some(bobs)
    );
    assert!(store.list_for(ann.id).await.unwrap().is_empty());
    assert_eq!(store.list_for(bob.id).await.unwrap().len(), 1);
}

async fn a_deleted_device_goes_with_its_token_ports_and_commands(store: impl Store) {
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

    assert!(store.delete(ann.id, &pi).await.unwrap());

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
    assert!(!store.delete(ann.id, &pi).await.unwrap());

    // A device made again with the serial inherits nothing.
    let mut again = created_device(ann.id, 1);
    again.wormhole_slug = "again".into();
    DeviceRepository::create(&store, &again).await.unwrap();
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

async fn deleting_a_device_of_another_account_keeps_it(store: impl Store) {
    let ann = account(&store, "ann").await;
    let bob = account(&store, "bob").await;
    let pi = serial(1);
    let bobs = enrol(&store, bob.id, &pi, "bob-token").await;
    assert!(queue(&store, &pi, "bob-reboot", t0()).await);

    assert!(!store.delete(ann.id, &pi).await.unwrap());
    assert!(!store.delete(ann.id, &serial(9)).await.unwrap());

    assert_untouched(&store, &bobs, "bob-token").await;
    assert_eq!(ids(&take(&store, &pi, t0()).await), ["bob-reboot"]);
}

async fn ports_are_empty_until_reported_and_hidden_from_other_accounts(store: impl Store) {
    let ann = account(&store, "ann").await;
    let bob = account(&store, "bob").await;
    let pi = serial(1);
    enrol(&store, ann.id, &pi, "tok").await;
    let made = created_device(ann.id, 2);
    DeviceRepository::create(&store, &made).await.unwrap();

    assert_eq!(store.ports(ann.id, &pi).await.unwrap(), Some(vec![]));
    assert_eq!(
        store.ports(ann.id, &made.serial).await.unwrap(),
        Some(vec![])
    );
    store
        .record_heartbeat(
            &pi,
            &ports_report(vec![port(22, Protocol::Tcp, "sshd")]),
            t0(),
        )
        .await
        .unwrap();
    assert_eq!(store.ports(bob.id, &pi).await.unwrap(), None);
    assert_eq!(store.ports(ann.id, &serial(3)).await.unwrap(), None);
}

async fn reported_ports_are_listed_ascending_and_replaced_only_when_sent(store: impl Store) {
    let ann = account(&store, "ann").await;
    let pi = serial(1);
    enrol(&store, ann.id, &pi, "tok").await;

    let first = ports_report(vec![
        port(443, Protocol::Tcp, "nginx"),
        port(53, Protocol::Udp, "dnsmasq"),
        port(22, Protocol::Tcp, "sshd"),
        port(53, Protocol::Tcp, "dnsmasq"),
        port(65535, Protocol::Udp, ""),
    ]);
    store.record_heartbeat(&pi, &first, t0()).await.unwrap();
    let listed = store.ports(ann.id, &pi).await.unwrap().unwrap();
    assert_eq!(
        listed,
        [
            port(22, Protocol::Tcp, "sshd"),
            port(53, Protocol::Tcp, "dnsmasq"),
            port(53, Protocol::Udp, "dnsmasq"),
            port(443, Protocol::Tcp, "nginx"),
            port(65535, Protocol::Udp, ""),
        ]
    );

    // No ports in the report: the list stays.
    store
        .record_heartbeat(&pi, &report(), t0() + minutes(1))
        .await
        .unwrap();
    assert_eq!(
        store.ports(ann.id, &pi).await.unwrap(),
        Some(listed.clone())
    );

    // A new list replaces the old one entirely.
    let second = ports_report(vec![
        port(8080, Protocol::Tcp, "app"),
        port(22, Protocol::Tcp, "dropbear"),
    ]);
    store
        .record_heartbeat(&pi, &second, t0() + minutes(2))
        .await
        .unwrap();
    assert_eq!(
        store.ports(ann.id, &pi).await.unwrap(),
        Some(vec![
            port(22, Protocol::Tcp, "dropbear"),
            port(8080, Protocol::Tcp, "app"),
        ])
    );

    // An empty list is a list: nothing listens any more.
    store
        .record_heartbeat(&pi, &ports_report(vec![]), t0() + minutes(3))
        .await
        .unwrap();
    assert_eq!(store.ports(ann.id, &pi).await.unwrap(), Some(vec![]));
}

async fn a_heartbeat_sets_last_seen_and_applies_the_report(store: impl Store) {
    let ann = account(&store, "ann").await;
    let pi = serial(1);
    let enrolled = enrol(&store, ann.id, &pi, "tok").await;

    let seen = t0() + minutes(1);
    store.record_heartbeat(&pi, &report(), seen).await.unwrap();
    let after = store.find_for(ann.id, &pi).await.unwrap().unwrap();
    let full_facts = DeviceFacts {
        agent_version: text("2.0"),
        operating_system: text("Raspberry Pi OS 12"),
        uname: text("Linux pi 6.1.0"),
        machine_type: rpi_4b(),
        disk_capacity: Some(64_000_000_000),
        disk_used: Some(8_000_000_000),
        processor_speed: 1800,
        ram_capacity: 8192,
    };
    assert_eq!(
        after,
        Device {
            facts: full_facts.clone(),
            last_seen: Some(seen),
            ..enrolled.clone()
        }
    );
    assert!(after.is_online(seen, chrono::Duration::seconds(90)));

    // Present facts replace, absent ones stay, `Some(None)` disks become unknown.
    let later = t0() + minutes(2);
    let partial = FactsReport {
        agent_version: Some(text("2.1")),
        disk_capacity: Some(None),
        disk_used: Some(None),
        ram_capacity: Some(16384),
        ..FactsReport::default()
    };
    store.record_heartbeat(&pi, &partial, later).await.unwrap();
    let after = store.find_for(ann.id, &pi).await.unwrap().unwrap();
    assert_eq!(
        after,
        Device {
            facts: DeviceFacts {
                agent_version: text("2.1"),
                disk_capacity: None,
                disk_used: None,
                ram_capacity: 16384,
                ..full_facts.clone()
            },
            last_seen: Some(later),
            ..enrolled.clone()
        }
    );

    // An empty report only moves last_seen.
    let latest = t0() + minutes(3);
    store
        .record_heartbeat(&pi, &FactsReport::default(), latest)
        .await
        .unwrap();
    let again = store.find_for(ann.id, &pi).await.unwrap().unwrap();
    assert_eq!(
        again,
        Device {
            last_seen: Some(latest),
            ..after
        }
    );
    assert_eq!(
        store.find_by_token(&SecretHash::of("tok")).await.unwrap(),
        Some(again)
    );
}

async fn a_heartbeat_of_a_deleted_or_unknown_device_is_ignored(store: impl Store) {
    let ann = account(&store, "ann").await;
    let pi = serial(1);
    enrol(&store, ann.id, &pi, "tok").await;
    assert!(store.delete(ann.id, &pi).await.unwrap());

    let mut facts = report();
    facts.ports = Some(vec![port(22, Protocol::Tcp, "sshd")]);
    store.record_heartbeat(&pi, &facts, t0()).await.unwrap();
    store
        .record_heartbeat(&serial(2), &facts, t0())
        .await
        .unwrap();

    assert_eq!(store.find_for(ann.id, &pi).await.unwrap(), None);
    assert!(store.list_for(ann.id).await.unwrap().is_empty());
    assert_eq!(store.ports(ann.id, &pi).await.unwrap(), None);
    assert_eq!(
        store.find_by_token(&SecretHash::of("tok")).await.unwrap(),
        None
    );
}

/// Creations of one serial at once, by one account or several: exactly one
/// device is made, every other creation is told the serial is taken.
async fn racing_creations_of_one_serial_make_one_device(store: impl Store) {
    let ann = account(&store, "ann").await;
    let bob = account(&store, "bob").await;
    let attempts = race(RACERS, |i| {
        let store = store.clone();
        let owner = if i % 2 == 0 { ann.id } else { bob.id };
        let mut made = created_device(owner, 1);
        made.name = text(&format!("device-{i}"));
        made.wormhole_slug = format!("created-{i}");
        async move { (DeviceRepository::create(&store, &made).await, made) }
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

/// Enrolments of one new serial at once by its owner (an agent retrying,
/// say): no error, one device, created by one of them; each is handed the
/// device with its own name, and exactly one token, the one of the last
/// enrolment to be applied, is current.
async fn racing_enrolments_of_a_new_serial_make_one_device(store: impl Store) {
    let ann = account(&store, "ann").await;
    let pi = serial(1);
    let enrolled = race(RACERS, |i| {
        let store = store.clone();
        let e = enrolment(ann.id, &pi, &format!("tok-{i}"));
        async move { store.enroll(&e).await }
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

store_contract::contract_tests!(
    an_online_device_is_not_rekeyed,
    devices_are_listed_in_order_and_foreign_ones_are_invisible,
    racing_creations_of_one_serial_make_one_device,
    enrolling_a_new_serial_creates_a_bare_device,
    enrolling_a_new_serial_keeps_the_machine_type_sent,
    enrolling_again_rekeys_and_renames_but_keeps_everything_else,
    a_serial_of_another_account_cannot_enrol,
    a_device_created_without_a_token_is_enrolled_by_its_owner,
    racing_enrolments_of_a_new_serial_make_one_device,
    an_update_changes_only_the_fields_given,
    an_update_of_a_foreign_or_missing_device_changes_nothing,
    a_deleted_device_goes_with_its_token_ports_and_commands,
    deleting_a_device_of_another_account_keeps_it,
    ports_are_empty_until_reported_and_hidden_from_other_accounts,
    reported_ports_are_listed_ascending_and_replaced_only_when_sent,
    a_heartbeat_sets_last_seen_and_applies_the_report,
    a_heartbeat_of_a_deleted_or_unknown_device_is_ignored,
);
