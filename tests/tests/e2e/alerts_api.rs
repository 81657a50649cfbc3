//! Alerts through the API (docs/api.md, "Monitors and alerts"): listed
//! newest first a page at a time, filtered by monitor and state (400 for a
//! malformed monitor id or an unknown state, an empty page for a monitor
//! not the account's), read one by one, gone with their monitor; 404 for
//! any id not the account's; the conventions of every route.

use crate::alerts_support::*;
use crate::device_support::install;
use crate::jobs_support::wait_until;
use crate::support::*;
use serde_json::{Value, json};
use std::time::Duration;

/// The online window of these tests' servers (and the monitors' wait).
const WINDOW: u64 = 2;
/// The keys of an alert, sorted.
const ALERT_KEYS: [&str; 8] = [
    "id",
    "monitor",
    "reason",
    "resolved_time",
    "serial",
    "started_time",
    "state",
    "url",
];

/// Alice's alerts: two devices seen then silent, a device monitor (one
/// alert each) and a fleet monitor over them (one alert), opened by the
/// engine as the server's clock moves on.
struct Opened {
    server: Server,
    alice: Account,
    device_monitor: String,
    fleet_monitor: String,
    serials: Vec<String>,
}

fn opened() -> Opened {
    let server = Server::builder().online_window(WINDOW).start();
    let alice = server.account("alice@example.com");
    let serials: Vec<String> = ["Kitchen", "Garage"]
        .iter()
        .map(|name| string(&server.device(&alice.email, name, &["--online"]), "serial"))
        .collect();
    let monitor = |body: Value| string(&new_monitor(&server, &alice.token, &body), "id");
    let device_monitor = monitor(json!({"name": "Any offline", "kind": "device_offline",
        "selector": {"all": true}, "after_seconds": WINDOW}));
    let fleet_monitor = monitor(
        json!({"name": "Fleet offline", "kind": "fleet_offline_ratio",
        "selector": {"all": true}, "after_seconds": WINDOW, "ratio": 0.5}),
    );
    wait_until("three alerts", Duration::from_secs(30), || {
        server.advance(Duration::from_secs(WINDOW + 1));
        let count = page(&server, &alice.token, "/alerts/")["count"].clone();
        if count == 3 {
            Ok(())
        } else {
            std::thread::sleep(Duration::from_millis(300));
            Err(count.to_string())
        }
    });
    Opened {
        server,
        alice,
        device_monitor,
        fleet_monitor,
        serials,
    }
}

/// Asserts an alert's shape: its keys, id, url and times.
#[track_caller]
fn assert_alert_shape(server: &Server, alert: &Value) {
    assert_eq!(keys(alert), ALERT_KEYS, "{alert:#}");
    let id = string(alert, "id");
    assert!(is_lowercase_uuid(&id), "{alert:#}");
    let url = format!("{}/alerts/{id}/", server.expected_base());
    assert_eq!(alert["url"], url, "{alert:#}");
    assert!(is_timestamp(&string(alert, "started_time")), "{alert:#}");
    assert_eq!(alert["state"], "open", "{alert:#}");
    assert_eq!(alert["resolved_time"], Value::Null, "{alert:#}");
}

e2e!(alerts_are_listed_filtered_and_read);
fn alerts_are_listed_filtered_and_read() {
    let Opened {
        server,
        alice,
        device_monitor,
        fleet_monitor,
        serials,
    } = opened();
    let token = &alice.token;
    let all = page(&server, token, "/alerts/");
    let results = all["results"].as_array().unwrap().clone();
    for alert in &results {
        assert_alert_shape(&server, alert);
        let read = server.get(&format!("/alerts/{}/", string(alert, "id")));
        read.token(token).send().expect(200, alert.clone());
    }
    // The fleet alert opened last: it comes first.
    assert_eq!(results[0]["monitor"], fleet_monitor.as_str());
    assert_eq!(results[0]["serial"], Value::Null);
    assert!(
        string(&results[0], "reason").starts_with("2 of 2 selected devices offline (100 %)"),
        "{:#}",
        results[0]
    );
    let mut seen: Vec<String> = results[1..].iter().map(|a| string(a, "serial")).collect();
    seen.sort();
    let mut expected = serials.clone();
    expected.sort();
    assert_eq!(seen, expected);
    for alert in &results[1..] {
        assert_eq!(alert["monitor"], device_monitor.as_str());
        assert!(
            string(alert, "reason").starts_with("No heartbeat from \""),
            "{alert:#}"
        );
    }
    let all_ids = ids(&all);
    assert_paged(&server, token, "/alerts/", &all_ids);

    let listed = |query: &str| ids(&page(&server, token, &format!("/alerts/?{query}")));
    assert_eq!(listed(&format!("monitor={device_monitor}")), all_ids[1..]);
    assert_eq!(listed(&format!("monitor={fleet_monitor}")), all_ids[..1]);
    // A UUID in any spelling names the monitor, as DRF's UUIDField reads it.
    let upper = device_monitor.to_uppercase();
    assert_eq!(listed(&format!("monitor={upper}")), all_ids[1..]);
    assert_eq!(listed("state=open"), all_ids);
    assert_eq!(listed("state=resolved"), Vec::<String>::new());
    assert_eq!(
        listed(&format!("state=open&monitor={fleet_monitor}")),
        all_ids[..1]
    );
    assert_eq!(
        listed(&format!("monitor={UNKNOWN_ID}")),
        Vec::<String>::new()
    );
    // A page's links keep the filters.
    let filtered = page(
        &server,
        token,
        &format!("/alerts/?state=open&monitor={device_monitor}&limit=1"),
    );
    assert_eq!(filtered["count"], 2);
    assert_eq!(
        filtered["next"],
        format!(
            "{}/alerts/?limit=1&monitor={device_monitor}&offset=1&state=open",
            server.expected_base()
        )
    );
    for (query, errors) in [
        ("monitor=x", json!({"monitor": ["Must be a valid UUID."]})),
        (
            "state=x",
            json!({"state": ["\"x\" is not a valid choice."]}),
        ),
        (
            "state=Open",
            json!({"state": ["\"Open\" is not a valid choice."]}),
        ),
        (
            "state=&monitor=",
            json!({"monitor": ["Must be a valid UUID."], "state": ["\"\" is not a valid choice."]}),
        ),
        (
            "state=closed&monitor=1234",
            json!({"monitor": ["Must be a valid UUID."], "state": ["\"closed\" is not a valid choice."]}),
        ),
    ] {
        server
            .get(&format!("/alerts/?{query}"))
            .token(token)
            .send()
            .expect(400, errors);
    }
}

e2e!(other_accounts_and_ids_not_the_accounts_see_nothing);
fn other_accounts_and_ids_not_the_accounts_see_nothing() {
    let Opened {
        server,
        alice,
        device_monitor,
        ..
    } = opened();
    let bob = server.account("bob@example.com");
    let alerts = page(&server, &alice.token, "/alerts/");
    let id = ids(&alerts)[0].clone();
    let missing: Vec<(&str, String)> = missing_ids("/alerts/", &id)
        .into_iter()
        .map(|path| ("GET", path))
        .collect();
    assert_not_found(&server, &alice.token, &missing);
    assert_not_found(&server, &bob.token, &[("GET", format!("/alerts/{id}/"))]);
    assert_eq!(page(&server, &bob.token, "/alerts/")["count"], 0);
    // Another account's monitor is unknown to the filter: an empty page.
    let bobs = page(
        &server,
        &bob.token,
        &format!("/alerts/?monitor={device_monitor}"),
    );
    assert_eq!(
        bobs,
        json!({"count": 0, "next": null, "previous": null, "results": []})
    );
}

e2e!(a_monitors_alerts_are_deleted_with_it);
fn a_monitors_alerts_are_deleted_with_it() {
    let Opened {
        server,
        alice,
        device_monitor,
        fleet_monitor,
        ..
    } = opened();
    let token = &alice.token;
    let devices_alerts = ids(&page(
        &server,
        token,
        &format!("/alerts/?monitor={device_monitor}"),
    ));
    assert_eq!(devices_alerts.len(), 2);
    server
        .delete(&format!("/monitors/{device_monitor}/"))
        .token(token)
        .send()
        .expect_empty(204);
    let gone: Vec<(&str, String)> = devices_alerts
        .iter()
        .map(|id| ("GET", format!("/alerts/{id}/")))
        .collect();
    assert_not_found(&server, token, &gone);
    let left = page(&server, token, "/alerts/");
    assert_eq!(left["count"], 1);
    assert_eq!(left["results"][0]["monitor"], fleet_monitor.as_str());
}

e2e!(the_alerts_routes_follow_the_conventions_of_every_route);
fn the_alerts_routes_follow_the_conventions_of_every_route() {
    let server = Server::start();
    let alice = server.account("alice@example.com");
    let agent = install(&server, &alice, "Kitchen");
    let routes = [
        ("/alerts/".to_owned(), "GET, HEAD, OPTIONS"),
        (format!("/alerts/{UNKNOWN_ID}/"), "GET, HEAD, OPTIONS"),
    ];
    assert_route_conventions(&server, &alice.token, &agent.token, &routes);
    for (path, name) in [("/alerts/", "Alert List"), ("/alerts/x/", "Alert Detail")] {
        let reply = server.options(path).send();
        assert_eq!(reply.json()["name"], name, "{reply}");
        assert_eq!(reply.json()["actions"], json!({}), "{reply}");
    }
    assert_eq!(
        page(&server, &alice.token, "/alerts/"),
        json!({"count": 0, "next": null, "previous": null, "results": []})
    );
}
