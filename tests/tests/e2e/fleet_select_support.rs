//! Helpers of the fleet tests (docs/api.md, "Fleet"): previews of a
//! selector, bulk taggings, the account's tags, and the messages they answer.

use crate::support::*;
use serde_json::{Value, json};

/// `POST /devices/select/`.
pub const SELECT: &str = "/devices/select/";
/// `POST /devices/tags/`.
pub const BULK_TAGS: &str = "/devices/tags/";
/// `GET /tags/`.
pub const TAGS: &str = "/tags/";

/// The selector error of no criterion without `"all": true`.
pub const NEEDS_ALL: &str = "A selector without criteria needs \"all\": true.";
/// The selector error of `"all": true` beside a criterion.
pub const ALL_ALONE: &str = "\"all\": true cannot be combined with other criteria.";
/// A bulk tagging that names no tag.
pub const GIVE_TAGS: &str = "Give tags to add or to remove.";
/// A bulk tagging that would leave a device with more than 20 tags.
pub const OVER_20: &str = "A device would have more than 20 tags.";
/// A text that is no tag.
pub const INVALID_TAG: &str = "Enter a valid tag: 1 to 40 characters from a-z, 0-9, \".\", \"_\", \":\" and \"-\", beginning with a letter or digit.";

/// A device of `owner` made by the command line; its serial.
#[track_caller]
pub fn add_device(server: &Server, owner: &Account, name: &str, extra: &[&str]) -> String {
    string(&server.device(&owner.email, name, extra), "serial")
}

/// `POST /devices/select/ {"selector": selector}` by `token`.
pub fn select_call(server: &Server, token: &str, selector: Value) -> Reply {
    server
        .post(SELECT)
        .token(token)
        .json(&json!({ "selector": selector }))
        .send()
}

/// A preview's count and the serials it shows, asserting a 200 with exactly
/// `count` and `devices`.
#[track_caller]
pub fn selected(server: &Server, token: &str, selector: Value) -> (u64, Vec<String>) {
    let reply = select_call(server, token, selector);
    reply.expect_status(200);
    let body = reply.json();
    assert_eq!(keys(&body), ["count", "devices"], "{reply}");
    let count = body["count"].as_u64().expect("a count");
    let serials = body["devices"]
        .as_array()
        .expect("a list of devices")
        .iter()
        .map(|device| string(device, "serial"))
        .collect();
    (count, serials)
}

/// `POST /devices/tags/ body` by `token`.
pub fn bulk_tags_call(server: &Server, token: &str, body: Value) -> Reply {
    server.post(BULK_TAGS).token(token).json(&body).send()
}

/// Puts `tags` on the devices of `serials`, asserting every one matched.
#[track_caller]
pub fn tag_devices(server: &Server, token: &str, serials: &[&str], tags: &[&str]) {
    bulk_tags_call(
        server,
        token,
        json!({"selector": {"serials": serials}, "add": tags}),
    )
    .expect(200, json!({"matched": serials.len()}));
}

/// A device as its owner sees it.
#[track_caller]
pub fn device(server: &Server, token: &str, serial: &str) -> Value {
    let reply = server
        .get(&format!("/devices/{serial}/"))
        .token(token)
        .send();
    reply.expect_status(200);
    reply.json()
}

/// A device's tags, as its owner sees them.
#[track_caller]
pub fn tags_of(server: &Server, token: &str, serial: &str) -> Value {
    device(server, token, serial)["tags"].clone()
}

/// `GET /tags/` by `token`, asserting a 200.
#[track_caller]
pub fn tag_counts(server: &Server, token: &str) -> Value {
    let reply = server.get(TAGS).token(token).send();
    reply.expect_status(200);
    reply.json()
}

/// `"<value>" is not a valid choice.`
pub fn not_a_choice(value: &str) -> String {
    format!("\"{value}\" is not a valid choice.")
}
