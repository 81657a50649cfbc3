//! The monitor engine through the API (docs/api.md, "Monitors and
//! alerts"), with devices enrolled and heartbeating as agents do: a device
//! that falls silent opens one alert with its reason in words, which
//! resolves once the device has been back for two online windows (a shorter
//! return keeps the alert); a device never seen is never down; a deleted or
//! no longer selected device's alert resolves; a fleet monitor opens one
//! alert once the offline share stayed above its ratio, and resolves after
//! two calm windows; a deleted monitor's alerts are gone.
//!
//! The server's clock is moved forward where a device is to fall silent;
//! everything else runs on real time, read back as the API shows it.

use crate::alerting_support::*;
use crate::device_support::{Agent, device_path, install};
use crate::support::*;
use chrono::NaiveDateTime;
use serde_json::{Value, json};
use std::thread;
use std::time::Duration;

/// Moves past the online window: a device silent since now is down.
const SILENCE: Duration = Duration::from_secs(WINDOW + 1);
/// Long enough for the engine (twice a second) to have looked again.
const TICKS: Duration = Duration::from_millis(1500);

/// Seconds since the epoch of an API time.
#[track_caller]
fn seconds(time: &Value) -> i64 {
    let text = time.as_str().unwrap_or_else(|| panic!("a time: {time}"));
    NaiveDateTime::parse_from_str(text, "%Y-%m-%dT%H:%M:%S")
        .unwrap_or_else(|e| panic!("{text}: {e}"))
        .and_utc()
        .timestamp()
}

/// Installs a device named `name` carrying `tags`.
#[track_caller]
fn tagged(server: &Server, owner: &Account, name: &str, tags: &[&str]) -> Agent {
    let agent = install(server, owner, name);
    retag(server, owner, &agent, tags);
    agent
}

/// `PATCH /devices/{serial}/ {"tags": tags}`, asserting the 200.
#[track_caller]
fn retag(server: &Server, owner: &Account, agent: &Agent, tags: &[&str]) {
    server
        .patch(&device_path(&agent.serial))
        .token(&owner.token)
        .json(&json!({ "tags": tags }))
        .send()
        .expect_status(200);
}

e2e!(a_silent_device_opens_one_alert_which_resolves_after_two_windows_back);
fn a_silent_device_opens_one_alert_which_resolves_after_two_windows_back() {
    let server = alerting_server().start();
    let owner = server.account("ada@example.com");
    let gate = tagged(&server, &owner, "Gate A", &["lab"]);
    let never_seen = tagged(&server, &owner, "Gate B", &["lab"]);
    let monitor = device_monitor(
        &server,
        &owner.token,
        "Lab offline",
        json!({"tags": ["lab"]}),
    );
    let monitor_id = string(&monitor, "id");
    let of_monitor = format!("monitor={monitor_id}");

    let seen = beat(&server, &owner.token, &gate);
    server.advance(SILENCE);
    let open = wait_for_alerts(
        &server,
        &owner.token,
        &format!("state=open&{of_monitor}"),
        "the silent device's alert",
        |a| !a.is_empty(),
    );
    assert_eq!(open.len(), 1, "{open:#?}");
    let opened = &open[0];
    let id = string(opened, "id");
    assert_eq!(opened["monitor"], monitor_id.as_str(), "{opened:#}");
    assert_eq!(opened["serial"], gate.serial.as_str(), "{opened:#}");
    assert_eq!(opened["state"], "open", "{opened:#}");
    assert_eq!(
        opened["reason"],
        format!("No heartbeat from \"Gate A\" since {seen} UTC (more than {WINDOW} s)."),
        "{opened:#}"
    );
    assert!(
        seconds(&opened["started_time"]) > seconds(&json!(seen)),
        "{opened:#}"
    );
    assert_eq!(&alert(&server, &owner.token, &id), opened);

    // A device never seen is never down, however long it says nothing.
    server.advance(Duration::from_secs(60));
    thread::sleep(TICKS);
    let all = alerts(&server, &owner.token, &of_monitor);
    assert_eq!(all, open, "only the silent device's alert: {all:#?}");
    assert!(
        all.iter()
            .all(|a| a["serial"] != never_seen.serial.as_str())
    );

    // Back for less than two windows, then silent again: the one alert stays.
    beat(&server, &owner.token, &gate);
    thread::sleep(Duration::from_secs(1));
    server.advance(SILENCE);
    thread::sleep(TICKS);
    let after_flap = alerts(&server, &owner.token, &of_monitor);
    assert_eq!(after_flap.len(), 1, "{after_flap:#?}");
    assert_eq!(after_flap[0]["id"], id.as_str(), "{after_flap:#?}");
    assert_eq!(after_flap[0]["state"], "open", "{after_flap:#?}");

    // Back for good: resolved two online windows after it came back.
    let back = beat(&server, &owner.token, &gate);
    let beating = Heartbeats::start(&server, std::slice::from_ref(&gate));
    let resolved = wait_resolved(&server, &owner.token, &id);
    beating.stop();
    let resolved_at = seconds(&resolved["resolved_time"]);
    assert!(
        resolved_at >= seconds(&json!(back)) + 2 * WINDOW as i64 - 1,
        "resolved before two windows back (back at {back}): {resolved:#}"
    );
    assert_eq!(resolved["reason"], opened["reason"], "{resolved:#}");
    assert_eq!(
        resolved["started_time"], opened["started_time"],
        "{resolved:#}"
    );
    assert!(alerts(&server, &owner.token, &format!("state=open&{of_monitor}")).is_empty());
    assert_eq!(
        alerts(
            &server,
            &owner.token,
            &format!("state=resolved&{of_monitor}")
        ),
        [resolved]
    );
}

e2e!(a_deleted_or_no_longer_selected_device_has_its_alert_resolved);
fn a_deleted_or_no_longer_selected_device_has_its_alert_resolved() {
    let server = alerting_server().start();
    let owner = server.account("ada@example.com");
    let deleted = tagged(&server, &owner, "Pump 1", &["lab"]);
    let untagged = tagged(&server, &owner, "Pump 2", &["lab", "east"]);
    let monitor = device_monitor(&server, &owner.token, "Pumps", json!({"tags": ["lab"]}));
    let of_monitor = format!("monitor={}", string(&monitor, "id"));
    beat(&server, &owner.token, &deleted);
    beat(&server, &owner.token, &untagged);
    server.advance(SILENCE);
    let open = wait_for_alerts(
        &server,
        &owner.token,
        &format!("state=open&{of_monitor}"),
        "two alerts",
        |a| a.len() == 2,
    );
    let id_of = |agent: &Agent| {
        let found = open.iter().find(|a| a["serial"] == agent.serial.as_str());
        string(
            found.unwrap_or_else(|| panic!("{}'s alert: {open:#?}", agent.serial)),
            "id",
        )
    };
    let (deleted_alert, untagged_alert) = (id_of(&deleted), id_of(&untagged));

    server
        .delete(&device_path(&deleted.serial))
        .token(&owner.token)
        .send()
        .expect_empty(204);
    let resolved = wait_resolved(&server, &owner.token, &deleted_alert);
    assert_eq!(
        resolved["serial"],
        deleted.serial.as_str(),
        "the serial is kept: {resolved:#}"
    );

    retag(&server, &owner, &untagged, &["east"]);
    wait_resolved(&server, &owner.token, &untagged_alert);
    // Still silent, but no longer selected: nothing opens again.
    server.advance(SILENCE);
    thread::sleep(TICKS);
    assert_eq!(alerts(&server, &owner.token, &of_monitor).len(), 2);
    assert!(alerts(&server, &owner.token, "state=open").is_empty());
}

e2e!(a_fleet_monitor_alerts_once_above_its_ratio_and_resolves_after_two_calm_windows);
fn a_fleet_monitor_alerts_once_above_its_ratio_and_resolves_after_two_calm_windows() {
    let server = alerting_server().start();
    let owner = server.account("ada@example.com");
    let site: Vec<Agent> = (0..5)
        .map(|n| tagged(&server, &owner, &format!("Meter {n}"), &["site"]))
        .collect();
    // Meter 0 is never seen (offline), 1 and 2 fall silent, 3 and 4 stay:
    // 3 of 5 offline once 1 and 2 are, above a ratio of 0.5.
    let steady = Heartbeats::start(&server, &site[3..]);
    let silent: Vec<String> = site[1..3]
        .iter()
        .map(|a| beat(&server, &owner.token, a))
        .collect();
    let monitor = fleet_monitor(
        &server,
        &owner.token,
        "Site down",
        json!({"tags": ["site"]}),
        0.5,
    );
    let monitor_id = string(&monitor, "id");
    let of_monitor = format!("monitor={monitor_id}");

    let open = wait_for_alerts(
        &server,
        &owner.token,
        &format!("state=open&{of_monitor}"),
        "the fleet alert",
        |a| !a.is_empty(),
    );
    assert_eq!(open.len(), 1, "{open:#?}");
    let opened = &open[0];
    assert_eq!(opened["serial"], Value::Null, "{opened:#}");
    assert_eq!(opened["monitor"], monitor_id.as_str(), "{opened:#}");
    assert_eq!(
        opened["reason"],
        format!("3 of 5 selected devices offline (60 %), above 50 % for {WINDOW} s."),
        "{opened:#}"
    );
    // Offline a window after their last heartbeat, then above for after_seconds.
    let last_silent = silent
        .iter()
        .map(|t| seconds(&json!(t)))
        .max()
        .expect("two");
    assert!(
        seconds(&opened["started_time"]) >= last_silent + 2 * WINDOW as i64 - 1,
        "opened before the share stayed above the ratio (last heartbeat {last_silent}): {opened:#}"
    );

    // Two back: 1 of 5 offline, at or below the ratio; resolved after two windows.
    let back = beat(&server, &owner.token, &site[1]);
    let returning = Heartbeats::start(&server, &site[1..3]);
    let id = string(opened, "id");
    let resolved = wait_resolved(&server, &owner.token, &id);
    assert!(
        seconds(&resolved["resolved_time"]) >= seconds(&json!(back)) + 2 * WINDOW as i64 - 1,
        "resolved before two calm windows (back at {back}): {resolved:#}"
    );
    returning.stop();
    steady.stop();
    assert_eq!(
        alerts(&server, &owner.token, &of_monitor).len(),
        1,
        "one alert in all"
    );

    // Deleting the monitor deletes its alerts.
    server
        .delete(&format!("/monitors/{monitor_id}/"))
        .token(&owner.token)
        .send()
        .expect_empty(204);
    server
        .get(&format!("/alerts/{id}/"))
        .token(&owner.token)
        .send()
        .expect_detail(404, NOT_FOUND);
    assert!(alerts(&server, &owner.token, "").is_empty());
}
