//! Helpers of the monitors, alerts and webhooks API tests (docs/api.md,
//! "Monitors and alerts" and "Webhooks"): creating and reading them with
//! their shapes asserted, pages, and the conventions every route of theirs
//! follows (Allow, 405, 401 before 405, the slash redirect, 404 for any id
//! not the account's).

use crate::device_support::DeviceAuth;
use crate::support::*;
use serde_json::{Value, json};

/// `GET`/`POST /monitors/`.
pub const MONITORS: &str = "/monitors/";
/// `GET`/`POST /webhooks/`.
pub const WEBHOOKS: &str = "/webhooks/";
/// The keys of a monitor, sorted.
pub const MONITOR_KEYS: [&str; 9] = [
    "after_seconds",
    "created_time",
    "id",
    "kind",
    "name",
    "ratio",
    "selector",
    "snoozed_until",
    "url",
];
/// The keys of a webhook, sorted.
pub const WEBHOOK_KEYS: [&str; 5] = ["created_time", "events", "id", "target_url", "url"];
/// Every event, in the order a webhook shows them.
pub const EVENTS: [&str; 4] = [
    "alert.opened",
    "alert.resolved",
    "job.completed",
    "job.halted",
];
/// A public address (TEST-NET-3): allowed, and never resolved.
pub const PUBLIC_TARGET: &str = "https://203.0.113.10/hook";
/// The online window of a server started without `--online-window`.
pub const DEFAULT_WINDOW: u64 = 90;
/// Ids of nothing: well formed, in capitals, malformed.
pub const UNKNOWN_ID: &str = "0b5c3f9e-1d2a-4c6b-8e7f-9a0b1c2d3e4f";

/// A `device_offline` monitor's body over every device, waiting the
/// default online window.
pub fn device_monitor_body(name: &str) -> Value {
    json!({"name": name, "kind": "device_offline", "selector": {"all": true},
        "after_seconds": DEFAULT_WINDOW})
}

/// Asserts a monitor's shape: its keys, id, url and times.
#[track_caller]
pub fn assert_monitor_shape(server: &Server, monitor: &Value) {
    assert_eq!(keys(monitor), MONITOR_KEYS, "{monitor:#}");
    let id = string(monitor, "id");
    assert!(is_lowercase_uuid(&id), "{monitor:#}");
    let url = format!("{}/monitors/{id}/", server.expected_base());
    assert_eq!(monitor["url"], url, "{monitor:#}");
    assert!(
        is_timestamp(&string(monitor, "created_time")),
        "{monitor:#}"
    );
    assert!(monitor["after_seconds"].is_u64(), "{monitor:#}");
}

/// `POST /monitors/ body` by `token`, asserting a 201 monitor whose
/// `Location` is its url; the monitor.
#[track_caller]
pub fn new_monitor(server: &Server, token: &str, body: &Value) -> Value {
    let reply = server.post(MONITORS).token(token).json(body).send();
    reply.expect_status(201);
    let monitor = reply.json();
    assert_monitor_shape(server, &monitor);
    assert_eq!(reply.header("location"), monitor["url"].as_str(), "{reply}");
    monitor
}

/// Asserts a webhook's shape (the secret left out): its keys, id, url,
/// events and time.
#[track_caller]
pub fn assert_webhook_shape(server: &Server, webhook: &Value) {
    assert_eq!(keys(webhook), WEBHOOK_KEYS, "{webhook:#}");
    let id = string(webhook, "id");
    assert!(is_lowercase_uuid(&id), "{webhook:#}");
    let url = format!("{}/webhooks/{id}/", server.expected_base());
    assert_eq!(webhook["url"], url, "{webhook:#}");
    assert!(
        is_timestamp(&string(webhook, "created_time")),
        "{webhook:#}"
    );
}

/// `POST /webhooks/ body` by `token`, asserting a 201 with `Location`, no
/// cache and the secret; the webhook as created (secret included).
#[track_caller]
pub fn new_webhook(server: &Server, token: &str, body: &Value) -> Value {
    let reply = server.post(WEBHOOKS).token(token).json(body).send();
    reply.expect_status(201);
    assert_eq!(reply.header("cache-control"), Some("no-store"), "{reply}");
    let created = reply.json();
    let mut shown = created.clone();
    let secret = shown
        .as_object_mut()
        .and_then(|object| object.remove("secret"));
    assert!(secret.as_ref().is_some_and(Value::is_string), "{reply}");
    assert_webhook_shape(server, &shown);
    assert_eq!(reply.header("location"), created["url"].as_str(), "{reply}");
    created
}

/// `GET path` by `token`, asserting a 200 page; the page.
#[track_caller]
pub fn page(server: &Server, token: &str, path: &str) -> Value {
    let reply = server.get(path).token(token).send();
    reply.expect_status(200);
    let page = reply.json();
    assert_eq!(
        keys(&page),
        ["count", "next", "previous", "results"],
        "{reply}"
    );
    page
}

/// The ids of a page's results, in order.
pub fn ids(page: &Value) -> Vec<String> {
    page["results"]
        .as_array()
        .expect("results")
        .iter()
        .map(|item| string(item, "id"))
        .collect()
}

/// Asserts that `path` (a list without a query) pages `newest_first`, three
/// or more, as DRF's `LimitOffsetPagination` does, and refuses bad bounds.
#[track_caller]
pub fn assert_paged(server: &Server, token: &str, path: &str, newest_first: &[String]) {
    let base = server.expected_base();
    let all = page(server, token, path);
    assert_eq!(all["count"], newest_first.len());
    assert_eq!(ids(&all), newest_first);
    assert_eq!(
        (&all["next"], &all["previous"]),
        (&Value::Null, &Value::Null)
    );
    let first = page(server, token, &format!("{path}?limit=2"));
    assert_eq!(ids(&first), newest_first[..2]);
    assert_eq!(first["next"], format!("{base}{path}?limit=2&offset=2"));
    assert_eq!(first["previous"], Value::Null);
    let second = page(server, token, &format!("{path}?limit=2&offset=2"));
    assert_eq!(ids(&second), newest_first[2..newest_first.len().min(4)]);
    assert_eq!(second["previous"], format!("{base}{path}?limit=2"));
    let past = page(server, token, &format!("{path}?offset=50"));
    assert_eq!(past["results"], json!([]));
    assert_eq!(past["count"], newest_first.len());
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
    ] {
        server
            .get(&format!("{path}?{query}"))
            .token(token)
            .send()
            .expect(400, json!({ field: [message] }));
    }
}

/// Asserts the conventions of every route on each `(path, allow)`: OPTIONS
/// without credentials, `Allow`, 405 for the other methods (401 first
/// without credentials), the slash redirect, 401 for a missing or invalid
/// token and for a device's token.
#[track_caller]
pub fn assert_route_conventions(
    server: &Server,
    token: &str,
    device_token: &str,
    routes: &[(String, &str)],
) {
    for (path, allow) in routes {
        server
            .options(path)
            .send()
            .expect_status(200)
            .expect_allow(allow);
        for method in ["GET", "POST", "PUT", "PATCH", "DELETE"] {
            if allow.contains(method) {
                continue;
            }
            server
                .call(method.parse().unwrap(), path)
                .token(token)
                .send()
                .expect_detail(405, &format!("Method \"{method}\" not allowed."))
                .expect_allow(allow);
            server
                .call(method.parse().unwrap(), path)
                .send()
                .expect_401(NOT_PROVIDED);
        }
        let without_slash = path.trim_end_matches('/');
        let moved = server.get(&format!("{without_slash}?limit=1")).send();
        moved.expect_status(301);
        assert_eq!(
            moved.header("location"),
            Some(format!("{path}?limit=1").as_str())
        );
        let first = if allow.starts_with("GET") {
            "GET"
        } else {
            "POST"
        };
        let call = || server.call(first.parse().unwrap(), path);
        call().send().expect_401(NOT_PROVIDED);
        call()
            .token("0123456789abcdef0123456789abcdef01234567")
            .send()
            .expect_401(INVALID_TOKEN);
        call().device(device_token).send().expect_401(NOT_PROVIDED);
    }
}

/// Asserts that every `(method, path)` answers 404 `{"detail": "Not found."}`
/// to `token`.
#[track_caller]
pub fn assert_not_found(server: &Server, token: &str, calls: &[(&str, String)]) {
    for (method, path) in calls {
        server
            .call(method.parse().unwrap(), path)
            .token(token)
            .send()
            .expect(404, json!({"detail": "Not found."}));
    }
}

/// The paths that name no resource of `id`'s kind under `prefix`
/// (`/monitors/`): unknown, in capitals, malformed.
pub fn missing_ids(prefix: &str, id: &str) -> Vec<String> {
    [
        UNKNOWN_ID.to_owned(),
        id.to_uppercase(),
        id.replace('-', ""),
        "x".to_owned(),
    ]
    .into_iter()
    .map(|missing| format!("{prefix}{missing}/"))
    .collect()
}
