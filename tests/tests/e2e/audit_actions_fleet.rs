//! Each audited change to a job, a monitor or a webhook writes one entry,
//! and nothing else does (docs/api.md, "Audit log"): jobs created,
//! cancelled and resumed by their owner, halted and completed by the server
//! itself (`system`, no address) as the agents carry their waves out;
//! monitors created, snoozed (the detail's `until` the monitor's
//! `snoozed_until`, `null` when the snooze ended) and deleted; webhooks
//! created and deleted. A refused request (400, 404, 409) writes nothing.

use crate::alerts_support::{PUBLIC_TARGET, UNKNOWN_ID, device_monitor_body, new_webhook};
use crate::audit_log_support::*;
use crate::jobs_support::*;
use crate::support::*;
use serde_json::{Value, json};

const ALICE: &str = "alice@example.com";

/// What an entry of `action` about `target` records, made by Alice from
/// the tests' address.
fn by_alice(action: &str, target: &str, detail: Value) -> Value {
    json!({"actor": user(ALICE), "action": action, "target": target, "ip": LOCAL,
        "detail": detail})
}

/// What an entry of `action` made by the server itself about `target`
/// records.
fn by_the_server(action: &str, target: &str) -> Value {
    json!({"actor": bare("system"), "action": action, "target": target, "ip": null,
        "detail": {}})
}

e2e!(jobs_are_recorded_by_whoever_moved_them);
fn jobs_are_recorded_by_whoever_moved_them() {
    let server = Server::start();
    let alice = server.account(ALICE);
    let agents = agents(&server, &alice, 3);
    let before = mark(&server);
    let job = create(
        &server,
        &alice.token,
        &json!({"action": "reboot", "selector": {"all": true}, "wave_size": 2,
            "halt_failure_ratio": 0.4}),
    );
    let id = string(&job, "id");
    let target = format!("job:{id}");
    // Starting the first wave queues reboots: no `device.reboot` entries.
    recorded(
        &server,
        &alice.token,
        before,
        by_alice("job.create", &target, json!({})),
    );

    // One of two failing halts the job: the server records it.
    let before = mark(&server);
    let all = targets(&server, &alice.token, &id);
    let failing = string(&all[1], "serial");
    carry_out(&server, &agents, &in_wave(&all, 1), &[&failing]);
    wait_for_status(&server, &alice.token, &id, "halted");
    recorded(
        &server,
        &alice.token,
        before,
        by_the_server("job.halt", &target),
    );
    let before = mark(&server);
    server
        .post(&cancel_path(UNKNOWN_ID))
        .token(&alice.token)
        .send()
        .expect_status(404);
    nothing_written(&server, before, "a cancel of no job");

    let before = mark(&server);
    let reply = server.post(&resume_path(&id)).token(&alice.token).send();
    reply.expect_status(200);
    assert_eq!(reply.json()["status"], "running", "{reply}");
    recorded(
        &server,
        &alice.token,
        before,
        by_alice("job.resume", &target, json!({})),
    );
    let before = mark(&server);
    server
        .post(&resume_path(&id))
        .token(&alice.token)
        .send()
        .expect_detail(409, NOT_HALTED);
    nothing_written(&server, before, "a resume of a running job");

    // The last wave done completes the job: the server records it.
    let before = mark(&server);
    let all = targets(&server, &alice.token, &id);
    carry_out(&server, &agents, &in_wave(&all, 2), &[]);
    wait_for_status(&server, &alice.token, &id, "completed");
    recorded(
        &server,
        &alice.token,
        before,
        by_the_server("job.complete", &target),
    );
    let before = mark(&server);
    for path in [cancel_path(&id), resume_path(&id)] {
        server
            .post(&path)
            .token(&alice.token)
            .send()
            .expect_status(409);
    }
    nothing_written(&server, before, "a cancel and a resume of a finished job");

    // A job scheduled for later, cancelled before it starts.
    let before = mark(&server);
    create_call(
        &server,
        &alice.token,
        &json!({"action": "reboot", "selector": {"all": true}, "wave_size": 0}),
    )
    .expect_status(400);
    nothing_written(&server, before, "a job refused");
    let later = create(
        &server,
        &alice.token,
        &json!({"action": "reboot", "selector": {"all": true},
            "start_time": in_seconds(3600)}),
    );
    let later_target = format!("job:{}", string(&later, "id"));
    recorded(
        &server,
        &alice.token,
        before,
        by_alice("job.create", &later_target, json!({})),
    );
    let before = mark(&server);
    let reply = server
        .post(&cancel_path(&string(&later, "id")))
        .token(&alice.token)
        .send();
    reply.expect_status(200);
    recorded(
        &server,
        &alice.token,
        before,
        by_alice("job.cancel", &later_target, json!({})),
    );
}

e2e!(monitors_and_webhooks_are_recorded_once_each);
fn monitors_and_webhooks_are_recorded_once_each() {
    let server = Server::start();
    let alice = server.account(ALICE);
    let bob = server.account("bob@example.com");
    let post =
        |path: &str, token: &str, body: Value| server.post(path).token(token).json(&body).send();
    let before = mark(&server);
    post(
        "/monitors/",
        &alice.token,
        json!({"name": "", "kind": "nope"}),
    )
    .expect_status(400);
    nothing_written(&server, before, "a monitor refused");
    let reply = post(
        "/monitors/",
        &alice.token,
        device_monitor_body("Any offline"),
    );
    reply.expect_status(201);
    let id = string(&reply.json(), "id");
    let target = format!("monitor:{id}");
    recorded(
        &server,
        &alice.token,
        before,
        by_alice("monitor.create", &target, json!({})),
    );

    // Snoozes: until a time (the detail names the monitor's new
    // `snoozed_until`), then ended with null.
    let snooze = format!("/monitors/{id}/snooze/");
    let until = in_seconds(3600);
    let before = mark(&server);
    let reply = post(&snooze, &alice.token, json!({ "until": until }));
    reply.expect_status(200);
    assert_eq!(reply.json()["snoozed_until"], until.as_str(), "{reply}");
    recorded(
        &server,
        &alice.token,
        before,
        by_alice("monitor.snooze", &target, json!({ "until": until })),
    );
    let before = mark(&server);
    post(&snooze, &alice.token, json!({"until": null})).expect_status(200);
    recorded(
        &server,
        &alice.token,
        before,
        by_alice("monitor.snooze", &target, json!({"until": null})),
    );
    let before = mark(&server);
    post(&snooze, &alice.token, json!({"until": "soon"})).expect_status(400);
    post(&snooze, &alice.token, json!({})).expect_status(400);
    post(&snooze, &bob.token, json!({"until": null})).expect_status(404);
    let unknown = format!("/monitors/{UNKNOWN_ID}/snooze/");
    post(&unknown, &alice.token, json!({"until": null})).expect_status(404);
    nothing_written(&server, before, "snoozes refused");

    let monitor = format!("/monitors/{id}/");
    let before = mark(&server);
    server
        .delete(&monitor)
        .token(&bob.token)
        .send()
        .expect_status(404);
    nothing_written(&server, before, "another account's delete");
    server
        .delete(&monitor)
        .token(&alice.token)
        .send()
        .expect_empty(204);
    recorded(
        &server,
        &alice.token,
        before,
        by_alice("monitor.delete", &target, json!({})),
    );
    let before = mark(&server);
    server
        .delete(&monitor)
        .token(&alice.token)
        .send()
        .expect_status(404);
    nothing_written(&server, before, "a delete of a deleted monitor");

    // Webhooks.
    let before = mark(&server);
    post(
        "/webhooks/",
        &alice.token,
        json!({"target_url": "ftp://example.com/"}),
    )
    .expect_status(400);
    post(
        "/webhooks/",
        &alice.token,
        json!({"target_url": "http://127.0.0.1/hook"}),
    )
    .expect_status(400);
    nothing_written(&server, before, "webhooks refused");
    let webhook = new_webhook(&server, &alice.token, &json!({"target_url": PUBLIC_TARGET}));
    let id = string(&webhook, "id");
    let target = format!("webhook:{id}");
    recorded(
        &server,
        &alice.token,
        before,
        by_alice("webhook.create", &target, json!({})),
    );
    let before = mark(&server);
    server
        .post(&format!("/webhooks/{id}/ping/"))
        .token(&alice.token)
        .send()
        .expect_status(202);
    nothing_written(&server, before, "a ping");
    let path = format!("/webhooks/{id}/");
    server
        .delete(&path)
        .token(&bob.token)
        .send()
        .expect_status(404);
    nothing_written(&server, before, "another account's delete");
    server
        .delete(&path)
        .token(&alice.token)
        .send()
        .expect_empty(204);
    recorded(
        &server,
        &alice.token,
        before,
        by_alice("webhook.delete", &target, json!({})),
    );
    let before = mark(&server);
    server
        .delete(&path)
        .token(&alice.token)
        .send()
        .expect_status(404);
    nothing_written(&server, before, "a delete of a deleted webhook");
}
