//! Each audited change to a device writes one entry, and nothing else does
//! (docs/api.md, "Audit log"): added at the command line, installed by its
//! agent, edited (only the fields whose value changed; an edit that changes
//! nothing, or is refused, writes none), tagged in bulk (one entry per
//! device whose tags changed, in serial order), rebooted (naming the
//! command the 202 answered) and deleted.

use crate::audit_log_support::*;
use crate::device_support::install;
use crate::support::*;
use serde_json::{Value, json};

const ALICE: &str = "alice@example.com";

/// What an entry of `action` about the device `serial` records, made by
/// Alice from the tests' address.
fn by_alice(action: &str, serial: &str, detail: Value) -> Value {
    json!({"actor": user(ALICE), "action": action, "target": format!("device:{serial}"),
        "ip": LOCAL, "detail": detail})
}

e2e!(a_devices_changes_are_recorded_once_each);
fn a_devices_changes_are_recorded_once_each() {
    let server = Server::start();
    let alice = server.account(ALICE);
    let bob = server.account("bob@example.com");
    let before = mark(&server);
    let shelf = string(&server.db.device(ALICE, "Shelf", &[]), "serial");
    recorded(
        &server,
        &alice.token,
        before,
        json!({"actor": bare("cli"), "action": "device.create",
            "target": format!("device:{shelf}"), "ip": null, "detail": {}}),
    );
    let before = mark(&server);
    let kitchen = install(&server, &alice, "Kitchen").serial;
    recorded(
        &server,
        &alice.token,
        before,
        json!({"actor": device_actor(&kitchen), "action": "device.install",
            "target": format!("device:{kitchen}"), "ip": LOCAL, "detail": {}}),
    );
    let bobs = install(&server, &bob, "Garage").serial;

    let edit = |method: &str, serial: &str, body: Value| {
        server
            .call(method.parse().unwrap(), &format!("/devices/{serial}/"))
            .token(&alice.token)
            .json(&body)
            .send()
    };
    let before = mark(&server);
    edit("PATCH", &kitchen, json!({"name": "Kitchen wall"})).expect_status(200);
    recorded(
        &server,
        &alice.token,
        before,
        by_alice("device.update", &kitchen, json!({"changed": ["name"]})),
    );
    let before = mark(&server);
    let body = json!({"name": "Kitchen wall", "description": "By the door", "tags": ["lab"]});
    edit("PUT", &kitchen, body).expect_status(200);
    recorded(
        &server,
        &alice.token,
        before,
        by_alice(
            "device.update",
            &kitchen,
            json!({"changed": ["description", "tags"]}),
        ),
    );
    // Edits that change nothing, refused ones, and other accounts' devices.
    let before = mark(&server);
    let same =
        json!({"name": "Kitchen wall", "description": "By the door", "tags": ["Lab", "lab"]});
    edit("PATCH", &kitchen, same.clone()).expect_status(200);
    edit("PUT", &kitchen, same).expect_status(200);
    edit("PATCH", &kitchen, json!({})).expect_status(200);
    edit("PATCH", &kitchen, json!({"name": ""})).expect_status(400);
    edit(
        "PATCH",
        &kitchen,
        json!({"name": "Pantry", "tags": ["no tag!"]}),
    )
    .expect_status(400);
    edit("PUT", &kitchen, json!({"description": "No name"})).expect_status(400);
    edit("PATCH", &bobs, json!({"name": "Mine now"})).expect_status(404);
    let unknown = "0b5c3f9e-1d2a-4c6b-8e7f-9a0b1c2d3e4f";
    edit("PATCH", unknown, json!({"name": "Nobody"})).expect_status(404);
    nothing_written(&server, before, "edits that change nothing");

    // Reboots name the command their 202 answered with, a reboot under way
    // joined too.
    let reboot = |serial: &str| {
        server
            .post(&format!("/devices/{serial}/reboot/"))
            .token(&alice.token)
            .send()
    };
    for _ in 0..2 {
        let before = mark(&server);
        let reply = reboot(&kitchen);
        reply.expect_status(202);
        let command = string(&reply.json()["command"], "id");
        recorded(
            &server,
            &alice.token,
            before,
            by_alice("device.reboot", &kitchen, json!({ "command": command })),
        );
    }
    let before = mark(&server);
    reboot(unknown).expect_status(404);
    reboot(&bobs).expect_status(404);
    nothing_written(&server, before, "reboots of devices not the account's");

    let before = mark(&server);
    edit("DELETE", &kitchen, json!({})).expect_empty(204);
    recorded(
        &server,
        &alice.token,
        before,
        by_alice("device.delete", &kitchen, json!({})),
    );
    let before = mark(&server);
    edit("DELETE", &kitchen, json!({})).expect_status(404);
    edit("DELETE", &bobs, json!({})).expect_status(404);
    nothing_written(&server, before, "deletes of devices not there");
}

e2e!(bulk_tagging_records_each_device_whose_tags_change);
fn bulk_tagging_records_each_device_whose_tags_change() {
    let server = Server::start();
    let alice = server.account(ALICE);
    let tagged = string(&server.device(ALICE, "Tagged", &["--tag", "lab"]), "serial");
    let mut untagged: Vec<String> = ["One", "Two"]
        .iter()
        .map(|name| string(&server.device(ALICE, name, &[]), "serial"))
        .collect();
    untagged.sort();
    let bulk = |body: Value| {
        server
            .post("/devices/tags/")
            .token(&alice.token)
            .json(&body)
            .send()
    };
    let tags_changed = |serials: &[String], written: &[Value]| {
        assert_eq!(written.len(), serials.len(), "{written:#?}");
        for (serial, entry) in serials.iter().zip(written) {
            assert_records(
                entry,
                by_alice("device.update", serial, json!({"changed": ["tags"]})),
            );
        }
    };

    let before = mark(&server);
    bulk(json!({"selector": {"all": true}, "add": ["Lab"]})).expect(200, json!({"matched": 3}));
    let written = written_since(&server, before);
    tags_changed(&untagged, &written);
    let newest = results(&audit_query(&server, &alice.token, "limit=2"));
    assert_eq!(newest, written.into_iter().rev().collect::<Vec<_>>());

    let before = mark(&server);
    bulk(json!({"selector": {"all": true}, "add": ["lab"]})).expect(200, json!({"matched": 3}));
    bulk(json!({"selector": {"all": true}, "remove": ["lab"], "add": ["lab"]}))
        .expect(200, json!({"matched": 3}));
    bulk(json!({"selector": {"all": true}, "remove": ["nowhere"]}))
        .expect(200, json!({"matched": 3}));
    bulk(json!({"selector": {"tags": ["nowhere"]}, "add": ["x"]}))
        .expect(200, json!({"matched": 0}));
    bulk(json!({"selector": {"all": true}, "add": ["no tag!"]})).expect_status(400);
    bulk(json!({"selector": {"all": true}})).expect_status(400);
    nothing_written(&server, before, "bulk tagging that changes no device");

    let before = mark(&server);
    bulk(json!({"selector": {"all": true}, "remove": ["lab"]})).expect(200, json!({"matched": 3}));
    let mut all = untagged.clone();
    all.push(tagged);
    all.sort();
    tags_changed(&all, &written_since(&server, before));
}
