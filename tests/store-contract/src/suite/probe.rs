//! The store's probe: its ping, and its census of devices, commands by state
//! and mail waiting in the outbox, over every account.

use super::commands::seconds;
use crate::{
    Store, account, ack, command_id, device, done, failed, lapse, minutes, new_account, received,
    report, store_reset_key, t0, take,
};
use application::ports::{AccountRepository, Census, CommandCounts, DeviceRepository};
use domain::{AccountId, Serial, Timestamp};

/// The moment of the census in these tests, an hour after [`t0`].
fn now() -> Timestamp {
    t0() + minutes(60)
}

/// A device heard from at or after this is online, in these tests.
fn online_after() -> Timestamp {
    now() - seconds(90)
}

/// A command never acknowledged and issued at or before this has lapsed, in
/// these tests.
fn lapsed_before() -> Timestamp {
    now() - lapse()
}

/// Creates the device [`serial`](crate::serial)`(serial_byte)` of `owner`,
/// last heard from at `last_seen` (never: `None`).
async fn device_seen(
    store: &impl Store,
    owner: AccountId,
    serial_byte: u8,
    last_seen: Option<Timestamp>,
) -> Serial {
    let mut made = device(owner, serial_byte, t0());
    made.last_seen = last_seen;
    DeviceRepository::create(
        store,
        &made,
        &crate::noted(domain::AuditAction::DeviceCreate),
    )
    .await
    .unwrap();
    made.serial
}

/// Queues the reboot `id` for `device`, issued at `at`, whatever the device
/// still has unfinished: with the lapse at `at`, nothing issued earlier
/// stands in its way (so a device's commands are issued in time order).
async fn issue(store: &impl Store, device: &Serial, id: &str, at: Timestamp) {
    let queued = store
        .queue_reboot(device, &command_id(id), at, at, None)
        .await
        .unwrap()
        .queued;
    assert!(queued, "the reboot {id} was not queued");
}

/// Every command of `devices`, counted by the state the domain gives each
/// at [`now`] (the counts the census must agree with).
async fn states_of(store: &impl Store, devices: &[&Serial]) -> CommandCounts {
    let mut counts = CommandCounts::default();
    for device in devices {
        for record in store.history(device, 1000).await.unwrap() {
            counts.add(record.state(now(), lapse()), 1);
        }
    }
    counts
}

/// The database answers a ping.
pub async fn a_ping_succeeds(store: impl Store) {
    store.ping().await.unwrap();
}

/// An empty store counts nothing.
pub async fn an_empty_store_counts_nothing(store: impl Store) {
    let census = store.census(online_after(), lapsed_before()).await.unwrap();
    assert_eq!(census, Census::default());
}

/// Devices (online or not), commands in each state and mail still to be
/// delivered, counted over every account.
pub async fn the_census_counts_devices_commands_by_state_and_waiting_mail(store: impl Store) {
    // Two accounts, each with its verification mail, and a third without.
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
    let carol = account(&store, "carol").await;

    // Online: heard from 10 s ago, a second after the limit, and just now.
    // Offline: exactly at the limit, a second before it, and never.
    let a = device_seen(&store, ann.id, 1, Some(now() - seconds(10))).await;
    let b = device_seen(&store, ann.id, 2, Some(online_after() + seconds(1))).await;
    let g = device_seen(&store, ann.id, 7, Some(online_after())).await;
    let c = device_seen(&store, bob.id, 3, Some(online_after() - seconds(1))).await;
    let d = device_seen(&store, bob.id, 4, None).await;
    let e = device_seen(&store, carol.id, 5, Some(now())).await;
    let f = device_seen(&store, carol.id, 6, None).await;

    // Device a: an old command carried out (acknowledged, so never lapsed),
    // one failed, one handed out and lapsed, one received, one done.
    issue(&store, &a, "a-done-old", now() - minutes(50)).await;
    assert!(ack(&store, &a, "a-done-old", done(""), now() - minutes(49)).await);
    issue(&store, &a, "a-failed", now() - minutes(40)).await;
    assert!(ack(&store, &a, "a-failed", failed("no"), now() - minutes(39)).await);
    issue(&store, &a, "a-lapsed", now() - minutes(30)).await;
    assert_eq!(take(&store, &a, now() - minutes(29)).await.len(), 1);
    issue(&store, &a, "a-received", now() - minutes(5)).await;
    assert_eq!(take(&store, &a, now() - minutes(5)).await.len(), 1);
    assert!(ack(&store, &a, "a-received", received(), now() - minutes(4)).await);
    issue(&store, &a, "a-done", now() - minutes(3)).await;
    assert!(ack(&store, &a, "a-done", done(""), now() - minutes(2)).await);

    // Device b: never handed out, issued exactly at the lapse (lapsed) and a
    // second after it (pending); one failed.
    issue(&store, &b, "b-at-lapse", lapsed_before()).await;
    issue(&store, &b, "b-pending", lapsed_before() + seconds(1)).await;
    issue(&store, &b, "b-failed", now() - minutes(2)).await;
    assert!(ack(&store, &b, "b-failed", failed("no"), now() - minutes(1)).await);

    // Device c: two handed out, one received.
    issue(&store, &c, "c-delivered-1", now() - minutes(3)).await;
    assert_eq!(take(&store, &c, now() - minutes(3)).await.len(), 1);
    issue(&store, &c, "c-delivered-2", now() - minutes(2)).await;
    assert_eq!(take(&store, &c, now() - minutes(1)).await.len(), 2);
    issue(&store, &c, "c-received", now() - minutes(1)).await;
    assert!(ack(&store, &c, "c-received", received(), now() - seconds(30)).await);

    // Device d: four never handed out and lapsed, one received.
    for i in 0..4 {
        let id = format!("d-lapsed-{i}");
        issue(&store, &d, &id, now() - minutes(60) + minutes(i)).await;
    }
    issue(&store, &d, "d-received", now() - seconds(30)).await;
    assert!(ack(&store, &d, "d-received", received(), now() - seconds(20)).await);

    // Device e: two carried out, three failed.
    for i in 0..5 {
        let id = format!("e-{i}");
        issue(&store, &e, &id, now() - minutes(20) + minutes(i)).await;
        let outcome = if i < 2 { done("") } else { failed("no") };
        assert!(ack(&store, &e, &id, outcome, now() - minutes(19) + minutes(i)).await);
    }

    // Five mails: the two verifications and three reset keys. One delivered
    // and one given up (both leave the outbox), one to be retried and one
    // being sent (both still waiting), one not tried yet.
    store_reset_key(&store, &ann, "reset-ann-1", t0() + seconds(1)).await;
    store_reset_key(&store, &ann, "reset-ann-2", t0() + seconds(2)).await;
    store_reset_key(&store, &bob, "reset-bob", t0() + seconds(3)).await;
    let lease = now() + minutes(2);
    for _ in 0..2 {
        let sent = store.claim_due(now(), lease).await.unwrap().unwrap();
        store.remove(&sent.email.id).await.unwrap();
    }
    let retried = store.claim_due(now(), lease).await.unwrap().unwrap();
    store
        .retry_at(&retried.email.id, 1, now() + minutes(5), "refused")
        .await
        .unwrap();
    assert!(store.claim_due(now(), lease).await.unwrap().is_some());

    let census = store.census(online_after(), lapsed_before()).await.unwrap();
    let expected = CommandCounts {
        pending: 1,
        delivered: 2,
        received: 3,
        done: 4,
        failed: 5,
        lapsed: 6,
    };
    assert_eq!(
        census,
        Census {
            devices: 7,
            devices_online: 3,
            commands: expected.clone(),
            outbox_backlog: 3,
        }
    );
    // The same counts as the domain's states of the command history.
    assert_eq!(
        states_of(&store, &[&a, &b, &c, &d, &e, &f, &g]).await,
        expected
    );
}

/// A device whose last heartbeat is exactly at `online_after` is offline, as
/// the domain has it (`Device::is_online`); one heard a second later is online.
pub async fn a_heartbeat_at_online_after_is_offline(store: impl Store) {
    let ann = account(&store, "ann").await;
    let pi = device_seen(&store, ann.id, 1, None).await;
    let heard = now() - seconds(30);
    store.record_heartbeat(&pi, &report(), heard).await.unwrap();

    let online = |since| {
        let store = store.clone();
        async move {
            store
                .census(since, lapsed_before())
                .await
                .unwrap()
                .devices_online
        }
    };
    assert_eq!(online(heard - seconds(1)).await, 1);
    assert_eq!(online(heard).await, 0, "a heartbeat at the edge is too old");
    assert_eq!(online(heard + seconds(1)).await, 0);
    let census = store
        .census(heard - seconds(1), lapsed_before())
        .await
        .unwrap();
    assert_eq!((census.devices, census.devices_online), (1, 1));
}

/// A command never acknowledged and issued exactly at `lapsed_before` is
/// lapsed, as the domain has it; issued a second later, it is not.
pub async fn a_command_issued_at_lapsed_before_counts_as_lapsed(store: impl Store) {
    let ann = account(&store, "ann").await;
    let pi = device_seen(&store, ann.id, 1, None).await;
    let issued = now() - minutes(20);
    issue(&store, &pi, "c1", issued).await;
    assert_eq!(take(&store, &pi, issued).await.len(), 1);

    let commands = |lapsed_before| {
        let store = store.clone();
        async move {
            store
                .census(online_after(), lapsed_before)
                .await
                .unwrap()
                .commands
        }
    };
    let lapsed = CommandCounts {
        lapsed: 1,
        ..CommandCounts::default()
    };
    let delivered = CommandCounts {
        delivered: 1,
        ..CommandCounts::default()
    };
    assert_eq!(commands(issued + seconds(1)).await, lapsed);
    assert_eq!(commands(issued).await, lapsed);
    assert_eq!(commands(issued - seconds(1)).await, delivered);
    // The domain's state at the moment whose lapse is `issued`.
    let history = store.history(&pi, 10).await.unwrap();
    assert_eq!(
        history[0].state(issued + lapse(), lapse()),
        domain::CommandState::Lapsed
    );
}
