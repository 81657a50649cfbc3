//! Acknowledgements of commands, and the history that shows what became of each.

use super::commands::seconds;
use crate::{
    Store, account, ack, command_id, done, enrol, failed, ids, label, minutes, one_enrolled_device,
    queue, received, serial, t0, take,
};
use domain::CommandStatus;

/// Which acknowledgements are accepted (what they record is in the history
/// tests below).
pub async fn an_acknowledgement_is_recorded_once_for_the_devices_own_command(store: impl Store) {
    let ann = account(&store, "ann").await;
    let pi = serial(1);
    let other = serial(2);
    enrol(&store, ann.id, &pi, "pi-tok").await;
    enrol(&store, ann.id, &other, "other-tok").await;
    assert!(queue(&store, &pi, "c1", t0()).await);
    assert!(queue(&store, &other, "c-other", t0()).await);
    assert_eq!(ids(&take(&store, &pi, t0()).await), ["c1"]);

    let at = t0() + minutes(1);
    assert!(ack(&store, &pi, "c1", done("rebooted"), at).await);

    // A second acknowledgement is accepted (the SQLite tests check that it
    // does not overwrite the first: the outcome is visible through no port).
    assert!(ack(&store, &pi, "c1", failed("again"), at + minutes(1)).await);

    // Another device's command, or no command at all.
    assert!(!ack(&store, &pi, "c-other", failed("not mine"), at).await);
    assert!(!ack(&store, &other, "c1", failed("not mine"), at).await);
    assert!(!ack(&store, &pi, "no-such-command", done(""), at).await);
    // The other device's command is still pending.
    assert_eq!(ids(&take(&store, &other, at).await), ["c-other"]);
}

/// The port part; the stored outcome is checked by the SQLite adapter's own tests.
pub async fn an_acknowledged_command_is_not_handed_out_later(store: impl Store) {
    let pi = one_enrolled_device(&store).await;
    assert!(queue(&store, &pi, "c1", t0()).await);

    assert!(ack(&store, &pi, "c1", failed("no permission"), t0()).await);
    assert!(take(&store, &pi, t0() + minutes(1)).await.is_empty());
    // It no longer blocks a new reboot either.
    assert!(queue(&store, &pi, "c2", t0() + minutes(1)).await);
}

/// Purging forgets commands issued before the cut.
pub async fn purging_forgets_commands_issued_before_the_cut(store: impl Store) {
    let pi = one_enrolled_device(&store).await;
    assert!(queue(&store, &pi, "old", t0()).await);
    assert!(ack(&store, &pi, "old", done(""), t0() + minutes(1)).await);
    assert!(queue(&store, &pi, "new", t0() + minutes(2)).await);
    store.purge_commands(t0() + minutes(1)).await.unwrap();
    assert!(
        !store
            .acknowledge(&pi, &command_id("old"), &done(""), t0())
            .await
            .unwrap()
    );
    assert_eq!(ids(&take(&store, &pi, t0() + minutes(3)).await), ["new"]);
}

/// The history shows the newest first with what became of each.
pub async fn the_history_shows_the_newest_first_with_what_became_of_each(store: impl Store) {
    let pi = one_enrolled_device(&store).await;
    // Three in one second, then two later: the order they were requested in.
    for id in ["first", "second", "third"] {
        assert!(queue(&store, &pi, id, t0()).await);
        assert!(ack(&store, &pi, id, failed(&format!("{id} failed")), t0()).await);
    }
    assert!(queue(&store, &pi, "done-one", t0() + seconds(10)).await);
    take(&store, &pi, t0() + seconds(11)).await;
    assert!(ack(&store, &pi, "done-one", received(), t0() + seconds(12)).await);
    assert!(
        ack(
            &store,
            &pi,
            "done-one",
            done("rebooted"),
            t0() + seconds(13)
        )
        .await
    );
    // After `done`, nothing changes it.
    assert!(ack(&store, &pi, "done-one", failed("late"), t0() + seconds(14)).await);
    assert!(ack(&store, &pi, "done-one", received(), t0() + seconds(14)).await);
    assert!(queue(&store, &pi, "waiting", t0() + seconds(20)).await);

    let history = store.history(&pi, 100).await.unwrap();
    let order: Vec<String> = history.iter().map(|r| label(&r.command.id)).collect();
    assert_eq!(order, ["waiting", "done-one", "third", "second", "first"]);
    let waiting = &history[0];
    assert_eq!(
        (waiting.status, waiting.delivered_time, waiting.acked_time),
        (None, None, None)
    );
    assert_eq!(waiting.detail, "");
    let done_one = &history[1];
    assert_eq!(done_one.status, Some(CommandStatus::Done));
    assert_eq!(done_one.detail, "rebooted");
    assert_eq!(done_one.delivered_time, Some(t0() + seconds(11)));
    assert_eq!(done_one.acked_time, Some(t0() + seconds(13)));
    assert_eq!(history[2].status, Some(CommandStatus::Failed));
    assert_eq!(history[2].detail, "third failed");

    let newest_two = store.history(&pi, 2).await.unwrap();
    assert_eq!(newest_two.len(), 2);
    assert_eq!(newest_two[0].command.id, command_id("waiting"));
    assert!(store.history(&serial(9), 100).await.unwrap().is_empty());
}

/// Received then failed keeps the failure.
pub async fn received_then_failed_keeps_the_failure(store: impl Store) {
    let pi = one_enrolled_device(&store).await;
    assert!(queue(&store, &pi, "c1", t0()).await);
    assert!(ack(&store, &pi, "c1", received(), t0()).await);
    assert!(ack(&store, &pi, "c1", received(), t0() + seconds(1)).await);
    assert!(ack(&store, &pi, "c1", failed("exit 1"), t0() + seconds(2)).await);
    assert!(ack(&store, &pi, "c1", done(""), t0() + seconds(3)).await);
    let history = store.history(&pi, 1).await.unwrap();
    assert_eq!(history[0].status, Some(CommandStatus::Failed));
    assert_eq!(history[0].detail, "exit 1");
    assert_eq!(history[0].acked_time, Some(t0() + seconds(2)));
}
