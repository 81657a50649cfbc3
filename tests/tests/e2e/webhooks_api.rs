//! Webhooks through the API (docs/api.md, "Webhooks"): created with 201,
//! `Location` and the secret shown once (never cached), listed newest first
//! a page at a time and read without it, pinged (202, a pending delivery
//! in its log), deleted with their deliveries; 404 for any id not the
//! account's; the conventions of every route and OPTIONS' fields.

use crate::alerts_support::*;
use crate::device_support::install;
use crate::support::*;
use serde_json::{Value, json};

/// The keys of a delivery, sorted.
const DELIVERY_KEYS: [&str; 9] = [
    "attempts",
    "created_time",
    "error",
    "event",
    "id",
    "last_attempt_time",
    "next_attempt_time",
    "response_code",
    "status",
];

/// A webhook as its GET shows it: as created, without the secret.
fn without_secret(created: &Value) -> Value {
    let mut shown = created.clone();
    shown.as_object_mut().unwrap().remove("secret");
    shown
}

fn path_of(webhook: &Value) -> String {
    format!("/webhooks/{}/", string(webhook, "id"))
}

e2e!(a_webhook_is_created_with_its_secret_shown_once);
fn a_webhook_is_created_with_its_secret_shown_once() {
    let server = Server::start();
    let alice = server.account("alice@example.com");
    let token = &alice.token;
    let plain = new_webhook(&server, token, &json!({"target_url": PUBLIC_TARGET}));
    assert_eq!(plain["target_url"], PUBLIC_TARGET);
    assert_eq!(plain["events"], json!(EVENTS));
    let secret = string(&plain, "secret");
    assert_eq!(secret.len(), 40, "{plain}");
    assert!(
        secret
            .chars()
            .all(|c| c.is_ascii_digit() || ('a'..='f').contains(&c))
    );
    let chosen = new_webhook(
        &server,
        token,
        &json!({"target_url": "http://[2001:db8::10]:8080/x?y=1",
            "events": ["job.halted", "alert.opened", "job.halted"],
            "secret": "  sixteen chars  ", "unknown": true}),
    );
    assert_eq!(chosen["events"], json!(["alert.opened", "job.halted"]));
    assert_eq!(chosen["secret"], "  sixteen chars  ");
    assert_eq!(chosen["target_url"], "http://[2001:db8::10]:8080/x?y=1");
    assert_ne!(
        string(
            &new_webhook(&server, token, &json!({"target_url": PUBLIC_TARGET})),
            "secret"
        ),
        secret
    );
    // Never again: not in its GET, not in the list.
    for created in [&plain, &chosen] {
        let read = server.get(&path_of(created)).token(token).send();
        read.expect(200, without_secret(created));
        assert!(read.header("cache-control").is_none(), "{read}");
    }
    let list = page(&server, token, WEBHOOKS);
    for webhook in list["results"].as_array().unwrap() {
        assert_webhook_shape(&server, webhook);
    }
    assert!(!list.to_string().contains(&secret));
    // As a form: a list is its key repeated.
    let reply = server
        .post(WEBHOOKS)
        .token(token)
        .body(
            "application/x-www-form-urlencoded",
            "target_url=https%3A%2F%2F198.51.100.7%2Fh&events=job.completed&events=alert.resolved",
        )
        .send();
    reply.expect_status(201);
    assert_eq!(
        reply.json()["events"],
        json!(["alert.resolved", "job.completed"])
    );
}

e2e!(webhooks_come_newest_first_a_page_at_a_time);
fn webhooks_come_newest_first_a_page_at_a_time() {
    let server = Server::start();
    let alice = server.account("alice@example.com");
    assert_eq!(
        page(&server, &alice.token, WEBHOOKS),
        json!({"count": 0, "next": null, "previous": null, "results": []})
    );
    let made: Vec<String> = (0..3)
        .map(|i| {
            let body = json!({"target_url": format!("{PUBLIC_TARGET}/{i}")});
            string(&new_webhook(&server, &alice.token, &body), "id")
        })
        .collect();
    let newest_first: Vec<String> = made.into_iter().rev().collect();
    assert_paged(&server, &alice.token, WEBHOOKS, &newest_first);
}

e2e!(a_ping_is_a_delivery_in_the_webhooks_log);
fn a_ping_is_a_delivery_in_the_webhooks_log() {
    let server = Server::start();
    let alice = server.account("alice@example.com");
    let token = &alice.token;
    // Subscribed to one job event: a ping goes whatever its events.
    let webhook = new_webhook(
        &server,
        token,
        &json!({"target_url": PUBLIC_TARGET, "events": ["job.halted"]}),
    );
    let deliveries = format!("{}deliveries/", path_of(&webhook));
    assert_eq!(page(&server, token, &deliveries)["count"], 0);
    let pings: Vec<String> = (0..3)
        .map(|_| {
            let reply = server
                .post(&format!("{}ping/", path_of(&webhook)))
                .token(token)
                .send();
            reply.expect_status(202);
            assert_eq!(keys(&reply.json()), ["delivery"], "{reply}");
            string(&reply.json(), "delivery")
        })
        .collect();
    let log = page(&server, token, &deliveries);
    let newest_first: Vec<String> = pings.iter().rev().cloned().collect();
    assert_eq!(ids(&log), newest_first);
    for delivery in log["results"].as_array().unwrap() {
        assert_eq!(keys(delivery), DELIVERY_KEYS, "{delivery:#}");
        assert!(is_lowercase_uuid(&string(delivery, "id")));
        assert_eq!(delivery["event"], "ping", "{delivery:#}");
        // Nothing answers at a documentation address: tried again, later.
        assert_eq!(delivery["status"], "pending", "{delivery:#}");
        assert!(is_timestamp(&string(delivery, "created_time")));
        assert!(is_timestamp(&string(delivery, "next_attempt_time")));
        assert!(delivery["attempts"].is_u64(), "{delivery:#}");
    }
    assert_paged(&server, token, &deliveries, &newest_first);
    // Pinged with a body, as every write route reads one: ignored.
    let form = server
        .post(&format!("{}ping/", path_of(&webhook)))
        .token(token)
        .body("application/x-www-form-urlencoded", "event=alert.opened")
        .send();
    form.expect_status(202);
}

e2e!(a_deleted_webhook_is_gone_with_its_deliveries);
fn a_deleted_webhook_is_gone_with_its_deliveries() {
    let server = Server::start();
    let alice = server.account("alice@example.com");
    let token = &alice.token;
    let kept = new_webhook(&server, token, &json!({"target_url": PUBLIC_TARGET}));
    let gone = new_webhook(&server, token, &json!({"target_url": PUBLIC_TARGET}));
    for webhook in [&kept, &gone] {
        server
            .post(&format!("{}ping/", path_of(webhook)))
            .token(token)
            .send()
            .expect_status(202);
    }
    server
        .delete(&path_of(&gone))
        .token(token)
        .send()
        .expect_empty(204);
    let path = path_of(&gone);
    assert_not_found(
        &server,
        token,
        &[
            ("GET", path.clone()),
            ("DELETE", path.clone()),
            ("POST", format!("{path}ping/")),
            ("GET", format!("{path}deliveries/")),
        ],
    );
    assert_eq!(ids(&page(&server, token, WEBHOOKS)), [string(&kept, "id")]);
    let kept_log = page(&server, token, &format!("{}deliveries/", path_of(&kept)));
    assert_eq!(kept_log["count"], 1);
}

e2e!(ids_not_the_accounts_are_404_and_nothing_changes);
fn ids_not_the_accounts_are_404_and_nothing_changes() {
    let server = Server::start();
    let alice = server.account("alice@example.com");
    let bob = server.account("bob@example.com");
    let alices = new_webhook(&server, &alice.token, &json!({"target_url": PUBLIC_TARGET}));
    let mut calls = Vec::new();
    for path in missing_ids(WEBHOOKS, &string(&alices, "id")) {
        calls.push(("GET", path.clone()));
        calls.push(("DELETE", path.clone()));
        calls.push(("POST", format!("{path}ping/")));
        calls.push(("GET", format!("{path}deliveries/")));
    }
    assert_not_found(&server, &alice.token, &calls);
    let path = path_of(&alices);
    assert_not_found(
        &server,
        &bob.token,
        &[
            ("GET", path.clone()),
            ("DELETE", path.clone()),
            ("POST", format!("{path}ping/")),
            ("GET", format!("{path}deliveries/")),
        ],
    );
    assert_eq!(page(&server, &bob.token, WEBHOOKS)["count"], 0);
    let read = server.get(&path).token(&alice.token).send();
    read.expect(200, without_secret(&alices));
    assert_eq!(
        page(&server, &alice.token, &format!("{path}deliveries/"))["count"],
        0
    );
}

e2e!(the_webhooks_routes_follow_the_conventions_of_every_route);
fn the_webhooks_routes_follow_the_conventions_of_every_route() {
    let server = Server::start();
    let alice = server.account("alice@example.com");
    let agent = install(&server, &alice, "Kitchen");
    let webhook = new_webhook(&server, &alice.token, &json!({"target_url": PUBLIC_TARGET}));
    let path = path_of(&webhook);
    let routes = [
        (WEBHOOKS.to_owned(), "GET, POST, HEAD, OPTIONS"),
        (path.clone(), "GET, DELETE, HEAD, OPTIONS"),
        (format!("{path}ping/"), "POST, OPTIONS"),
        (format!("{path}deliveries/"), "GET, HEAD, OPTIONS"),
    ];
    assert_route_conventions(&server, &alice.token, &agent.token, &routes);
}

e2e!(options_describes_the_body_of_a_webhook);
fn options_describes_the_body_of_a_webhook() {
    let server = Server::start();
    let reply = server.options(WEBHOOKS).send();
    reply.expect_status(200);
    let body = reply.json();
    assert_eq!(body["name"], "Webhook List");
    let fields = &body["actions"]["POST"];
    assert_eq!(keys(fields), ["events", "secret", "target_url"], "{reply}");
    assert_eq!(
        fields["target_url"],
        json!({"type": "url", "required": true, "read_only": false, "label": "Target url"})
    );
    let choices: Vec<Value> = EVENTS
        .iter()
        .map(|code| json!({"value": code, "display_name": code}))
        .collect();
    assert_eq!(
        fields["events"],
        json!({"type": "list", "required": false, "read_only": false, "label": "Events",
            "child": {"type": "choice", "required": true, "read_only": false,
                "choices": choices}})
    );
    assert_eq!(
        fields["secret"],
        json!({"type": "string", "required": false, "read_only": false, "label": "Secret",
            "min_length": 16, "max_length": 200})
    );
    let ping = server.options("/webhooks/x/ping/").send().json();
    assert_eq!(ping["name"], "Webhook Ping");
    assert_eq!(ping["actions"], json!({"POST": {}}));
    for (path, name) in [
        ("/webhooks/x/", "Webhook Detail"),
        ("/webhooks/x/deliveries/", "Webhook Deliveries"),
    ] {
        let reply = server.options(path).send().json();
        assert_eq!(
            (&reply["name"], &reply["actions"]),
            (&json!(name), &json!({}))
        );
    }
}
