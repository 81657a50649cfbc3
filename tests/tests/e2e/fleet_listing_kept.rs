//! GET /devices/ asked again (docs/architecture.md, "Listing answers"): the
//! server keeps listing answers between requests, and a kept answer never
//! shows less than the last commit, whichever process made it, nor an
//! online state that time has ended.

use crate::device_support::*;
use crate::fleet_listing_support::*;
use crate::support::*;
use serde_json::{Value, json};
use std::time::Duration;

/// The 200 answer of `GET /devices/?<query>` by `token`.
#[track_caller]
fn list(server: &Server, token: &str, query: &str) -> Value {
    let reply = list_call(server, token, query);
    reply.expect_status(200);
    reply.json()
}

/// The device of `serial` in a listing.
#[track_caller]
fn listed_device<'a>(devices: &'a Value, serial: &str) -> &'a Value {
    devices
        .as_array()
        .and_then(|all| all.iter().find(|device| device["serial"] == serial))
        .unwrap_or_else(|| panic!("{serial} in {devices}"))
}

/// The serials of a listing, sorted.
#[track_caller]
fn sorted_serials(devices: &Value) -> Vec<String> {
    let mut all = serials(devices);
    all.sort();
    all
}

e2e!(a_listing_asked_again_shows_every_change_made_since);
fn a_listing_asked_again_shows_every_change_made_since() {
    let server = Server::start();
    let alice = server.account("alice@example.com");
    let bob = server.account("bob@example.com");
    let pi = agent(&server, &alice, "pi");
    let only_pi = [pi.serial.clone()];
    let first = list(&server, &alice.token, "");
    assert_eq!(serials(&first), only_pi);
    assert_eq!(list(&server, &alice.token, ""), first, "nothing changed");
    assert_eq!(list(&server, &bob.token, ""), json!([]), "bob's own");

    // Another process adds a device beside the server.
    let shed = string(&server.device(&alice.email, "Shed", &[]), "serial");
    let mut both = vec![pi.serial.clone(), shed.clone()];
    both.sort();
    assert_eq!(sorted_serials(&list(&server, &alice.token, "")), both);
    assert_eq!(page(&server, &alice.token, "limit=1")["count"], 2);

    server
        .patch(&device_path(&pi.serial))
        .token(&alice.token)
        .json(&json!({"name": "Renamed"}))
        .send()
        .expect_status(200);
    let renamed = list(&server, &alice.token, "");
    assert_eq!(listed_device(&renamed, &pi.serial)["name"], "Renamed");
    tag(&server, &alice.token, &pi.serial, &["lab"]);
    let tagged = list(&server, &alice.token, "");
    assert_eq!(listed_device(&tagged, &pi.serial)["tags"], json!(["lab"]));
    assert_eq!(serials(&list(&server, &alice.token, "tag=lab")), only_pi);

    server.advance(Duration::from_secs(5));
    heartbeat(&server, &pi.token, &json!({}));
    let seen = list(&server, &alice.token, "");
    let seen_at = &listed_device(&seen, &pi.serial)["last_seen_time"];
    assert!(seen_at.is_string(), "{seen}");
    assert_ne!(
        seen_at,
        &listed_device(&tagged, &pi.serial)["last_seen_time"]
    );
    assert_eq!(listed_device(&seen, &pi.serial)["online"], true);

    server
        .delete(&device_path(&shed))
        .token(&alice.token)
        .send()
        .expect_status(204);
    assert_eq!(serials(&list(&server, &alice.token, "")), only_pi);
    assert_eq!(page(&server, &alice.token, "limit=1")["count"], 1);
    assert_eq!(list(&server, &bob.token, ""), json!([]), "bob's own");
}

e2e!(a_listing_asked_under_another_host_has_that_hosts_urls);
fn a_listing_asked_under_another_host_has_that_hosts_urls() {
    let server = Server::start();
    let alice = server.account("alice@example.com");
    let pi = agent(&server, &alice, "pi");
    let own = list(&server, &alice.token, "");
    let url = |base: &str| format!("{base}/devices/{}/", pi.serial);
    assert_eq!(own[0]["url"], url(&server.expected_base()));
    let reply = server
        .get("/devices/?")
        .token(&alice.token)
        .header("Host", "devmgr.test:8123")
        .send();
    reply.expect_status(200);
    assert_eq!(reply.json()[0]["url"], url("http://devmgr.test:8123"));
}

/// Whether the device of `serial` is online in `GET /devices/?<query>`, an
/// array or (with `limit`) a page.
#[track_caller]
fn listed_online(server: &Server, token: &str, query: &str, serial: &str) -> Value {
    let listed = list(server, token, query);
    let devices = match query.contains("limit") {
        true => &listed["results"],
        false => &listed,
    };
    listed_device(devices, serial)["online"].clone()
}

e2e!(a_device_listed_online_is_listed_offline_once_its_window_passes);
fn a_device_listed_online_is_listed_offline_once_its_window_passes() {
    let server = Server::builder().online_window(60).start();
    let alice = server.account("alice@example.com");
    let serial = string(
        &server.device(&alice.email, "Blinky", &["--online"]),
        "serial",
    );
    let queries = ["", "limit=5"];
    for query in queries {
        let listed = list(&server, &alice.token, query);
        assert_eq!(list(&server, &alice.token, query), listed, "{query}: again");
        let online = listed_online(&server, &alice.token, query, &serial);
        assert_eq!(online, true, "{query}");
    }
    server.advance(Duration::from_secs(61));
    for query in queries {
        let online = listed_online(&server, &alice.token, query, &serial);
        assert_eq!(online, false, "{query}: the window passed");
    }
}
