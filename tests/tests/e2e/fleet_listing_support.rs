//! Helpers of the device list's tests (docs/api.md, "List devices"):
//! filtered, ordered and paged listings, and the tags of one device.

use crate::device_support::*;
use crate::support::*;
use serde_json::{Value, json};
use std::time::Duration;

/// A text that is no tag.
pub const NOT_A_TAG: &str = "Enter a valid tag: 1 to 40 characters from a-z, 0-9, \".\", \"_\", \":\" and \"-\", beginning with a letter or digit.";

/// `GET /devices/?<query>` by `token`.
pub fn list_call(server: &Server, token: &str, query: &str) -> Reply {
    server
        .get(&format!("/devices/?{query}"))
        .token(token)
        .send()
}

/// The serials of a 200 array answer of `GET /devices/?<query>`.
#[track_caller]
pub fn listed(server: &Server, token: &str, query: &str) -> Vec<String> {
    let reply = list_call(server, token, query);
    reply.expect_status(200);
    serials(&reply.json())
}

/// The serials of a list of devices.
#[track_caller]
pub fn serials(devices: &Value) -> Vec<String> {
    devices
        .as_array()
        .unwrap_or_else(|| panic!("an array of devices: {devices}"))
        .iter()
        .map(|device| string(device, "serial"))
        .collect()
}

/// A 200 page of `GET /devices/?<query>`: asserts its keys; returns it.
#[track_caller]
pub fn page(server: &Server, token: &str, query: &str) -> Value {
    let reply = list_call(server, token, query);
    reply.expect_status(200);
    let body = reply.json();
    assert_eq!(
        keys(&body),
        ["count", "next", "previous", "results"],
        "{reply}"
    );
    body
}

/// A device installed by `account`'s agent after the clock moved on a
/// second (so creation times differ); its serial and device token.
#[track_caller]
pub fn agent(server: &Server, account: &Account, name: &str) -> Agent {
    server.advance(Duration::from_secs(1));
    install(server, account, name)
}

/// Sets a device's tags with PATCH; asserts the 200.
#[track_caller]
pub fn tag(server: &Server, token: &str, serial: &str, tags: &[&str]) {
    patch_tags(server, token, serial, json!(tags)).expect_status(200);
}

/// `PATCH /devices/{serial}/ {"tags": tags}` by `token`.
pub fn patch_tags(server: &Server, token: &str, serial: &str, tags: Value) -> Reply {
    server
        .patch(&device_path(serial))
        .token(token)
        .json(&json!({ "tags": tags }))
        .send()
}
