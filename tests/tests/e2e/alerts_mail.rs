//! Alert mail (docs/api.md, "Monitors and alerts"): each opening and each
//! resolution is mailed to the account with the alert's reason and id; an
//! account's first alert mail opens a window (`serve --alert-mail-window`)
//! whose first ten notifications go one by one and the others together in
//! one digest when it ends; the first notification after it opens the next.
//! A snoozed monitor's alerts open as usual but are neither mailed nor
//! sent to webhooks; a snooze until null or a past time ends it.

use crate::alerting_support::*;
use crate::device_support::{Agent, install};
use crate::support::*;
use serde_json::{Value, json};
use std::collections::BTreeSet;
use std::thread;
use std::time::Duration;

/// The alert mail window of these servers, in seconds.
const MAIL_WINDOW: u64 = 30;
/// Moves past the online window: a device silent since now is down.
const SILENCE: Duration = Duration::from_secs(WINDOW + 1);
/// Long enough for the engine and the mail worker to have acted.
const TICKS: Duration = Duration::from_millis(1500);

/// The ids of `alerts`.
fn ids(alerts: &[Value]) -> BTreeSet<String> {
    alerts.iter().map(|a| string(a, "id")).collect()
}

e2e!(ten_alerts_are_mailed_one_by_one_and_the_rest_in_a_digest_when_the_window_ends);
fn ten_alerts_are_mailed_one_by_one_and_the_rest_in_a_digest_when_the_window_ends() {
    let server = alerting_server()
        .args(&["--alert-mail-window", &MAIL_WINDOW.to_string()])
        .start();
    let owner = server.account("ada@example.com");
    let farm: Vec<Agent> = (0..12)
        .map(|n| install(&server, &owner, &format!("Node {n:02}")))
        .collect();
    device_monitor(&server, &owner.token, "Farm", json!({"all": true}));
    farm.iter().for_each(|agent| {
        beat(&server, &owner.token, agent);
    });

    // Twelve devices go down together.
    server.advance(SILENCE);
    let open = wait_for_alerts(&server, &owner.token, "state=open", "twelve alerts", |a| {
        a.len() == 12
    });
    let mails = wait_for_alert_mails(&server, "ten alert mails", |m| m.len() >= 10);
    thread::sleep(TICKS);
    let mails_before_the_end = alert_mails(&server);
    assert_eq!(
        mails_before_the_end, mails,
        "ten mails, no digest before the window ends"
    );
    assert_eq!(mails.len(), 10, "{mails:#?}");
    let mut mailed = BTreeSet::new();
    for mail in &mails {
        assert_eq!(mail.to, owner.email, "{mail:#?}");
        assert_eq!(mail.subject, "Alert opened: Farm", "{mail:#?}");
        let alert = open
            .iter()
            .find(|a| mail.text.contains(&string(a, "id")))
            .unwrap_or_else(|| panic!("no alert's id in {mail:#?}"));
        assert!(
            mail.text.contains(&string(alert, "reason")),
            "{mail:#?}\n{alert:#}"
        );
        assert!(
            mailed.insert(string(alert, "id")),
            "mailed twice: {mail:#?}"
        );
    }

    // The window ends: one digest of the two others, each subject and id.
    server.advance(Duration::from_secs(MAIL_WINDOW));
    let mails = wait_for_alert_mails(&server, "the digest", |m| m.len() >= 11);
    let digest = &mails[10];
    assert_eq!(digest.to, owner.email, "{digest:#?}");
    assert_eq!(
        digest.subject, "Alert digest: 2 notifications",
        "{digest:#?}"
    );
    let rest: BTreeSet<String> = ids(&open).difference(&mailed).cloned().collect();
    assert_eq!(rest.len(), 2, "{open:#?}");
    for id in &rest {
        let line = digest
            .text
            .lines()
            .find(|line| line.contains(id.as_str()))
            .unwrap_or_else(|| panic!("{id} not in the digest: {digest:#?}"));
        assert!(
            line.contains("Alert opened: Farm"),
            "{line:?} in {digest:#?}"
        );
    }
    assert!(
        mailed.iter().all(|id| !digest.text.contains(id.as_str())),
        "{digest:#?}"
    );

    // The next notification, a resolution, opens a new window: a mail of its own.
    let back = &farm[0];
    let beating = Heartbeats::start(&server, std::slice::from_ref(back));
    let mails = wait_for_alert_mails(&server, "the resolution's mail", |m| m.len() >= 12);
    beating.stop();
    let resolution = &mails[11];
    let resolved = alerts(&server, &owner.token, "state=resolved");
    assert_eq!(resolved.len(), 1, "{resolved:#?}");
    assert_eq!(resolved[0]["serial"], back.serial.as_str(), "{resolved:#?}");
    assert_eq!(
        resolution.subject, "Alert resolved: Farm",
        "{resolution:#?}"
    );
    assert!(
        resolution.text.contains(&string(&resolved[0], "id")),
        "{resolution:#?}"
    );
    assert!(
        resolution.text.contains(&string(&resolved[0], "reason")),
        "{resolution:#?}"
    );
}

e2e!(a_snoozed_monitor_alerts_without_mail_or_delivery_until_the_snooze_ends);
fn a_snoozed_monitor_alerts_without_mail_or_delivery_until_the_snooze_ends() {
    let server = alerting_server().start();
    let owner = server.account("ada@example.com");
    let receiver = Receiver::accepting();
    let hook = create_webhook(&server, &owner.token, &receiver.url("/hook"), None);
    let agent = install(&server, &owner, "Boiler");
    let monitor = device_monitor(&server, &owner.token, "Boiler room", json!({"all": true}));
    let id = string(&monitor, "id");
    let until = "2099-01-01T00:00:00";
    let snoozed = snooze(&server, &owner.token, &id, json!(until));
    assert_eq!(snoozed["snoozed_until"], until, "{snoozed:#}");
    assert_eq!(snoozed["id"], id.as_str(), "{snoozed:#}");

    beat(&server, &owner.token, &agent);
    server.advance(SILENCE);
    let open = wait_for_alerts(
        &server,
        &owner.token,
        "state=open",
        "the snoozed monitor's alert",
        |a| a.len() == 1,
    );
    thread::sleep(TICKS);
    assert!(
        alert_mails(&server).is_empty(),
        "{:#?}",
        alert_mails(&server)
    );
    assert!(receiver.received().is_empty(), "{:#?}", receiver.received());
    assert!(deliveries(&server, &owner.token, &hook).is_empty());

    // Null ends a snooze, and so does a time not in the future.
    assert_eq!(
        snooze(&server, &owner.token, &id, Value::Null)["snoozed_until"],
        Value::Null
    );
    snooze(&server, &owner.token, &id, json!(until));
    let ended = snooze(&server, &owner.token, &id, json!("2000-01-01T00:00:00"));
    assert_eq!(ended["snoozed_until"], Value::Null, "{ended:#}");

    // Awake: the resolution is mailed and delivered.
    let beating = Heartbeats::start(&server, std::slice::from_ref(&agent));
    let mails = wait_for_alert_mails(&server, "the resolution's mail", |m| !m.is_empty());
    beating.stop();
    let alert_id = string(&open[0], "id");
    assert_eq!(mails.len(), 1, "{mails:#?}");
    assert_eq!(
        mails[0].subject, "Alert resolved: Boiler room",
        "{mails:#?}"
    );
    assert!(mails[0].text.contains(&alert_id), "{mails:#?}");
    let arrived = receiver.wait_for("the resolution's delivery", SOON, |r| !r.is_empty());
    let body = assert_delivery(&arrived[0], &hook, "alert.resolved");
    assert_eq!(body["data"]["id"], alert_id.as_str(), "{body:#}");
    assert_eq!(
        arrived.len(),
        1,
        "only the resolution is delivered: {arrived:#?}"
    );
}
