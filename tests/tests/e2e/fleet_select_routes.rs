//! `POST /devices/select/` as every route (docs/api.md, "Fleet" and
//! "Conventions in short"): Allow and 405, 401 before 405, the slash
//! redirect, form bodies, 413, 415, and OPTIONS' nested object.

use crate::fleet_select_support::*;
use crate::support::*;
use serde_json::json;

e2e!(the_select_route_follows_the_conventions_of_every_route);
fn the_select_route_follows_the_conventions_of_every_route() {
    let server = Server::start();
    let alice = server.account("alice@example.com");
    let serial = add_device(&server, &alice, "Kitchen Pi", &["--online"]);
    // Never taken for a device's serial: GET is 405 with the route's Allow.
    for method in ["GET", "PUT", "PATCH", "DELETE"] {
        server
            .call(method.parse().unwrap(), SELECT)
            .token(&alice.token)
            .send()
            .expect_detail(405, &format!("Method \"{method}\" not allowed."))
            .expect_allow("POST, OPTIONS");
        // Authentication comes before the method.
        server
            .call(method.parse().unwrap(), SELECT)
            .send()
            .expect_401(NOT_PROVIDED);
    }
    server
        .post(SELECT)
        .json(&json!({"selector": {"all": true}}))
        .send()
        .expect_401(NOT_PROVIDED);
    server
        .post(SELECT)
        .token("0123456789abcdef0123456789abcdef01234567")
        .json(&json!({"selector": {"all": true}}))
        .send()
        .expect_401(INVALID_TOKEN);
    server
        .post(SELECT)
        .authorization("Device 0123456789abcdef0123456789abcdef01234567")
        .json(&json!({"selector": {"all": true}}))
        .send()
        .expect_401(NOT_PROVIDED);
    let moved = server.post("/devices/select?x=1").send();
    moved.expect_status(301);
    assert_eq!(
        moved.header("location"),
        Some("/devices/select/?x=1"),
        "{moved}"
    );
    // Forms spell the nested object's keys `selector.<key>`, as DRF reads them.
    let form = server
        .post(SELECT)
        .token(&alice.token)
        .body(
            "application/x-www-form-urlencoded",
            "selector.online=true&selector.search=kitchen&selector.colour=red",
        )
        .send();
    form.expect_status(200);
    assert_eq!(form.json()["count"], 1, "{form}");
    assert_eq!(
        form.json()["devices"][0]["serial"],
        serial.as_str(),
        "{form}"
    );
    server
        .post(SELECT)
        .token(&alice.token)
        .body("application/x-www-form-urlencoded", "selector.all=yes")
        .send()
        .expect_status(200);
    server
        .post(SELECT)
        .token(&alice.token)
        .body("application/x-www-form-urlencoded", "selector=all")
        .send()
        .expect(400, json!({"selector": ["This field is required."]}));
    server
        .post(SELECT)
        .token(&alice.token)
        .body("text/plain", "selector")
        .send()
        .expect_detail(415, "Unsupported media type \"text/plain\" in request.");
    let big = format!(
        "{{\"selector\": {{\"search\": \"{}\"}}}}",
        "x".repeat(70_000)
    );
    server
        .post(SELECT)
        .token(&alice.token)
        .body("application/json", big)
        .send()
        .expect_detail(413, "Request body is too large.");
    server
        .post(SELECT)
        .token(&alice.token)
        .json(&json!([{"selector": {"all": true}}]))
        .send()
        .expect(
            400,
            json!({"non_field_errors": ["Invalid data. Expected a dictionary, but got list."]}),
        );
}

e2e!(options_describes_the_selector_as_a_nested_object);
fn options_describes_the_selector_as_a_nested_object() {
    let server = Server::start();
    let reply = server.options(SELECT).send();
    reply.expect_status(200).expect_allow("POST, OPTIONS");
    let body = reply.json();
    assert_eq!(
        body["parses"],
        json!([
            "application/json",
            "application/x-www-form-urlencoded",
            "multipart/form-data"
        ])
    );
    let fields = &body["actions"]["POST"];
    assert_eq!(keys(fields), ["selector"], "{reply}");
    let selector = &fields["selector"];
    assert_eq!(selector["type"], "nested object", "{reply}");
    assert_eq!(selector["required"], true);
    assert_eq!(selector["read_only"], false);
    let children = &selector["children"];
    assert_eq!(
        keys(children),
        [
            "all",
            "any_tags",
            "machine_type",
            "online",
            "search",
            "serials",
            "tags"
        ],
        "{reply}"
    );
    for (key, kind) in [
        ("serials", "list"),
        ("tags", "list"),
        ("any_tags", "list"),
        ("online", "boolean"),
        ("machine_type", "choice"),
        ("search", "string"),
        ("all", "boolean"),
    ] {
        assert_eq!(children[key]["type"], kind, "{key}");
        assert_eq!(children[key]["required"], false, "{key}");
        assert_eq!(children[key]["read_only"], false, "{key}");
    }
    // An invalid token is refused even here.
    server
        .options(SELECT)
        .token("0123456789abcdef0123456789abcdef01234567")
        .send()
        .expect_401(INVALID_TOKEN);
}
