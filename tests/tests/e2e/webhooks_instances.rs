//! Two `devmgr serve` processes on one PostgreSQL database evaluate the
//! monitors and deliver webhooks as one server (docs/architecture.md,
//! "Background work"): twenty devices falling silent open twenty alerts,
//! each delivered to the receiver exactly once and mailed exactly once (in
//! a mail of its own or a digest's line), and pings made through either
//! instance arrive once each.

use crate::alerting_support::*;
use crate::device_support::{Agent, heartbeat, install};
use crate::support::*;
use serde_json::json;
use std::collections::{BTreeMap, BTreeSet};
use std::thread;
use std::time::Duration;

/// Devices that fall silent together.
const DEVICES: usize = 20;
/// Time for a duplicate to show up, once everything expected arrived.
const GRACE: Duration = Duration::from_secs(2);

/// A `devmgr serve` process on `db` (both share its mail directory).
fn serve(db: Db) -> Server {
    Server::builder()
        .db(db)
        .online_window(WINDOW)
        .throttle_off()
        .args(&["--allow-private-webhooks", "--alert-mail-window", "1"])
        .process()
        .start()
}

e2e!(two_instances_deliver_and_mail_each_alert_once: postgres; instances 2);
fn two_instances_deliver_and_mail_each_alert_once() {
    let db = Db::new();
    let a = serve(db.clone());
    let b = serve(db);
    let owner = a.account("ada@example.com");
    let receiver = Receiver::accepting();
    let hook = create_webhook(&a, &owner.token, &receiver.url("/hook"), None);
    let devices: Vec<Agent> = (0..DEVICES)
        .map(|n| install(&a, &owner, &format!("Sensor {n:02}")))
        .collect();
    device_monitor(&b, &owner.token, "Sensors", json!({"all": true}));
    for (n, device) in devices.iter().enumerate() {
        let server = if n % 2 == 0 { &a } else { &b };
        heartbeat(server, &device.token, &json!({}));
    }

    let open = wait_for_alerts(&a, &owner.token, "state=open", "twenty alerts", |found| {
        found.len() == DEVICES
    });
    let alert_ids: BTreeSet<String> = open.iter().map(|x| string(x, "id")).collect();
    let serials: BTreeSet<&str> = open.iter().filter_map(|x| x["serial"].as_str()).collect();
    assert_eq!(serials.len(), DEVICES, "one alert per device: {open:#?}");

    // Each alert's delivery arrives once.
    receiver.wait_for("twenty deliveries", SOON, |r| r.len() >= DEVICES);
    thread::sleep(GRACE);
    let arrived = receiver.received();
    let mut per_delivery: BTreeMap<String, usize> = BTreeMap::new();
    let mut delivered_alerts = BTreeSet::new();
    for request in &arrived {
        let body = assert_delivery(request, &hook, "alert.opened");
        *per_delivery.entry(string(&body, "delivery")).or_default() += 1;
        delivered_alerts.insert(string(&body["data"], "id"));
    }
    assert_eq!(arrived.len(), DEVICES, "{per_delivery:#?}");
    assert!(per_delivery.values().all(|n| *n == 1), "{per_delivery:#?}");
    assert_eq!(delivered_alerts, alert_ids);

    // Each alert is mailed once: its own mail, or a line of a digest.
    let mentions = |mails: &[MailParts]| -> BTreeMap<String, usize> {
        let mut counted = BTreeMap::new();
        for mail in mails {
            for id in &alert_ids {
                let times = mail.text.matches(id.as_str()).count();
                if times > 0 {
                    *counted.entry(id.clone()).or_default() += times;
                }
            }
        }
        counted
    };
    wait_for_alert_mails(&a, "every alert mailed", |mails| {
        mentions(mails).len() == DEVICES
    });
    thread::sleep(GRACE);
    let mails = alert_mails(&a);
    let counted = mentions(&mails);
    assert!(
        counted.values().all(|n| *n == 1),
        "{counted:#?}\n{mails:#?}"
    );
    let singles = mails
        .iter()
        .filter(|m| m.subject == "Alert opened: Sensors")
        .count();
    let lines: usize = mails
        .iter()
        .filter(|m| m.subject.starts_with("Alert digest: "))
        .map(|m| {
            let n = m
                .text
                .lines()
                .filter(|l| l.starts_with("Alert opened: Sensors"))
                .count();
            assert_eq!(
                m.subject,
                format!("Alert digest: {n} notifications"),
                "{m:#?}"
            );
            n
        })
        .sum();
    assert_eq!(singles + lines, DEVICES, "{mails:#?}");

    // Pings through either instance arrive once each.
    let pings = [ping(&a, &owner.token, &hook), ping(&b, &owner.token, &hook)];
    receiver.wait_for("two pings", SOON, |r| r.len() >= DEVICES + 2);
    thread::sleep(GRACE);
    let arrived = receiver.received();
    assert_eq!(arrived.len(), DEVICES + 2, "{arrived:#?}");
    let pinged: BTreeSet<String> = arrived[DEVICES..]
        .iter()
        .map(|r| string(&assert_delivery(r, &hook, "ping"), "delivery"))
        .collect();
    assert_eq!(pinged, pings.into_iter().collect::<BTreeSet<_>>());
}
