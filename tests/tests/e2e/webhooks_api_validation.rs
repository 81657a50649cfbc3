//! `POST /webhooks/` refuses bad bodies (docs/api.md, "Webhooks"): each
//! field's DRF message, every failing field at once, then targets whose
//! address is loopback, private, link-local and the like (IPv4-mapped forms
//! and `localhost` included) or whose name does not resolve, unless the
//! server allows private webhooks; nothing created on a 400.

use crate::alerts_support::*;
use crate::device_support::assert_json_body_rules;
use crate::support::*;
use serde_json::{Value, json};

const FORBIDDEN: &str = "Webhooks may not target loopback, private or link-local addresses.";
const UNRESOLVED: &str = "The host name does not resolve.";
const INVALID_URL: &str = "Enter a valid URL.";

/// `POST /webhooks/ body` by `token`, asserting the 400 `errors`.
#[track_caller]
fn refused(server: &Server, token: &str, body: Value, errors: Value) {
    server
        .post(WEBHOOKS)
        .token(token)
        .json(&body)
        .send()
        .expect(400, errors);
}

e2e!(every_failing_field_is_reported_at_once_and_nothing_is_created);
fn every_failing_field_is_reported_at_once_and_nothing_is_created() {
    let server = Server::start();
    let alice = server.account("alice@example.com");
    let token = &alice.token;
    refused(
        &server,
        token,
        json!({}),
        json!({"target_url": ["This field is required."]}),
    );
    refused(
        &server,
        token,
        json!({"target_url": "ftp://203.0.113.10/", "events": ["ping", "alert.opened", "Job.halted"],
            "secret": "fifteen chars!!"}),
        json!({
            "target_url": [INVALID_URL],
            "events": {
                "0": ["\"ping\" is not a valid choice."],
                "2": ["\"Job.halted\" is not a valid choice."],
            },
            "secret": ["Ensure this field has at least 16 characters."],
        }),
    );
    refused(
        &server,
        token,
        json!({"target_url": "", "events": [], "secret": "s".repeat(201)}),
        json!({
            "target_url": ["This field may not be blank."],
            "events": ["This list may not be empty."],
            "secret": ["Ensure this field has no more than 200 characters."],
        }),
    );
    refused(
        &server,
        token,
        json!({"target_url": null, "events": "alert.opened", "secret": ""}),
        json!({
            "target_url": ["This field may not be null."],
            "events": ["Expected a list of items but got type \"str\"."],
            "secret": ["This field may not be blank."],
        }),
    );
    for (events, kind) in [
        (json!(1), "int"),
        (json!({"a": 1}), "dict"),
        (json!(true), "bool"),
    ] {
        refused(
            &server,
            token,
            json!({"target_url": PUBLIC_TARGET, "events": events}),
            json!({"events": [format!("Expected a list of items but got type \"{kind}\".")]}),
        );
    }
    let too_long = format!("https://203.0.113.10/{}", "a".repeat(1980));
    for target in [
        "203.0.113.10/hook",
        "https://",
        "https://exa mple.com/",
        "https://example/",
        "mailto:ops@example.com",
        too_long.as_str(),
    ] {
        refused(
            &server,
            token,
            json!({ "target_url": target }),
            json!({"target_url": [INVALID_URL]}),
        );
    }
    // A bad field keeps the address from being judged at all.
    refused(
        &server,
        token,
        json!({"target_url": "http://127.0.0.1/", "secret": "short"}),
        json!({"secret": ["Ensure this field has at least 16 characters."]}),
    );
    assert_json_body_rules(|| server.post(WEBHOOKS).token(token));
    assert_eq!(page(&server, token, WEBHOOKS)["count"], 0);
    // The bounds themselves are taken.
    let longest = format!("https://203.0.113.10/{}", "a".repeat(1979));
    assert_eq!(longest.chars().count(), 2000);
    new_webhook(
        &server,
        token,
        &json!({"target_url": longest, "secret": "s".repeat(16)}),
    );
    new_webhook(
        &server,
        token,
        &json!({"target_url": PUBLIC_TARGET, "secret": "s".repeat(200)}),
    );
}

e2e!(private_addresses_and_names_that_do_not_resolve_are_refused);
fn private_addresses_and_names_that_do_not_resolve_are_refused() {
    let server = Server::start();
    let alice = server.account("alice@example.com");
    for target in [
        "http://127.0.0.1/",
        "http://127.255.0.9:8080/hook",
        "http://[::1]/",
        "http://10.1.2.3/",
        "http://172.16.0.1/",
        "http://172.31.255.254/",
        "http://192.168.1.1/",
        "http://[fc00::1]/",
        "http://[fd12:3456::1]/",
        "http://169.254.169.254/latest/meta-data/",
        "http://[fe80::1]/",
        "http://0.0.0.0/",
        "http://[::]/",
        "http://100.64.0.1/",
        "http://100.127.255.255/",
        "http://224.0.0.1/",
        "http://[ff02::1]/",
        "http://255.255.255.255/",
        "http://[::ffff:127.0.0.1]/",
        "http://[::ffff:10.0.0.1]/",
        "http://[::ffff:169.254.169.254]/",
        "http://localhost:8000/",
    ] {
        refused(
            &server,
            &alice.token,
            json!({ "target_url": target }),
            json!({"target_url": [FORBIDDEN]}),
        );
    }
    // `.invalid` never resolves (RFC 2606).
    refused(
        &server,
        &alice.token,
        json!({"target_url": "https://hooks.devmgr.invalid/"}),
        json!({"target_url": [UNRESOLVED]}),
    );
    assert_eq!(page(&server, &alice.token, WEBHOOKS)["count"], 0);
    // Next to the forbidden ranges, public addresses are allowed.
    for target in [
        "http://172.32.0.1/",
        "http://100.128.0.1/",
        "http://11.0.0.1/",
        "http://[2001:db8::1]/",
        "http://[::ffff:203.0.113.10]/",
    ] {
        new_webhook(&server, &alice.token, &json!({ "target_url": target }));
    }
}

e2e!(a_server_that_allows_private_webhooks_takes_them);
fn a_server_that_allows_private_webhooks_takes_them() {
    let server = Server::builder()
        .args(&["--allow-private-webhooks"])
        .start();
    let alice = server.account("alice@example.com");
    for target in [
        "http://127.0.0.1:9/hook",
        "http://[::1]/",
        "http://192.168.1.1/",
        "http://localhost/",
    ] {
        let created = new_webhook(&server, &alice.token, &json!({ "target_url": target }));
        assert_eq!(created["target_url"], target);
    }
}
