//! `GET /audit/` (docs/api.md, "Audit log"): an account's entries and no
//! other account's, a deleted device's too, newest first, each hashed as
//! the documented rule says (recomputed here) and linked to the entry
//! before it; DRF's pages and their bounds; the `action` and `target`
//! filters (an empty value is no filter); the conventions of every route.

use crate::alerts_support::{
    PUBLIC_TARGET, assert_route_conventions, device_monitor_body, new_monitor, new_webhook,
};
use crate::audit_log_support::*;
use crate::audit_support::{GENESIS, export, hash_of};
use crate::device_support::{DeviceAuth, install};
use crate::support::*;
use serde_json::{Value, json};

/// Asserts that `newest_first` is one unbroken stretch of the chain ending
/// at entry 1: ids N … 1, each `previous_hash` the hash of the entry after
/// it in the list, 64 zeros for entry 1.
#[track_caller]
fn assert_whole_chain(newest_first: &[Value]) {
    let ids = entry_ids(newest_first);
    let expected: Vec<u64> = (1..=ids.len() as u64).rev().collect();
    assert_eq!(ids, expected, "ids N … 1, newest first");
    for pair in newest_first.windows(2) {
        assert_eq!(pair[0]["previous_hash"], pair[1]["hash"], "{pair:#?}");
    }
    assert_eq!(newest_first.last().unwrap()["previous_hash"], GENESIS);
}

/// PATCHes a device of `token`'s account, asserting the 200.
#[track_caller]
fn rename(server: &Server, token: &str, serial: &str, name: &str) {
    server
        .patch(&format!("/devices/{serial}/"))
        .token(token)
        .json(&json!({ "name": name }))
        .send()
        .expect_status(200);
}

e2e!(an_account_sees_its_own_entries_and_its_deleted_devices);
fn an_account_sees_its_own_entries_and_its_deleted_devices() {
    let server = Server::start();
    let alice = server.account("alice@example.com");
    let bob = server.account("bob@example.com");
    let kitchen = install(&server, &alice, "Kitchen");
    let garage = install(&server, &bob, "Garage");
    rename(&server, &alice.token, &kitchen.serial, "Kitchen shelf");
    rename(&server, &bob.token, &garage.serial, "Garage door");
    server
        .post(&format!("/devices/{}/reboot/", kitchen.serial))
        .token(&alice.token)
        .send()
        .expect_status(202);
    let monitor = new_monitor(&server, &alice.token, &device_monitor_body("Any offline"));
    let webhook = new_webhook(&server, &bob.token, &json!({"target_url": PUBLIC_TARGET}));
    server
        .delete(&format!("/devices/{}/", kitchen.serial))
        .token(&alice.token)
        .send()
        .expect_empty(204);

    let alices = account_log(&server, &alice.token);
    let kitchen_target = format!("device:{}", kitchen.serial);
    let shown: Vec<(String, String)> = alices
        .iter()
        .map(|entry| (string(entry, "action"), string(entry, "target")))
        .collect();
    let monitor_target = format!("monitor:{}", string(&monitor, "id"));
    assert_eq!(
        shown,
        [
            ("device.delete", kitchen_target.as_str()),
            ("monitor.create", monitor_target.as_str()),
            ("device.reboot", kitchen_target.as_str()),
            ("device.update", kitchen_target.as_str()),
            ("device.install", kitchen_target.as_str()),
            ("account.create", "account:alice@example.com"),
        ]
        .map(|(action, target)| (action.to_owned(), target.to_owned()))
    );
    let bobs = account_log(&server, &bob.token);
    let shown: Vec<String> = bobs.iter().map(|entry| string(entry, "action")).collect();
    assert_eq!(
        shown,
        [
            "webhook.create",
            "device.update",
            "device.install",
            "account.create"
        ]
    );
    assert_eq!(
        bobs[0]["target"],
        format!("webhook:{}", string(&webhook, "id"))
    );

    // Newest first, and every entry of the two logs, no other, is the
    // server's log as exported, entry for entry.
    let mut both: Vec<Value> = alices.iter().chain(&bobs).cloned().collect();
    both.sort_by_key(|entry| entry["id"].as_u64());
    for log in [&alices, &bobs] {
        let ids = entry_ids(log);
        assert!(ids.windows(2).all(|pair| pair[0] > pair[1]), "{ids:?}");
    }
    let exported = export(&server.db, 0);
    assert_eq!(both, exported);
    // The chain runs through both accounts' entries.
    let newest_first: Vec<Value> = exported.into_iter().rev().collect();
    assert_whole_chain(&newest_first);
}

e2e!(the_log_comes_a_page_at_a_time_newest_first);
fn the_log_comes_a_page_at_a_time_newest_first() {
    let server = Server::start();
    let alice = server.account("alice@example.com");
    for _ in 0..4 {
        server.login_token(&alice.email, PASSWORD);
    }
    let base = server.expected_base();
    let all = audit_query(&server, &alice.token, "");
    let entries = results(&all);
    assert_eq!(all["count"], 5);
    assert_eq!(
        (&all["next"], &all["previous"]),
        (&Value::Null, &Value::Null)
    );
    // Alone on the server, the account's log is the whole chain.
    assert_whole_chain(&entries);
    for entry in &entries {
        assert_eq!(hash_of(entry), string(entry, "hash"));
    }

    let first = audit_query(&server, &alice.token, "limit=2");
    assert_eq!(results(&first), entries[..2]);
    assert_eq!(first["count"], 5);
    assert_eq!(first["next"], format!("{base}/audit/?limit=2&offset=2"));
    assert_eq!(first["previous"], Value::Null);
    let second = audit_query(&server, &alice.token, "limit=2&offset=2");
    assert_eq!(results(&second), entries[2..4]);
    assert_eq!(second["next"], format!("{base}/audit/?limit=2&offset=4"));
    assert_eq!(second["previous"], format!("{base}/audit/?limit=2"));
    let last = audit_query(&server, &alice.token, "limit=2&offset=4");
    assert_eq!(results(&last), entries[4..]);
    assert_eq!(last["next"], Value::Null);
    assert_eq!(last["previous"], format!("{base}/audit/?limit=2&offset=2"));
    let past = audit_query(&server, &alice.token, "offset=50");
    assert_eq!(past["results"], json!([]));
    assert_eq!(past["count"], 5);
    let widest = audit_query(&server, &alice.token, "limit=1000&offset=0");
    assert_eq!(results(&widest), entries);

    for (query, field, message) in [
        (
            "limit=0",
            "limit",
            "Ensure this value is greater than or equal to 1.",
        ),
        (
            "limit=1001",
            "limit",
            "Ensure this value is less than or equal to 1000.",
        ),
        ("limit=ten", "limit", "A valid integer is required."),
        (
            "offset=-1",
            "offset",
            "Ensure this value is greater than or equal to 0.",
        ),
        ("offset=x", "offset", "A valid integer is required."),
    ] {
        server
            .get(&format!("/audit/?{query}"))
            .token(&alice.token)
            .send()
            .expect(400, json!({ field: [message] }));
    }
    server
        .get("/audit/?limit=0&offset=-1")
        .token(&alice.token)
        .send()
        .expect(
            400,
            json!({
                "limit": ["Ensure this value is greater than or equal to 1."],
                "offset": ["Ensure this value is greater than or equal to 0."],
            }),
        );
}

e2e!(action_and_target_keep_the_entries_equal_to_them);
fn action_and_target_keep_the_entries_equal_to_them() {
    let server = Server::start();
    let alice = server.account("alice@example.com");
    let kitchen = install(&server, &alice, "Kitchen");
    let garage = install(&server, &alice, "Garage");
    rename(&server, &alice.token, &kitchen.serial, "Kitchen shelf");
    rename(&server, &alice.token, &garage.serial, "Garage door");
    rename(&server, &alice.token, &kitchen.serial, "Kitchen wall");
    let everything = account_log(&server, &alice.token);
    assert_eq!(everything.len(), 6);
    let base = server.expected_base();
    let kitchen_target = format!("device:{}", kitchen.serial);
    let only = |query: &str, keep: &dyn Fn(&Value) -> bool| {
        let page = audit_query(&server, &alice.token, &format!("limit=1000&{query}"));
        let kept: Vec<Value> = everything.iter().filter(|e| keep(e)).cloned().collect();
        assert_eq!(page["count"], kept.len(), "{query}");
        assert_eq!(results(&page), kept, "{query}");
        kept.len()
    };
    assert_eq!(
        only("action=device.update", &|e| e["action"] == "device.update"),
        3
    );
    assert_eq!(
        only(&format!("target={kitchen_target}"), &|e| e["target"]
            == kitchen_target),
        3
    );
    let both = format!(
        "action=device.update&target={}",
        kitchen_target.replace(':', "%3A")
    );
    let kept = only(&both, &|e| {
        e["action"] == "device.update" && e["target"] == kitchen_target
    });
    assert_eq!(kept, 2);
    assert_eq!(
        only("target=account:alice@example.com", &|e| e["action"]
            == "account.create"),
        1
    );
    // An empty value is no filter; a value no entry holds matches nothing.
    assert_eq!(only("action=&target=", &|_| true), 6);
    for query in [
        "action=device.explode",
        "action=DEVICE.UPDATE",
        "action=%20device.update",
        "target=device:",
        "target=account:bob@example.com",
        "target=%00",
        "action=device.update%00",
        "action=42",
    ] {
        assert_eq!(only(query, &|_| false), 0, "{query}");
    }
    // The links of a filtered page keep the filter.
    let page = audit_query(&server, &alice.token, "action=device.update&limit=1");
    assert_eq!(
        page["next"],
        format!("{base}/audit/?action=device.update&limit=1&offset=1")
    );
    let page = audit_query(
        &server,
        &alice.token,
        "action=device.update&limit=1&offset=2",
    );
    assert_eq!(page["next"], Value::Null);
    assert_eq!(
        page["previous"],
        format!("{base}/audit/?action=device.update&limit=1&offset=1")
    );
}

e2e!(the_audit_route_follows_the_conventions_of_every_route);
fn the_audit_route_follows_the_conventions_of_every_route() {
    let server = Server::start();
    let alice = server.account("alice@example.com");
    let agent = install(&server, &alice, "Kitchen");
    let routes = [(AUDIT.to_owned(), "GET, HEAD, OPTIONS")];
    assert_route_conventions(&server, &alice.token, &agent.token, &routes);
    let reply = server.options(AUDIT).send();
    assert_eq!(reply.json()["name"], "Audit Entry List", "{reply}");
    assert_eq!(reply.json()["actions"], json!({}), "{reply}");
    // HEAD: the headers of the GET, no body.
    let get = server.get(AUDIT).token(&alice.token).send();
    let head = server.head(AUDIT).token(&alice.token).send();
    head.expect_status(200);
    assert!(head.body.is_empty(), "{head}");
    assert_eq!(head.header("content-type"), get.header("content-type"));
    server.head(AUDIT).send().expect_status(401);
    server
        .head(AUDIT)
        .device(&agent.token)
        .send()
        .expect_status(401);
    // Reading the log writes nothing to it.
    let before = mark(&server);
    audit_query(&server, &alice.token, "");
    nothing_written(&server, before, "GET /audit/");
}
