//! Alert mail in windows: an account's first ten notifications of a window
//! are mails of their own, the rest lines of the window's digest, due once
//! the window ended and sent once; the next notification after the window
//! opens a new one. Each account has its own window.

use crate::{
    Store, account, alert_id, apply, device_monitor, fleet_of, mail, minutes, open_alert, opening,
    outbox_subjects, t0,
};
use chrono::Duration;
use domain::{AccountId, MonitorId, Serial, Timestamp};

/// Opens alert `label` of `monitor` of `owner` for `serial` at `at`.
async fn open(
    store: &impl Store,
    owner: AccountId,
    monitor: &MonitorId,
    serial: &Serial,
    label: &str,
    at: Timestamp,
) {
    let alert = open_alert(monitor, label, Some(serial), at);
    let applied = apply(store, &opening(monitor, owner, [alert], at), at).await;
    assert_eq!(applied.0.len(), 1, "{label} opens");
}

/// Ten mails, then digest lines until the window ends; the digest is due
/// at its end, not before, with its lines in the order they came; the next
/// notification after the window is a mail again.
pub async fn ten_mails_then_a_digest_per_window(store: impl Store) {
    let ann = account(&store, "ann").await;
    let bob = account(&store, "bob").await;
    let fleet = fleet_of(&store, ann.id, 1, 13).await;
    let bobs = fleet_of(&store, bob.id, 20, 1).await;
    let monitor = device_monitor(&store, ann.id, "m").await;
    let bobs_monitor = device_monitor(&store, bob.id, "b").await;
    for (k, serial) in fleet[..12].iter().enumerate() {
        let at = t0() + Duration::seconds(k as i64);
        open(&store, ann.id, &monitor, serial, &format!("a{k}"), at).await;
    }
    open(
        &store,
        bob.id,
        &bobs_monitor,
        &bobs[0],
        "bob",
        t0() + Duration::seconds(30),
    )
    .await;
    let mails = outbox_subjects(&store, t0() + minutes(1)).await;
    assert_eq!(mails.len(), 11, "ann's ten and bob's one: {mails:?}");
    assert_eq!(mails[0], "Alert opened: reason a0");
    assert!(!mails.contains(&"Alert opened: reason a10".to_owned()));

    let length = minutes(1);
    let before_end = t0() + Duration::seconds(59);
    assert!(
        store
            .due_digests(before_end, length)
            .await
            .unwrap()
            .is_empty()
    );
    let due = store.due_digests(t0() + length, length).await.unwrap();
    assert_eq!(due.len(), 1);
    let digest = &due[0];
    assert_eq!(
        (digest.owner, digest.owner_email.as_str()),
        (ann.id, "ann@example.com")
    );
    assert_eq!(digest.window_opened, t0());
    let lines: Vec<_> = digest
        .lines
        .iter()
        .map(|l| (l.subject.as_str(), l.alert.clone()))
        .collect();
    assert_eq!(
        lines,
        [
            ("Alert opened: reason a10", alert_id("a10")),
            ("Alert opened: reason a11", alert_id("a11")),
        ]
    );

    let next = t0() + Duration::seconds(61);
    open(&store, ann.id, &monitor, &fleet[12], "a12", next).await;
    assert_eq!(
        outbox_subjects(&store, next).await,
        ["Alert opened: reason a12"]
    );
}

/// A digest is sent once when two instances send it: its lines go, its
/// mail is queued by the first; a digest of a window without lines is not.
pub async fn a_digest_is_sent_once(store: impl Store) {
    let ann = account(&store, "ann").await;
    let fleet = fleet_of(&store, ann.id, 1, 11).await;
    let monitor = device_monitor(&store, ann.id, "m").await;
    for (k, serial) in fleet.iter().enumerate() {
        open(&store, ann.id, &monitor, serial, &format!("a{k}"), t0()).await;
    }
    assert_eq!(outbox_subjects(&store, t0()).await.len(), 10);
    let end = t0() + minutes(1);
    let mut digest = mail("digest");
    digest.subject = "Alert digest".into();
    assert!(store.send_digest(ann.id, t0(), &digest, end).await.unwrap());
    assert!(!store.send_digest(ann.id, t0(), &digest, end).await.unwrap());
    assert!(store.due_digests(end, minutes(1)).await.unwrap().is_empty());
    assert_eq!(outbox_subjects(&store, end).await, ["Alert digest"]);
    let empty = t0() + minutes(10);
    assert!(
        !store
            .send_digest(ann.id, empty, &digest, end)
            .await
            .unwrap()
    );
}

/// Digest lines of a monitor deleted before its window ends stay (those
/// notifications were made).
pub async fn digest_lines_outlive_their_monitor(store: impl Store) {
    let ann = account(&store, "ann").await;
    let fleet = fleet_of(&store, ann.id, 1, 11).await;
    let monitor = device_monitor(&store, ann.id, "m").await;
    for (k, serial) in fleet.iter().enumerate() {
        open(&store, ann.id, &monitor, serial, &format!("a{k}"), t0()).await;
    }
    assert!(
        store
            .delete_monitor(
                ann.id,
                &monitor,
                &crate::noted(domain::AuditAction::MonitorDelete)
            )
            .await
            .unwrap()
    );
    let due = store
        .due_digests(t0() + minutes(1), minutes(1))
        .await
        .unwrap();
    assert_eq!(due.len(), 1);
    assert_eq!(due[0].lines.len(), 1);
    assert_eq!(due[0].lines[0].alert, alert_id("a10"));
}
