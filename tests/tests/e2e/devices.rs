//! Devices (docs/api.md, Devices): GET /devices/, GET /devices/{serial}/ and
//! POST /devices/{serial}/reboot/.

use crate::device_support::DEVICE_FIELDS;
use crate::support::*;
use serde_json::{Value, json};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

fn list(server: &Server, token: &str) -> Vec<Value> {
    let reply = server.get("/devices/").token(token).send();
    reply.expect_status(200);
    reply
        .json()
        .as_array()
        .unwrap_or_else(|| panic!("the device list is an array\n{reply}"))
        .clone()
}

fn detail(server: &Server, token: &str, serial: &str) -> Value {
    let reply = server
        .get(&format!("/devices/{serial}/"))
        .token(token)
        .send();
    reply.expect_status(200);
    reply.json()
}

/// Seconds since the Unix epoch of a `YYYY-MM-DDTHH:MM:SS` UTC timestamp.
fn epoch_seconds(timestamp: &str) -> i64 {
    chrono::NaiveDateTime::parse_from_str(timestamp, "%Y-%m-%dT%H:%M:%S")
        .unwrap_or_else(|e| panic!("{timestamp:?} is not a timestamp: {e}"))
        .and_utc()
        .timestamp()
}

/// Asserts every rule of docs/api.md that holds for any device of this server.
#[track_caller]
fn assert_device_shape(server: &Server, device: &Value) {
    assert_eq!(keys(device), DEVICE_FIELDS, "{device:#}");
    let serial = string(device, "serial");
    assert!(is_lowercase_uuid(&serial), "serial {serial:?}");
    let url = format!("{}/devices/{serial}/", server.expected_base());
    assert_eq!(device["url"], url.as_str(), "{device:#}");
    assert_eq!(device["ports_url"], format!("{url}ports/"), "{device:#}");
    assert_eq!(device["reboot_url"], format!("{url}reboot/"), "{device:#}");
    let created = string(device, "created_time");
    assert!(is_timestamp(&created), "created_time {created:?}");
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .expect("after 1970")
        .as_secs() as i64;
    assert!(
        (epoch_seconds(&created) - now).abs() < 300,
        "created_time {created:?} is not UTC now"
    );
    assert!(is_slug(&string(device, "wormhole_slug")), "{device:#}");
    for key in [
        "agent_version",
        "description",
        "machine_type",
        "machine_type_display",
        "name",
        "operating_system",
        "uname",
    ] {
        assert!(
            device[key].is_string(),
            "{key} should be a string: {device:#}"
        );
    }
    assert!(device["online"].is_boolean(), "{device:#}");
    assert!(device["processor_speed"].is_i64(), "{device:#}");
    assert!(device["ram_capacity"].is_i64(), "{device:#}");
    for key in ["disk_capacity", "disk_used"] {
        assert!(
            device[key].is_null() || device[key].is_i64(),
            "{key}: {device:#}"
        );
    }
}

/// The device without its three URLs (which depend on the base the printer knew).
fn without_urls(device: &Value) -> Value {
    let mut device = device.clone();
    let object = device.as_object_mut().expect("a device is an object");
    for key in ["url", "ports_url", "reboot_url"] {
        object.remove(key);
    }
    device
}

e2e!(a_new_account_has_no_devices);
fn a_new_account_has_no_devices() {
    let server = Server::start();
    let alice = server.account("alice@example.com");
    server
        .get("/devices/")
        .token(&alice.token)
        .send()
        .expect(200, json!([]));
}

e2e!(a_device_added_with_a_name_only_gets_the_defaults);
fn a_device_added_with_a_name_only_gets_the_defaults() {
    let server = Server::start();
    let alice = server.account("alice@example.com");
    let added = server.device(&alice.email, "Kitchen Pi", &[]);
    assert_eq!(
        keys(&added),
        DEVICE_FIELDS,
        "device add prints the device object: {added:#}"
    );

    let devices = list(&server, &alice.token);
    assert_eq!(devices.len(), 1, "{devices:#?}");
    let device = &devices[0];
    assert_device_shape(&server, device);
    let url = format!("{}/devices/{}/", server.base(), string(device, "serial"));
    assert_eq!(
        *device,
        json!({
            "agent_version": "",
            "created_time": device["created_time"],
            "description": "",
            "disk_capacity": null,
            "disk_used": null,
            "last_seen_time": null,
            "machine_type": "unknown",
            "machine_type_display": "Unknown",
            "name": "Kitchen Pi",
            "online": false,
            "operating_system": "",
            "ports_url": format!("{url}ports/"),
            "processor_speed": 0,
            "ram_capacity": 0,
            "reboot_url": format!("{url}reboot/"),
            "serial": device["serial"],
            "tags": [],
            "uname": "",
            "url": url,
            "wormhole_slug": device["wormhole_slug"],
        })
    );
    assert_eq!(without_urls(&added), without_urls(device));
}

e2e!(a_device_shows_every_fact_given_on_the_command_line);
fn a_device_shows_every_fact_given_on_the_command_line() {
    let server = Server::start();
    let alice = server.account("alice@example.com");
    let serial = "3f2504e0-4f89-41d3-9a0c-0305e82c3301";
    let added = server.device(
        &alice.email,
        "Garage Pi",
        &[
            "--serial",
            serial,
            "--description",
            "Opens the garage door",
            "--machine-type",
            "rpi_4b",
            "--online",
            "--agent-version",
            "1.4.2",
            "--operating-system",
            "Raspberry Pi OS 12",
            "--uname",
            "Linux garage 6.6.20+rpt-rpi-v8 aarch64",
            "--disk-capacity",
            "31914983424",
            "--disk-used",
            "5368709120",
            "--ram-capacity",
            "4096",
            "--processor-speed",
            "1800",
        ],
    );
    let device = detail(&server, &alice.token, serial);
    assert_device_shape(&server, &device);
    let url = format!("{}/devices/{serial}/", server.base());
    assert_eq!(
        device,
        json!({
            "agent_version": "1.4.2",
            "created_time": device["created_time"],
            "description": "Opens the garage door",
            "disk_capacity": 31_914_983_424_u64,
            "disk_used": 5_368_709_120_u64,
            "last_seen_time": device["last_seen_time"],
            "machine_type": "rpi_4b",
            "machine_type_display": "Raspberry Pi 4 Model B",
            "name": "Garage Pi",
            "online": true,
            "operating_system": "Raspberry Pi OS 12",
            "ports_url": format!("{url}ports/"),
            "processor_speed": 1800,
            "ram_capacity": 4096,
            "reboot_url": format!("{url}reboot/"),
            "serial": serial,
            "tags": [],
            "uname": "Linux garage 6.6.20+rpt-rpi-v8 aarch64",
            "url": url,
            "wormhole_slug": device["wormhole_slug"],
        })
    );
    assert_eq!(without_urls(&added), without_urls(&device));
}

e2e!(the_list_holds_only_the_accounts_devices_ordered_by_creation_then_serial);
fn the_list_holds_only_the_accounts_devices_ordered_by_creation_then_serial() {
    let server = Server::start();
    let alice = server.account("alice@example.com");
    let bob = server.account("bob@example.com");
    let serials = [
        "c0000000-0000-4000-8000-000000000000",
        "a0000000-0000-4000-8000-000000000000",
        "b0000000-0000-4000-8000-000000000000",
    ];
    for (index, serial) in serials.iter().enumerate() {
        server.device(
            &alice.email,
            &format!("Alice {index}"),
            &["--serial", serial],
        );
    }
    let bobs = server.device_serial(&bob.email);

    let devices = list(&server, &alice.token);
    for device in &devices {
        assert_device_shape(&server, device);
    }
    let listed: Vec<(String, String)> = devices
        .iter()
        .map(|device| (string(device, "created_time"), string(device, "serial")))
        .collect();
    let mut sorted = listed.clone();
    sorted.sort();
    assert_eq!(listed, sorted, "ordered by created_time, then serial");
    let mut listed_serials: Vec<&str> = listed.iter().map(|(_, serial)| serial.as_str()).collect();
    listed_serials.sort_unstable();
    let mut expected = serials.to_vec();
    expected.sort_unstable();
    assert_eq!(listed_serials, expected, "only alice's devices");

    let mut slugs: Vec<String> = devices
        .iter()
        .map(|device| string(device, "wormhole_slug"))
        .collect();
    slugs.sort();
    slugs.dedup();
    assert_eq!(slugs.len(), 3, "wormhole slugs are unique");

    let bob_devices = list(&server, &bob.token);
    assert_eq!(bob_devices.len(), 1);
    assert_eq!(bob_devices[0]["serial"], bobs.as_str());
}

e2e!(the_detail_is_the_list_entry_at_the_path_of_its_url);
fn the_detail_is_the_list_entry_at_the_path_of_its_url() {
    let server = Server::start();
    let alice = server.account("alice@example.com");
    server.device(&alice.email, "One", &["--machine-type", "rpi_4b"]);
    server.device(&alice.email, "Two", &["--online"]);
    for device in list(&server, &alice.token) {
        let url = string(&device, "url");
        let path = url
            .strip_prefix(server.base())
            .expect("the url is on this server");
        let reply = server.get(path).token(&alice.token).send();
        reply.expect(200, device.clone());
        server
            .head(path)
            .token(&alice.token)
            .send()
            .expect_empty(200);
    }
}

e2e!(a_missing_or_foreign_device_is_404_alike);
fn a_missing_or_foreign_device_is_404_alike() {
    let server = Server::start();
    let alice = server.account("alice@example.com");
    let bob = server.account("bob@example.com");
    let bobs = server.device_serial(&bob.email);
    for serial in [
        bobs.as_str(),
        "0f2c3d4e-5a6b-4c7d-8e9f-a0b1c2d3e4f5",
        "not-a-serial",
    ] {
        server
            .get(&format!("/devices/{serial}/"))
            .token(&alice.token)
            .send()
            .expect_detail(404, NOT_FOUND);
        server
            .post(&format!("/devices/{serial}/reboot/"))
            .token(&alice.token)
            .send()
            .expect_detail(404, NOT_FOUND);
    }
    // Bob still sees his device.
    detail(&server, &bob.token, &bobs);
}

e2e!(a_reboot_is_202_and_may_be_asked_for_again);
fn a_reboot_is_202_and_may_be_asked_for_again() {
    let server = Server::start();
    let alice = server.account("alice@example.com");
    let serial = server.device_serial(&alice.email);
    let path = format!("/devices/{serial}/reboot/");
    let dispatched = |reply: &Reply| {
        reply.expect_status(202);
        let body = reply.json();
        assert_eq!(body["detail"], "Reboot signal dispatched.", "{reply}");
        body["command"].clone()
    };
    let first = dispatched(&server.post(&path).token(&alice.token).send());
    assert_eq!(first["status"], "pending", "{first}");
    // Asked for again while it is pending: the same command, not a second one.
    let again = dispatched(&server.post(&path).token(&alice.token).send());
    assert_eq!(again, first);
    let with_body = server
        .post(&path)
        .token(&alice.token)
        .json(&json!({}))
        .send();
    assert_eq!(dispatched(&with_body), first);
    // The device itself is unchanged.
    assert_device_shape(&server, &detail(&server, &alice.token, &serial));
}

e2e!(device_urls_use_the_public_url_when_configured);
fn device_urls_use_the_public_url_when_configured() {
    let server = Server::builder()
        .public_url("https://devmgr.example.net")
        .start();
    let alice = server.account("alice@example.com");
    let serial = server.device_serial(&alice.email);
    let device = &list(&server, &alice.token)[0];
    assert_device_shape(&server, device);
    assert_eq!(
        device["url"],
        format!("https://devmgr.example.net/devices/{serial}/")
    );
    assert_eq!(detail(&server, &alice.token, &serial), *device);
}

e2e!(without_a_public_url_device_urls_follow_the_host_header);
fn without_a_public_url_device_urls_follow_the_host_header() {
    let server = Server::start();
    let alice = server.account("alice@example.com");
    let serial = server.device_serial(&alice.email);
    let reply = server
        .get("/devices/")
        .token(&alice.token)
        .header("Host", "devmgr.test:8123")
        .send();
    reply.expect_status(200);
    let device = &reply.json()[0];
    let url = format!("http://devmgr.test:8123/devices/{serial}/");
    assert_eq!(device["url"], url.as_str(), "{reply}");
    assert_eq!(device["ports_url"], format!("{url}ports/"), "{reply}");
    assert_eq!(device["reboot_url"], format!("{url}reboot/"), "{reply}");
}

e2e!(online_ends_when_the_window_passes);
fn online_ends_when_the_window_passes() {
    let server = Server::builder().online_window(1).start();
    let alice = server.account("alice@example.com");
    let serial = string(
        &server.device(&alice.email, "Blinky", &["--online"]),
        "serial",
    );
    server.advance(Duration::from_millis(2500));
    assert_eq!(detail(&server, &alice.token, &serial)["online"], false);
}
