//! Commands for devices: queuing reboots and handing commands out, once each even in a race.

use crate::{
    RACERS, Store, account, account_with_device, ack, command_id, done, enrol, ids, label, lapse,
    minutes, one_enrolled_device, queue, received, serial, t0, take,
};
use domain::Command;
use domain::command::REDELIVERY_AFTER;

/// `n` seconds.
pub(super) fn seconds(n: i64) -> chrono::Duration {
    chrono::Duration::seconds(n)
}

/// A pending reboot is queued once until it lapses.
pub async fn a_pending_reboot_is_queued_once_until_it_lapses(store: impl Store) {
    let pi = account_with_device(&store, 4).await;
    let lapse = minutes(10);

    assert!(
        store
            .queue_reboot(&pi.serial, &command_id("c1"), t0(), t0() - lapse, None)
            .await
            .unwrap()
            .queued
    );
    let soon = t0() + minutes(3);
    assert!(
        !store
            .queue_reboot(&pi.serial, &command_id("c2"), soon, soon - lapse, None)
            .await
            .unwrap()
            .queued
    );
    let late = t0() + minutes(11);
    assert!(
        store
            .queue_reboot(&pi.serial, &command_id("c3"), late, late - lapse, None)
            .await
            .unwrap()
            .queued
    );
}

/// Concurrent reboots queue one command.
pub async fn concurrent_reboots_queue_one_command(store: impl Store) {
    let pi = account_with_device(&store, 5).await;
    // Collected before any is awaited (the original's lazy iterator spawned
    // each attempt only after the previous one had finished).
    let attempts: Vec<_> = (0..16)
        .map(|i| {
            let (store, serial) = (store.clone(), pi.serial.clone());
            tokio::spawn(async move {
                store
                    .queue_reboot(
                        &serial,
                        &command_id(&format!("c{i}")),
                        t0(),
                        t0() - minutes(10),
                        None,
                    )
                    .await
            })
        })
        .collect();
    let mut queued = 0;
    let mut returned = std::collections::BTreeSet::new();
    for attempt in attempts {
        let reboot = attempt.await.unwrap().unwrap();
        queued += usize::from(reboot.queued);
        returned.insert(label(&reboot.command.command.id));
    }
    assert_eq!(queued, 1);
    // The others joined the one queued, and were given it.
    assert_eq!(returned.len(), 1, "{returned:?}");
}

/// A reboot is queued once until the last one ends or lapses.
pub async fn a_reboot_is_queued_once_until_the_last_one_ends_or_lapses(store: impl Store) {
    let pi = one_enrolled_device(&store).await;

    assert!(queue(&store, &pi, "c1", t0()).await);
    assert!(
        !queue(&store, &pi, "c2", t0() + minutes(1)).await,
        "pending"
    );
    let handed = take(&store, &pi, t0() + minutes(2)).await;
    assert_eq!(
        handed,
        [Command {
            id: command_id("c1"),
            action: domain::Action::Reboot,
            issued_time: t0(),
        }]
    );
    assert!(
        !queue(&store, &pi, "c3", t0() + minutes(3)).await,
        "delivered"
    );
    assert!(ack(&store, &pi, "c1", received(), t0() + minutes(3)).await);
    assert!(
        !queue(&store, &pi, "c4", t0() + minutes(4)).await,
        "received"
    );
    assert!(ack(&store, &pi, "c1", done(""), t0() + minutes(5)).await);
    assert!(queue(&store, &pi, "c5", t0() + minutes(5)).await, "done");
    assert_eq!(ids(&take(&store, &pi, t0() + minutes(6)).await), ["c5"]);
    // Never acknowledged: it blocks new reboots until it lapses.
    assert!(!queue(&store, &pi, "c6", t0() + minutes(14)).await);
    assert!(queue(&store, &pi, "c7", t0() + minutes(15)).await);
}

/// Due commands are handed out oldest first and again until acknowledged.
pub async fn due_commands_are_handed_out_oldest_first_and_again_until_acknowledged(
    store: impl Store,
) {
    let ann = account(&store, "ann").await;
    let pi = serial(1);
    enrol(&store, ann.id, &pi, "pi-tok").await;
    // Several at once only through lapses: ids opposite to their times.
    assert!(queue(&store, &pi, "z-lapsed", t0()).await);
    assert!(queue(&store, &pi, "m-first", t0() + minutes(10)).await);
    assert!(ack(&store, &pi, "m-first", received(), t0() + minutes(10)).await);
    assert!(queue(&store, &pi, "a-second", t0() + minutes(21)).await);
    let now = t0() + minutes(21);
    assert_eq!(ids(&take(&store, &pi, now).await), ["a-second"]);

    // Not again while it may still be on its way…
    assert!(take(&store, &pi, now + seconds(14)).await.is_empty());
    // …but 15 s without an acknowledgement: again, with the same id.
    assert_eq!(
        ids(&take(&store, &pi, now + REDELIVERY_AFTER).await),
        ["a-second"]
    );
    assert!(take(&store, &pi, now + seconds(20)).await.is_empty());
    assert_eq!(
        ids(&take(&store, &pi, now + seconds(30)).await),
        ["a-second"]
    );
    // Received: never again.
    assert!(ack(&store, &pi, "a-second", received(), now + seconds(31)).await);
    assert!(take(&store, &pi, now + minutes(5)).await.is_empty());
}

/// Of two unacknowledged commands, both are handed out again, oldest first.
pub async fn redelivered_commands_come_oldest_first(store: impl Store) {
    let pi = one_enrolled_device(&store).await;
    assert!(queue(&store, &pi, "z-old", t0()).await);
    take(&store, &pi, t0()).await;
    // A second reboot is possible only once the first has lapsed for
    // queuing purposes: queue it with a later lapse boundary.
    assert!(
        store
            .queue_reboot(&pi, &command_id("a-new"), t0() + seconds(1), t0(), None)
            .await
            .unwrap()
            .queued
    );
    let handed = store
        .take_due(
            &pi,
            t0() + seconds(20),
            t0() - minutes(1),
            t0() + seconds(5),
        )
        .await
        .unwrap();
    assert_eq!(ids(&handed), ["z-old", "a-new"]);
}

/// The last unacknowledged delivery tells when one is due again.
pub async fn the_last_unacknowledged_delivery_tells_when_one_is_due_again(store: impl Store) {
    let pi = one_enrolled_device(&store).await;
    let unacknowledged = |at: chrono::DateTime<chrono::Utc>| {
        let (store, pi) = (store.clone(), pi.clone());
        async move {
            store
                .last_unacknowledged_delivery(&pi, at - lapse())
                .await
                .unwrap()
        }
    };
    assert!(queue(&store, &pi, "c1", t0()).await);
    assert_eq!(unacknowledged(t0()).await, None, "pending, not delivered");
    take(&store, &pi, t0() + seconds(5)).await;
    assert_eq!(
        unacknowledged(t0() + seconds(6)).await,
        Some(t0() + seconds(5))
    );
    assert!(ack(&store, &pi, "c1", received(), t0() + seconds(7)).await);
    assert_eq!(unacknowledged(t0() + seconds(8)).await, None);
}

/// Commands issued at or before the lapse are not handed out.
pub async fn commands_issued_at_or_before_the_lapse_are_not_handed_out(store: impl Store) {
    let pi = one_enrolled_device(&store).await;

    assert!(queue(&store, &pi, "lapsed", t0()).await);
    assert!(queue(&store, &pi, "fresh", t0() + minutes(11)).await);
    // The lapse falls exactly on the first command's issue time.
    let at = t0() + minutes(12);
    let handed = store
        .take_due(&pi, at, t0(), at - REDELIVERY_AFTER)
        .await
        .unwrap();
    assert_eq!(ids(&handed), ["fresh"]);

    assert!(queue(&store, &pi, "stale", t0() + minutes(30)).await);
    let at = t0() + minutes(50);
    let handed = store
        .take_due(&pi, at, t0() + minutes(40), at - REDELIVERY_AFTER)
        .await
        .unwrap();
    assert!(handed.is_empty(), "lapsed commands handed out: {handed:?}");
}

/// Commands of other devices are not handed out.
pub async fn commands_of_other_devices_are_not_handed_out(store: impl Store) {
    let ann = account(&store, "ann").await;
    let bob = account(&store, "bob").await;
    let pi = serial(1);
    let other = serial(2);
    let bobs = serial(3);
    enrol(&store, ann.id, &pi, "pi-tok").await;
    enrol(&store, ann.id, &other, "other-tok").await;
    enrol(&store, bob.id, &bobs, "bob-tok").await;

    assert!(queue(&store, &pi, "for-pi", t0()).await);
    assert!(queue(&store, &bobs, "for-bob", t0()).await);
    assert!(take(&store, &other, t0()).await.is_empty());
    // A pending reboot of one device does not block another's.
    assert!(queue(&store, &other, "for-other", t0()).await);
    assert_eq!(ids(&take(&store, &pi, t0()).await), ["for-pi"]);
    assert_eq!(ids(&take(&store, &other, t0()).await), ["for-other"]);
    assert_eq!(ids(&take(&store, &bobs, t0()).await), ["for-bob"]);
}

/// Racing polls hand out each command exactly once.
pub async fn racing_polls_hand_out_each_command_exactly_once(store: impl Store) {
    let pi = one_enrolled_device(&store).await;

    for round in 0..5 {
        let at = t0() + minutes(round);
        let id = format!("round-{round}");
        assert!(queue(&store, &pi, &id, at).await);
        let start = std::sync::Arc::new(tokio::sync::Barrier::new(RACERS));
        let polls: Vec<_> = (0..RACERS)
            .map(|_| {
                let (store, serial, start) = (store.clone(), pi.clone(), start.clone());
                tokio::spawn(async move {
                    start.wait().await;
                    store
                        .take_due(&serial, at, at - lapse(), at - REDELIVERY_AFTER)
                        .await
                })
            })
            .collect();
        let mut handed = Vec::new();
        for poll in polls {
            handed.extend(poll.await.unwrap().unwrap());
        }
        assert_eq!(ids(&handed), [id.as_str()], "round {round}");
        assert!(ack(&store, &pi, &id, done(""), at).await);
    }
}

/// Racing reboots queue exactly one command.
pub async fn racing_reboots_queue_exactly_one_command(store: impl Store) {
    let pi = one_enrolled_device(&store).await;

    let start = std::sync::Arc::new(tokio::sync::Barrier::new(RACERS));
    let attempts: Vec<_> = (0..RACERS)
        .map(|i| {
            let (store, serial, start) = (store.clone(), pi.clone(), start.clone());
            tokio::spawn(async move {
                start.wait().await;
                let queued = store
                    .queue_reboot(
                        &serial,
                        &command_id(&format!("c{i}")),
                        t0(),
                        t0() - lapse(),
                        None,
                    )
                    .await;
                (i, queued)
            })
        })
        .collect();
    let mut winners = Vec::new();
    let mut returned = std::collections::BTreeSet::new();
    for attempt in attempts {
        let (i, queued) = attempt.await.unwrap();
        let reboot = queued.unwrap();
        if reboot.queued {
            winners.push(format!("c{i}"));
        }
        returned.insert(label(&reboot.command.command.id));
    }
    assert_eq!(winners.len(), 1, "{winners:?}");
    assert_eq!(
        returned,
        std::collections::BTreeSet::from([winners[0].clone()])
    );
    assert_eq!(ids(&take(&store, &pi, t0()).await), [winners[0].as_str()]);
}
