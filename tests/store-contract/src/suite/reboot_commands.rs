//! What a reboot request returns (the command queued, or the one under way
//! that it joined), and reading one command of an account's device by id.

use crate::{
    Store, account, ack, command_id, done, enrol, label, lapse, minutes, one_enrolled_device,
    received, serial, t0, take, text,
};
use domain::{
    AccountId, Action, Command, CommandId, CommandRecord, CommandStatus, Serial, Timestamp,
};

/// Queues the reboot `id` at `at` (lapsing [`lapse`] before); the command
/// returned, and whether it was queued by this request.
async fn reboot(store: &impl Store, pi: &Serial, id: &str, at: Timestamp) -> (String, bool) {
    let reboot = store
        .queue_reboot(pi, &command_id(id), at, at - lapse(), None)
        .await
        .unwrap();
    (label(&reboot.command.command.id), reboot.queued)
}

async fn find(
    store: &impl Store,
    owner: AccountId,
    device: &Serial,
    id: &CommandId,
) -> Option<CommandRecord> {
    store.find_command(owner, device, id).await.unwrap()
}

/// A new reboot returns its command as stored: never handed out, nothing
/// acknowledged; reading it by id gives the same.
pub async fn a_queued_reboot_returns_its_new_command(store: impl Store) {
    let ann = account(&store, "ann").await;
    let pi = serial(1);
    enrol(&store, ann.id, &pi, "tok").await;

    let reboot = store
        .queue_reboot(&pi, &command_id("c1"), t0(), t0() - lapse(), None)
        .await
        .unwrap();
    assert!(reboot.queued);
    let expected = CommandRecord {
        command: Command {
            id: command_id("c1"),
            action: Action::Reboot,
            issued_time: t0(),
        },
        delivered_time: None,
        acked_time: None,
        status: None,
        detail: text(""),
    };
    assert_eq!(reboot.command, expected);
    assert_eq!(
        find(&store, ann.id, &pi, &command_id("c1")).await,
        Some(expected)
    );
}

/// A reboot requested while one is pending, delivered or received returns
/// that one, as it stands; once it is done, a new one is queued.
pub async fn a_reboot_under_way_is_joined_and_returned(store: impl Store) {
    let pi = one_enrolled_device(&store).await;

    assert_eq!(reboot(&store, &pi, "c1", t0()).await, ("c1".into(), true));
    assert_eq!(
        reboot(&store, &pi, "c2", t0() + minutes(1)).await,
        ("c1".into(), false),
        "pending"
    );
    take(&store, &pi, t0() + minutes(2)).await;
    let delivered = store
        .queue_reboot(
            &pi,
            &command_id("c3"),
            t0() + minutes(3),
            t0() - minutes(7),
            None,
        )
        .await
        .unwrap();
    assert!(!delivered.queued);
    assert_eq!(label(&delivered.command.command.id), "c1", "delivered");
    assert_eq!(delivered.command.delivered_time, Some(t0() + minutes(2)));
    assert_eq!(delivered.command.command.issued_time, t0());

    assert!(ack(&store, &pi, "c1", received(), t0() + minutes(4)).await);
    let under_way = store
        .queue_reboot(
            &pi,
            &command_id("c4"),
            t0() + minutes(5),
            t0() - minutes(5),
            None,
        )
        .await
        .unwrap();
    assert!(!under_way.queued);
    assert_eq!(label(&under_way.command.command.id), "c1", "received");
    assert_eq!(under_way.command.status, Some(CommandStatus::Received));
    assert_eq!(under_way.command.acked_time, Some(t0() + minutes(4)));

    assert!(ack(&store, &pi, "c1", done(""), t0() + minutes(6)).await);
    assert_eq!(
        reboot(&store, &pi, "c5", t0() + minutes(6)).await,
        ("c5".into(), true),
        "done"
    );
}

/// A command is read only through its own device, and only by the
/// device's owner: another device's command, another account's device and
/// an unknown id all read as none.
pub async fn a_command_is_found_only_through_its_own_device_and_owner(store: impl Store) {
    let (ann, bob) = (account(&store, "ann").await, account(&store, "bob").await);
    let (pi, other, bobs) = (serial(1), serial(2), serial(3));
    enrol(&store, ann.id, &pi, "tok-pi").await;
    enrol(&store, ann.id, &other, "tok-other").await;
    enrol(&store, bob.id, &bobs, "tok-bob").await;
    for (device, id) in [(&pi, "c-pi"), (&other, "c-other"), (&bobs, "c-bob")] {
        reboot(&store, device, id, t0()).await;
    }
    take(&store, &pi, t0() + minutes(1)).await;
    assert!(ack(&store, &pi, "c-pi", done("rebooted"), t0() + minutes(2)).await);

    let found = find(&store, ann.id, &pi, &command_id("c-pi"))
        .await
        .expect("ann's command of her device");
    assert_eq!(found.status, Some(CommandStatus::Done));
    assert_eq!(found.detail.as_str(), "rebooted");
    assert_eq!(found.delivered_time, Some(t0() + minutes(1)));
    assert_eq!(found.acked_time, Some(t0() + minutes(2)));

    assert_eq!(
        find(&store, ann.id, &pi, &command_id("c-other")).await,
        None
    );
    assert_eq!(
        find(&store, ann.id, &bobs, &command_id("c-bob")).await,
        None
    );
    assert_eq!(
        find(&store, ann.id, &pi, &command_id("unknown")).await,
        None
    );
    assert_eq!(find(&store, bob.id, &pi, &command_id("c-pi")).await, None);
    assert!(
        find(&store, bob.id, &bobs, &command_id("c-bob"))
            .await
            .is_some()
    );
}
