//! Starting a job's waves: new commands with the ids given, reboots under
//! way joined, deleted devices skipped, each wave once and only when due;
//! the targets' statuses read through their commands.

use crate::{
    Store, account, ack, all_targets, command_id, counts, done, engine_view, failed, fleet_of,
    label, minutes, queue, received, running_job, start_wave, statuses, t0, take,
};
use application::ports::{Settlement, SettlementNotices};
use domain::TargetStatus;
use std::time::Duration;

/// The labels of the targets' commands (`-` for none), in order.
fn command_labels(targets: &[application::ports::TargetRecord]) -> Vec<String> {
    targets
        .iter()
        .map(|target| target.command_id.as_ref().map_or("-".into(), label))
        .collect()
}

/// A wave gives each of its targets a new reboot issued then, the k-th
/// target the k-th id, the latest of its device's commands; it wakes the
/// long polls of those devices and no other.
pub async fn a_wave_gives_new_commands_with_the_ids_given_and_wakes_their_devices(
    store: impl Store,
) {
    let ann = account(&store, "ann").await;
    let fleet = fleet_of(&store, ann.id, 1, 3).await;
    assert!(queue(&store, &fleet[0], "old", t0() - minutes(30)).await);
    take(&store, &fleet[0], t0() - minutes(30)).await;
    assert!(ack(&store, &fleet[0], "old", done(""), t0() - minutes(29)).await);
    let job = running_job(&store, ann.id, "j", Some(2)).await;
    let mut first = store.listen(&fleet[0]);
    let mut third = store.listen(&fleet[2]);

    assert!(start_wave(&store, &job, 1, "w1", 2, t0()).await);
    let woken = tokio::time::timeout(Duration::from_secs(5), first.wait(Duration::from_secs(30)));
    assert!(
        woken.await.is_ok(),
        "the first device's long poll was woken"
    );
    let quiet = tokio::time::timeout(
        Duration::from_millis(200),
        third.wait(Duration::from_secs(30)),
    );
    assert!(quiet.await.is_err(), "the third device is in the next wave");

    let targets = all_targets(&store, ann.id, &job, t0()).await;
    assert_eq!(command_labels(&targets), ["w1-0", "w1-1", "-"]);
    assert_eq!(
        statuses(&store, ann.id, &job, t0()).await,
        ["pending", "pending", "waiting"]
    );
    let history = store.history(&fleet[0], 10).await.unwrap();
    let newest_first: Vec<String> = history.iter().map(|c| label(&c.command.id)).collect();
    assert_eq!(newest_first, ["w1-0", "old"]);
    assert_eq!(history[0].command.issued_time, t0());
    assert_eq!(history[0].command.action, domain::Action::Reboot);
    assert_eq!(crate::ids(&take(&store, &fleet[1], t0()).await), ["w1-1"]);

    let engine = engine_view(&store, &job, t0()).await.unwrap();
    assert_eq!((engine.current_wave, engine.next_wave_time), (1, None));
    assert_eq!(
        engine.wave_counts,
        counts(&[(TargetStatus::Pending, 1), (TargetStatus::Delivered, 1)])
    );
}

/// A target whose device has a reboot pending, delivered or received
/// joins it (also one queued by a reboot request), and the device is
/// given no second; a lapsed reboot is not joined; a device deleted before
/// the wave is skipped without a command; a reboot request made after the
/// wave joins the job's command.
pub async fn a_wave_joins_reboots_under_way_and_skips_deleted_devices(store: impl Store) {
    let ann = account(&store, "ann").await;
    let fleet = fleet_of(&store, ann.id, 1, 5).await;
    assert!(queue(&store, &fleet[0], "pending", t0() - minutes(1)).await);
    assert!(queue(&store, &fleet[1], "received", t0() - minutes(2)).await);
    take(&store, &fleet[1], t0() - minutes(2)).await;
    assert!(ack(&store, &fleet[1], "received", received(), t0() - minutes(1)).await);
    assert!(queue(&store, &fleet[2], "lapsed", t0() - minutes(10)).await);
    assert!(queue(&store, &fleet[4], "ended", t0() - minutes(3)).await);
    assert!(ack(&store, &fleet[4], "ended", done(""), t0() - minutes(2)).await);
    let job = running_job(&store, ann.id, "j", None).await;
    assert!(
        store
            .delete(
                ann.id,
                &fleet[3],
                &crate::noted(domain::AuditAction::DeviceDelete)
            )
            .await
            .unwrap()
    );

    assert!(start_wave(&store, &job, 1, "w", 5, t0()).await);
    let targets = all_targets(&store, ann.id, &job, t0()).await;
    assert_eq!(
        command_labels(&targets),
        ["pending", "received", "w-2", "-", "w-4"]
    );
    assert_eq!(
        statuses(&store, ann.id, &job, t0()).await,
        ["pending", "received", "pending", "skipped", "pending"]
    );
    for (serial, expected) in [
        (&fleet[0], 1),
        (&fleet[1], 1),
        (&fleet[2], 2),
        (&fleet[4], 2),
    ] {
        assert_eq!(store.history(serial, 10).await.unwrap().len(), expected);
    }
    let joined = store
        .queue_reboot(
            &fleet[2],
            &command_id("request"),
            t0() + minutes(1),
            t0() - minutes(9),
            None,
        )
        .await
        .unwrap();
    assert!(!joined.queued);
    assert_eq!(label(&joined.command.command.id), "w-2");
    let engine = engine_view(&store, &job, t0()).await.unwrap();
    assert_eq!(
        engine.wave_counts,
        counts(&[
            (TargetStatus::Pending, 3),
            (TargetStatus::Received, 1),
            (TargetStatus::Skipped, 1)
        ])
    );
}

/// A wave starts only when it is the next one, the job is running and its
/// time has come, and only once.
pub async fn a_wave_starts_once_when_it_is_next_and_due(store: impl Store) {
    let ann = account(&store, "ann").await;
    let fleet = fleet_of(&store, ann.id, 1, 3).await;
    let job = running_job(&store, ann.id, "j", Some(1)).await;

    assert!(!start_wave(&store, &job, 2, "a", 1, t0()).await, "not next");
    assert!(
        !start_wave(&store, &job, 0, "a", 1, t0()).await,
        "no wave 0"
    );
    assert!(
        !start_wave(&store, &job, 1, "a", 1, t0() - minutes(1)).await,
        "not due"
    );
    assert!(start_wave(&store, &job, 1, "b", 1, t0()).await);
    assert!(!start_wave(&store, &job, 1, "c", 1, t0()).await, "started");
    assert!(
        !start_wave(&store, &job, 2, "c", 1, t0()).await,
        "wave 1 under way"
    );
    assert!(ack(&store, &fleet[0], "b-0", done(""), t0()).await);
    let next = t0() + minutes(5);
    let lapse_before = t0() - crate::lapse();
    let settled = store
        .settle_wave(
            &job,
            1,
            Settlement::NextWaveAt(next),
            t0(),
            lapse_before,
            &SettlementNotices::default(),
        )
        .await
        .unwrap();
    assert!(settled);
    assert!(
        !start_wave(&store, &job, 2, "d", 1, next - minutes(1)).await,
        "not due"
    );
    assert!(start_wave(&store, &job, 2, "e", 1, next).await);
    assert_eq!(
        statuses(&store, ann.id, &job, next).await,
        ["done", "pending", "waiting"]
    );
    assert_eq!(store.history(&fleet[1], 10).await.unwrap().len(), 1);

    let halted = running_job(&store, ann.id, "halted", Some(1)).await;
    assert!(start_wave(&store, &halted, 1, "h", 1, t0()).await);
    let quiet = SettlementNotices::default();
    let halt = store.settle_wave(&halted, 1, Settlement::Halt, t0(), lapse_before, &quiet);
    assert!(halt.await.unwrap());
    assert!(
        !start_wave(&store, &halted, 2, "i", 1, t0() + minutes(1)).await,
        "halted"
    );
    let cancelled = running_job(&store, ann.id, "cancelled", None).await;
    store
        .cancel_job(
            ann.id,
            &cancelled,
            t0(),
            &crate::noted(domain::AuditAction::JobCancel),
        )
        .await
        .unwrap();
    assert!(
        !start_wave(&store, &cancelled, 1, "k", 3, t0()).await,
        "cancelled"
    );
}

/// A target's status follows its command through its life: pending,
/// delivered, received, then done or failed with the agent's detail; one
/// never acknowledged is lapsed once issued at or before the lapse.
pub async fn target_statuses_follow_their_commands(store: impl Store) {
    let ann = account(&store, "ann").await;
    let fleet = fleet_of(&store, ann.id, 1, 3).await;
    let job = running_job(&store, ann.id, "j", None).await;
    assert!(start_wave(&store, &job, 1, "w", 3, t0()).await);
    let read = |at| statuses(&store, ann.id, &job, at);
    assert_eq!(read(t0()).await, ["pending", "pending", "pending"]);

    for serial in &fleet[..2] {
        take(&store, serial, t0() + minutes(1)).await;
    }
    assert_eq!(
        read(t0() + minutes(1)).await,
        ["delivered", "delivered", "pending"]
    );
    for (serial, id) in [(&fleet[0], "w-0"), (&fleet[1], "w-1")] {
        assert!(ack(&store, serial, id, received(), t0() + minutes(2)).await);
    }
    assert_eq!(
        read(t0() + minutes(2)).await,
        ["received", "received", "pending"]
    );
    assert!(
        ack(
            &store,
            &fleet[0],
            "w-0",
            done("up again"),
            t0() + minutes(3)
        )
        .await
    );
    assert!(
        ack(
            &store,
            &fleet[1],
            "w-1",
            failed("no power"),
            t0() + minutes(3)
        )
        .await
    );
    let targets = all_targets(&store, ann.id, &job, t0() + minutes(9)).await;
    let read_back: Vec<(&str, &str)> = targets
        .iter()
        .map(|t| (t.status.code(), t.detail.as_str()))
        .collect();
    assert_eq!(
        read_back,
        [
            ("done", "up again"),
            ("failed", "no power"),
            ("pending", "")
        ]
    );
    assert_eq!(
        read(t0() + crate::lapse()).await,
        ["done", "failed", "lapsed"],
        "issued at the lapse"
    );
    let engine = engine_view(&store, &job, t0() + crate::lapse())
        .await
        .unwrap();
    assert_eq!(
        engine.wave_counts,
        counts(&[
            (TargetStatus::Done, 1),
            (TargetStatus::Failed, 1),
            (TargetStatus::Lapsed, 1)
        ])
    );
    assert!(engine.wave_counts.all_ended());
}
