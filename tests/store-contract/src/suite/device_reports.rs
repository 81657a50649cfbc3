//! What heartbeats report: last seen, facts and listening ports.

use crate::{
    Store, account, amount, created_device, enrol, minutes, port, ports_report, report, rpi_4b,
    serial, t0, text,
};
use application::ports::DeviceRepository;
use domain::secret::SecretHash;
use domain::{Device, DeviceFacts, FactsReport, Protocol};

/// Ports are empty until reported and hidden from other accounts.
pub async fn ports_are_empty_until_reported_and_hidden_from_other_accounts(store: impl Store) {
    let ann = account(&store, "ann").await;
    let bob = account(&store, "bob").await;
    let pi = serial(1);
    enrol(&store, ann.id, &pi, "tok").await;
    let made = created_device(ann.id, 2);
    DeviceRepository::create(
        &store,
        &made,
        &crate::noted(domain::AuditAction::DeviceCreate),
    )
    .await
    .unwrap();

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

/// Reported ports are listed ascending and replaced only when sent.
pub async fn reported_ports_are_listed_ascending_and_replaced_only_when_sent(store: impl Store) {
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

/// A heartbeat sets last seen and applies the report.
pub async fn a_heartbeat_sets_last_seen_and_applies_the_report(store: impl Store) {
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
        disk_capacity: Some(amount(64_000_000_000)),
        disk_used: Some(amount(8_000_000_000)),
        processor_speed: amount(1800),
        ram_capacity: amount(8192),
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
        ram_capacity: Some(amount(16384)),
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
                ram_capacity: amount(16384),
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

/// A heartbeat of a deleted or unknown device is ignored.
pub async fn a_heartbeat_of_a_deleted_or_unknown_device_is_ignored(store: impl Store) {
    let ann = account(&store, "ann").await;
    let pi = serial(1);
    enrol(&store, ann.id, &pi, "tok").await;
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

/// Heartbeats of many devices at once are each stored, with their own
/// time and facts, and one of a device deleted before is still ignored.
pub async fn racing_heartbeats_are_each_stored(store: impl Store) {
    let ann = account(&store, "ann").await;
    let devices: Vec<_> = (1..=40).map(serial).collect();
    for (n, device) in devices.iter().enumerate() {
        enrol(&store, ann.id, device, &format!("tok-{n}")).await;
    }
    let gone = devices[0].clone();
    store
        .delete(
            ann.id,
            &gone,
            &crate::noted(domain::AuditAction::DeviceDelete),
        )
        .await
        .unwrap();
    let seen = |n: usize| t0() + minutes(i64::try_from(n).unwrap() + 1);
    let racing = devices.clone();
    let outcomes = crate::race(racing.len(), |n| {
        let (store, device) = (store.clone(), racing[n].clone());
        async move {
            let report = FactsReport {
                uname: Some(text(&format!("Linux pi-{n}"))),
                ..report()
            };
            store.record_heartbeat(&device, &report, seen(n)).await
        }
    })
    .await;
    assert!(outcomes.iter().all(Result::is_ok), "{outcomes:?}");
    assert_eq!(store.find_for(ann.id, &gone).await.unwrap(), None);
    for (n, device) in devices.iter().enumerate().skip(1) {
        let stored = store.find_for(ann.id, device).await.unwrap().unwrap();
        assert_eq!(stored.last_seen, Some(seen(n)), "device {n}");
        assert_eq!(
            stored.facts.uname,
            text::<domain::Uname>(&format!("Linux pi-{n}")),
            "device {n}"
        );
    }
}
