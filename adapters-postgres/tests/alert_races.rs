//! Monitors and webhooks racing on PostgreSQL, from two instances (two
//! `PgStore`s, each with its own pool) on one database: of racers recording
//! the same opening or resolution exactly one changes the alert and
//! notifies it, of racers claiming deliveries each delivery goes to exactly
//! one, of racers sending a digest one queues it. Without
//! `DEVMGR_TEST_POSTGRES_URL` at build time the tests are reported as
//! ignored (see `build.rs`).

#[path = "alert_races/fixtures.rs"]
mod fixtures;

use application::mail::Email;
use application::ports::{
    AlertFilter, AlertRecord, EventRecord, MonitorRepository, MonitorVerdict, WebhookRepository,
};
use chrono::Duration;
use domain::{AlertState, DeliveryId, WebhookEvent};
use fixtures::{MAIL_WINDOW, ROUNDS, all, hour, opening, racing, transition};
use std::collections::BTreeSet;
use store_contract::{RACERS, race, t0};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    not(postgres_tests),
    ignore = "PostgreSQL tests skipped: set DEVMGR_TEST_POSTGRES_URL=postgres://USER@HOST:PORT/DB (a server where USER may create databases) and build again"
)]
/// Pins the opening's `INSERT … ON CONFLICT DO NOTHING` on the unique index
/// of open alerts, only the rows it inserted being notified: each racer
/// brings its own alert id, so without the index every racer would open an
/// alert and mail it, and with a plain insert all but one would fail.
async fn racing_openings_open_one_alert_notified_once() {
    let r = racing().await;
    for round in 1..=ROUNDS {
        let monitor = r.monitor(round).await;
        let at = hour(round);
        let applied = race(RACERS, |i| {
            let (store, verdict) = (r.instance(i), opening(r.ann, &monitor, &[0], i, at));
            async move {
                store
                    .apply_verdict(&verdict, at, MAIL_WINDOW)
                    .await
                    .unwrap()
            }
        })
        .await;
        let opened: Vec<_> = applied.iter().flat_map(|a| a.opened.clone()).collect();
        assert_eq!(opened.len(), 1, "round {round}: one racer opened the alert");
        let filter = AlertFilter {
            monitor: Some(monitor.clone()),
            state: None,
        };
        let alerts = r.a.list_alerts(r.ann, &filter, all()).await.unwrap();
        assert_eq!(alerts.count, 1, "round {round}: one alert");
        assert_eq!(alerts.alerts[0].id, opened[0]);
        let round_u64 = u64::from(round);
        assert_eq!(
            r.deliveries().await,
            [round_u64, round_u64, 0],
            "round {round}: one delivery per subscribed webhook"
        );
        let mail = r.drain_mail().await;
        assert_eq!(
            mail,
            [format!("Alert opened: {}", opened[0])],
            "round {round}: one mail"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    not(postgres_tests),
    ignore = "PostgreSQL tests skipped: set DEVMGR_TEST_POSTGRES_URL=postgres://USER@HOST:PORT/DB (a server where USER may create databases) and build again"
)]
/// Pins the resolution's `UPDATE … WHERE state = 'open' RETURNING`: without
/// its condition every racer would resolve the alert again and notify it.
async fn racing_resolutions_resolve_an_alert_once() {
    let r = racing().await;
    for round in 1..=ROUNDS {
        let monitor = r.monitor(round).await;
        let at = hour(round);
        let opened =
            r.a.apply_verdict(&opening(r.ann, &monitor, &[1], 0, at), at, MAIL_WINDOW)
                .await
                .unwrap()
                .opened;
        let filter = AlertFilter::default();
        let alert =
            r.a.find_alert(r.ann, &opened[0])
                .await
                .unwrap()
                .expect("the alert opened");
        assert_eq!(r.drain_mail().await.len(), 1);
        let later = at + Duration::minutes(5);
        let applied = race(RACERS, |i| {
            let store = r.instance(i);
            let resolved = AlertRecord {
                state: AlertState::Resolved,
                resolved_time: Some(later),
                ..alert.clone()
            };
            let verdict = MonitorVerdict {
                resolved: vec![transition(resolved, WebhookEvent::AlertResolved, i, later)],
                ..opening(r.ann, &monitor, &[], i, later)
            };
            async move {
                store
                    .apply_verdict(&verdict, later, MAIL_WINDOW)
                    .await
                    .unwrap()
            }
        })
        .await;
        let resolved: Vec<_> = applied.iter().flat_map(|a| a.resolved.clone()).collect();
        assert_eq!(
            resolved,
            std::slice::from_ref(&alert.id),
            "round {round}: one racer resolved it"
        );
        let now = r.a.find_alert(r.ann, &alert.id).await.unwrap().unwrap();
        assert_eq!(
            (now.state, now.resolved_time),
            (AlertState::Resolved, Some(later))
        );
        let round_u64 = u64::from(round);
        // The first webhook gets openings and resolutions, the second openings.
        assert_eq!(
            r.deliveries().await,
            [2 * round_u64, round_u64, 0],
            "round {round}"
        );
        let mail = r.drain_mail().await;
        assert_eq!(
            mail,
            [format!("Alert resolved: {}", alert.id)],
            "round {round}: one mail"
        );
        let listed = r.a.list_alerts(r.ann, &filter, all()).await.unwrap();
        assert_eq!(listed.count, u64::from(round));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    not(postgres_tests),
    ignore = "PostgreSQL tests skipped: set DEVMGR_TEST_POSTGRES_URL=postgres://USER@HOST:PORT/DB (a server where USER may create databases) and build again"
)]
/// Pins the claim's `FOR UPDATE SKIP LOCKED` and its lease condition: without
/// the lock, racers reading the same due rows would each take them; without
/// the condition, a leased delivery would be taken again by the next claim.
async fn racing_claims_take_each_delivery_once() {
    let r = racing().await;
    const QUEUED: u16 = 240;
    for n in 0..QUEUED {
        let [high, low] = n.to_be_bytes();
        let delivery = DeliveryId::from_random_bytes([
            0xde, high, low, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13,
        ]);
        let event = EventRecord {
            event: WebhookEvent::Ping,
            time: t0() + Duration::seconds(i64::from(n % 7)),
            data: "{}".to_owned(),
        };
        let webhook = &r.webhooks[usize::from(n % 3)];
        assert!(
            r.a.queue_ping(r.ann, webhook, &delivery, &event)
                .await
                .unwrap()
        );
    }
    let now = t0() + Duration::minutes(1);
    let claimed = race(RACERS, |i| {
        let store = r.instance(i);
        async move {
            let mut mine = Vec::new();
            loop {
                let batch = store
                    .claim_deliveries(now, now + Duration::minutes(1), 7)
                    .await
                    .unwrap();
                if batch.is_empty() {
                    return mine;
                }
                mine.extend(batch.into_iter().map(|d| d.id));
            }
        }
    })
    .await;
    let every: Vec<DeliveryId> = claimed.into_iter().flatten().collect();
    let once: BTreeSet<&str> = every.iter().map(DeliveryId::as_str).collect();
    assert_eq!(
        once.len(),
        usize::from(QUEUED),
        "every delivery was claimed"
    );
    assert_eq!(every.len(), usize::from(QUEUED), "none was claimed twice");
    let again =
        r.b.claim_deliveries(now, now + Duration::minutes(1), 100)
            .await
            .unwrap();
    assert!(again.is_empty(), "the leases hide them all");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    not(postgres_tests),
    ignore = "PostgreSQL tests skipped: set DEVMGR_TEST_POSTGRES_URL=postgres://USER@HOST:PORT/DB (a server where USER may create databases) and build again"
)]
/// Pins the digest's `DELETE` of its lines deciding who queues it: a racer
/// that read the lines and then deleted them would mail the digest again.
async fn racing_digest_sends_queue_one_mail() {
    let r = racing().await;
    let devices: Vec<u16> = (0..11).collect();
    for round in 1..=ROUNDS {
        let monitor = r.monitor(round).await;
        let at = hour(round);
        let verdict = opening(r.ann, &monitor, &devices, 0, at);
        let applied = r.a.apply_verdict(&verdict, at, MAIL_WINDOW).await.unwrap();
        assert_eq!(applied.opened.len(), 11);
        assert_eq!(
            r.drain_mail().await.len(),
            10,
            "round {round}: the window's first ten"
        );
        let ended = at + MAIL_WINDOW;
        let due = r.b.due_digests(ended, MAIL_WINDOW).await.unwrap();
        assert_eq!(due.len(), 1, "round {round}: one digest due");
        assert_eq!(due[0].lines.len(), 1);
        assert_eq!(due[0].lines[0].alert, applied.opened[10]);
        let sent = race(RACERS, |i| {
            let (store, digest) = (r.instance(i), due[0].clone());
            let mail = Email {
                id: format!("d{round:02x}{i:02x}"),
                to: digest.owner_email.clone(),
                subject: format!("Alert digest: round {round}"),
                text: String::new(),
                html: String::new(),
            };
            async move {
                store
                    .send_digest(
                        digest.owner,
                        digest.window_opened,
                        &mail,
                        digest.window_opened,
                    )
                    .await
                    .unwrap()
            }
        })
        .await;
        assert_eq!(
            sent.iter().filter(|s| **s).count(),
            1,
            "round {round}: one racer sent it"
        );
        assert_eq!(
            r.drain_mail().await,
            [format!("Alert digest: round {round}")]
        );
        assert!(
            r.a.due_digests(ended, MAIL_WINDOW)
                .await
                .unwrap()
                .is_empty()
        );
    }
}
