//! Webhook deliveries to a receiver of the test's own on 127.0.0.1 (docs/
//! api.md, "Webhooks"; docs/webhooks.md): alert and job events arrive as
//! signed JSON posts whose data is the resource as its GET shows it; only
//! subscribed events are sent; a failed attempt is repeated with the same
//! bytes until it succeeds; a redirect is a failure and is not followed; a
//! deleted webhook is not tried again; a receiver that hangs holds up only
//! its own delivery; loopback targets are refused without
//! `--allow-private-webhooks`, at creation and at each attempt.

use crate::alerting_support::*;
use crate::device_support::install;
use crate::jobs_support::{agents, carry_out, create, in_wave, job, targets, wait_for_status};
use crate::support::*;
use serde_json::{Value, json};
use std::sync::{Arc, Condvar, Mutex};
use std::thread;
use std::time::Duration;

/// The refusal of a loopback, private or link-local target.
const FORBIDDEN: &str = "Webhooks may not target loopback, private or link-local addresses.";
/// Moves past the online window: a device silent since now is down.
const SILENCE: Duration = Duration::from_secs(WINDOW + 1);

/// The single request received on `path`, once it arrived.
#[track_caller]
fn one_on(receiver: &Receiver, path: &str) -> Received {
    receiver.wait_for(&format!("a delivery on {path}"), SOON, |r| {
        r.iter().any(|r| r.path == path)
    });
    let on = receiver.on(path);
    assert_eq!(on.len(), 1, "{on:#?}");
    on[0].clone()
}

/// Asserts that delivery `id` of `hook` succeeded at its first attempt.
#[track_caller]
fn assert_succeeded_at_once(server: &Server, token: &str, hook: &Hook, id: &str, event: &str) {
    let done = wait_for_delivery(server, token, hook, id, "a succeeded delivery", |d| {
        d["status"] == "succeeded"
    });
    assert_eq!(done["event"], event, "{done:#}");
    assert_eq!(done["attempts"], 1, "{done:#}");
    assert_eq!(done["response_code"], 204, "{done:#}");
    assert_eq!(done["error"], "", "{done:#}");
    assert!(done["next_attempt_time"].is_null(), "{done:#}");
    assert!(
        is_timestamp(&string(&done, "last_attempt_time")),
        "{done:#}"
    );
}

e2e!(alert_events_arrive_signed_with_the_alert_and_only_where_subscribed);
fn alert_events_arrive_signed_with_the_alert_and_only_where_subscribed() {
    let server = alerting_server().start();
    let owner = server.account("ada@example.com");
    let receiver = Receiver::accepting();
    let all = create_webhook(&server, &owner.token, &receiver.url("/all"), None);
    let jobs_only = create_webhook(
        &server,
        &owner.token,
        &receiver.url("/jobs"),
        Some(&["job.completed", "job.halted"]),
    );
    let agent = install(&server, &owner, "Kiln");
    device_monitor(&server, &owner.token, "Kiln", json!({"all": true}));
    beat(&server, &owner.token, &agent);
    server.advance(SILENCE);

    let opened = one_on(&receiver, "/all");
    let body = assert_delivery(&opened, &all, "alert.opened");
    let id = string(&body["data"], "id");
    assert_eq!(
        body["data"],
        alert(&server, &owner.token, &id),
        "data is the alert as GET shows it"
    );
    assert_eq!(body["data"]["state"], "open", "{body:#}");
    assert_eq!(body["time"], body["data"]["started_time"], "{body:#}");
    assert_succeeded_at_once(
        &server,
        &owner.token,
        &all,
        &string(&body, "delivery"),
        "alert.opened",
    );

    let beating = Heartbeats::start(&server, std::slice::from_ref(&agent));
    let arrived = receiver.wait_for("the resolution's delivery", SOON, |r| r.len() >= 2);
    beating.stop();
    let body = assert_delivery(&arrived[1], &all, "alert.resolved");
    assert_eq!(body["data"], alert(&server, &owner.token, &id), "{body:#}");
    assert_eq!(body["data"]["state"], "resolved", "{body:#}");
    assert_eq!(body["time"], body["data"]["resolved_time"], "{body:#}");
    assert_ne!(
        arrived[0].header("x-devmgr-delivery"),
        arrived[1].header("x-devmgr-delivery")
    );
    assert!(
        receiver.on("/jobs").is_empty(),
        "{:#?}",
        receiver.received()
    );
    assert!(deliveries(&server, &owner.token, &jobs_only).is_empty());
}

e2e!(a_completed_and_a_halted_job_are_delivered_with_the_job);
fn a_completed_and_a_halted_job_are_delivered_with_the_job() {
    let server = alerting_server().start();
    let owner = server.account("ada@example.com");
    let receiver = Receiver::accepting();
    let hook = create_webhook(
        &server,
        &owner.token,
        &receiver.url("/jobs"),
        Some(&["job.completed", "job.halted"]),
    );
    let fleet = agents(&server, &owner, 3);

    let completing = create(
        &server,
        &owner.token,
        &json!({"action": "reboot", "selector": {"serials": [fleet[0].serial]}}),
    );
    let completing_id = string(&completing, "id");
    let wave = targets(&server, &owner.token, &completing_id);
    carry_out(&server, &fleet, &in_wave(&wave, 1), &[]);
    wait_for_status(&server, &owner.token, &completing_id, "completed");
    let request = one_on(&receiver, "/jobs");
    let body = assert_delivery(&request, &hook, "job.completed");
    assert_eq!(
        body["data"],
        job(&server, &owner.token, &completing_id),
        "{body:#}"
    );
    assert_eq!(body["time"], body["data"]["finished_time"], "{body:#}");

    let halting = create(
        &server,
        &owner.token,
        &json!({"action": "reboot", "selector": {"serials": [fleet[1].serial, fleet[2].serial]},
            "wave_size": 1, "halt_failure_ratio": 0}),
    );
    let halting_id = string(&halting, "id");
    let wave = targets(&server, &owner.token, &halting_id);
    let first = in_wave(&wave, 1);
    carry_out(&server, &fleet, &first, &[&string(first[0], "serial")]);
    wait_for_status(&server, &owner.token, &halting_id, "halted");
    let arrived = receiver.wait_for("the halt's delivery", SOON, |r| r.len() >= 2);
    let body = assert_delivery(&arrived[1], &hook, "job.halted");
    assert_eq!(
        body["data"],
        job(&server, &owner.token, &halting_id),
        "{body:#}"
    );
    assert_eq!(body["data"]["status"], "halted", "{body:#}");
}

/// A gate a receiver's answer waits at until the test opens it.
#[derive(Default)]
struct Gate(Mutex<bool>, Condvar);

impl Gate {
    fn pass(&self) {
        let mut open = self.0.lock().expect("the gate");
        while !*open {
            open = self.1.wait(open).expect("the gate");
        }
    }

    fn open(&self) {
        *self.0.lock().expect("the gate") = true;
        self.1.notify_all();
    }
}

e2e!(a_failed_attempt_is_repeated_with_the_same_bytes_until_it_succeeds);
fn a_failed_attempt_is_repeated_with_the_same_bytes_until_it_succeeds() {
    let server = alerting_server().start();
    let owner = server.account("ada@example.com");
    let gate = Arc::new(Gate::default());
    let held = gate.clone();
    let receiver = Receiver::start(move |_, prior| {
        if prior == 0 {
            Answer::Status(500)
        } else {
            held.pass();
            Answer::Status(204)
        }
    });
    let hook = create_webhook(&server, &owner.token, &receiver.url("/flaky"), None);
    let id = ping(&server, &owner.token, &hook);

    // The second attempt is held at the receiver: the log shows the first.
    receiver.wait_for("two attempts", SOON, |r| r.len() == 2);
    let pending = deliveries(&server, &owner.token, &hook);
    assert_eq!(pending.len(), 1, "{pending:#?}");
    let pending = &pending[0];
    assert_eq!(pending["id"], id.as_str(), "{pending:#}");
    assert_eq!(pending["event"], "ping", "{pending:#}");
    assert_eq!(pending["status"], "pending", "{pending:#}");
    assert_eq!(pending["attempts"], 1, "{pending:#}");
    assert_eq!(pending["response_code"], 500, "{pending:#}");
    assert_eq!(
        pending["error"], "The target answered with HTTP status 500.",
        "{pending:#}"
    );
    assert!(
        is_timestamp(&string(pending, "next_attempt_time")),
        "{pending:#}"
    );
    assert!(
        pending["next_attempt_time"].as_str() > pending["last_attempt_time"].as_str(),
        "{pending:#}"
    );
    gate.open();

    let done = wait_for_delivery(
        &server,
        &owner.token,
        &hook,
        &id,
        "the retry's success",
        |d| d["status"] == "succeeded",
    );
    assert_eq!(done["attempts"], 2, "{done:#}");
    assert_eq!(done["response_code"], 204, "{done:#}");
    assert_eq!(done["error"], "", "{done:#}");
    assert!(done["next_attempt_time"].is_null(), "{done:#}");
    let attempts = receiver.received();
    assert_eq!(attempts.len(), 2, "{attempts:#?}");
    let body = assert_delivery(&attempts[0], &hook, "ping");
    assert_eq!(body["delivery"], id.as_str(), "{body:#}");
    let shown = server
        .get(&format!("/webhooks/{}/", hook.id))
        .token(&owner.token)
        .send();
    assert_eq!(
        body["data"],
        shown.json(),
        "a ping's data is the webhook: {body:#}"
    );
    assert_eq!(
        attempts[1].body, attempts[0].body,
        "the same body at every attempt"
    );
    assert_eq!(
        attempts[1].headers, attempts[0].headers,
        "the same headers at every attempt"
    );
}

e2e!(a_redirect_is_a_failure_and_is_not_followed);
fn a_redirect_is_a_failure_and_is_not_followed() {
    let server = alerting_server().start();
    let owner = server.account("ada@example.com");
    let target = Arc::new(Mutex::new(String::new()));
    let location = target.clone();
    let receiver = Receiver::start(move |request, _| match request.path.as_str() {
        "/moved" => Answer::Redirect(location.lock().expect("the location").clone()),
        _ => Answer::Status(204),
    });
    *target.lock().expect("the location") = receiver.url("/elsewhere");
    let hook = create_webhook(&server, &owner.token, &receiver.url("/moved"), None);
    let id = ping(&server, &owner.token, &hook);
    let failed = wait_for_delivery(
        &server,
        &owner.token,
        &hook,
        &id,
        "an attempt answered 302",
        |d| d["attempts"].as_u64() >= Some(1),
    );
    assert_eq!(failed["status"], "pending", "{failed:#}");
    assert_eq!(failed["response_code"], 302, "{failed:#}");
    assert_eq!(
        failed["error"], "The target answered with HTTP status 302.",
        "{failed:#}"
    );
    assert!(
        receiver.on("/elsewhere").is_empty(),
        "{:#?}",
        receiver.received()
    );
}

e2e!(a_webhook_deleted_while_its_delivery_waits_is_not_tried_again);
fn a_webhook_deleted_while_its_delivery_waits_is_not_tried_again() {
    let server = alerting_server().start();
    let owner = server.account("ada@example.com");
    let receiver = Receiver::start(|request, _| match request.path.as_str() {
        "/down" => Answer::Status(503),
        _ => Answer::Status(204),
    });
    let doomed = create_webhook(&server, &owner.token, &receiver.url("/down"), None);
    let sentinel = create_webhook(&server, &owner.token, &receiver.url("/sentinel"), None);
    let id = ping(&server, &owner.token, &doomed);
    // After three failures the next attempt waits 4 s: deleted meanwhile.
    wait_for_delivery(
        &server,
        &owner.token,
        &doomed,
        &id,
        "three failed attempts",
        |d| d["attempts"] == 3,
    );
    server
        .delete(&format!("/webhooks/{}/", doomed.id))
        .token(&owner.token)
        .send()
        .expect_empty(204);
    // The retry's time passes; a later delivery goes out, and still none.
    server.advance(Duration::from_secs(60));
    let later = ping(&server, &owner.token, &sentinel);
    wait_for_delivery(
        &server,
        &owner.token,
        &sentinel,
        &later,
        "the sentinel",
        |d| d["status"] == "succeeded",
    );
    thread::sleep(Duration::from_secs(1));
    assert_eq!(receiver.on("/down").len(), 3, "{:#?}", receiver.received());
}

e2e!(a_hanging_receiver_does_not_hold_up_another_webhook);
fn a_hanging_receiver_does_not_hold_up_another_webhook() {
    let server = alerting_server().start();
    let owner = server.account("ada@example.com");
    let receiver = Receiver::start(|request, _| match request.path.as_str() {
        "/hang" => Answer::Hang,
        _ => Answer::Status(204),
    });
    let hanging = create_webhook(&server, &owner.token, &receiver.url("/hang"), None);
    let prompt = create_webhook(&server, &owner.token, &receiver.url("/prompt"), None);
    let stuck = ping(&server, &owner.token, &hanging);
    receiver.wait_for("the hanging attempt", SOON, |r| {
        r.iter().any(|r| r.path == "/hang")
    });
    let quick = ping(&server, &owner.token, &prompt);
    assert_succeeded_at_once(&server, &owner.token, &prompt, &quick, "ping");
    let waiting = deliveries(&server, &owner.token, &hanging);
    assert_eq!(waiting[0]["id"], stuck.as_str(), "{waiting:#?}");
    assert_eq!(
        waiting[0]["status"], "pending",
        "still waiting for its answer: {waiting:#?}"
    );
}

e2e!(loopback_targets_are_refused_without_private_webhooks_at_creation_and_delivery);
fn loopback_targets_are_refused_without_private_webhooks_at_creation_and_delivery() {
    let receiver = Receiver::accepting();
    let lenient = alerting_server().start();
    let owner = lenient.account("ada@example.com");
    let hook = create_webhook(&lenient, &owner.token, &receiver.url("/hook"), None);
    let strict = Server::builder()
        .online_window(WINDOW)
        .throttle_off()
        .db(lenient.kill())
        .start();

    let port = receiver
        .url("")
        .rsplit(':')
        .next()
        .expect("a port")
        .to_owned();
    for target in [receiver.url("/new"), format!("http://localhost:{port}/new")] {
        strict
            .post("/webhooks/")
            .token(&owner.token)
            .json(&json!({"target_url": target}))
            .send()
            .expect(400, json!({"target_url": [FORBIDDEN]}));
    }
    // The webhook made while private targets were allowed: refused at its
    // attempt, failed at once, nothing sent.
    let id = ping(&strict, &owner.token, &hook);
    let failed = wait_for_delivery(
        &strict,
        &owner.token,
        &hook,
        &id,
        "a refused delivery",
        |d| d["status"] != "pending",
    );
    assert_eq!(failed["status"], "failed", "{failed:#}");
    assert_eq!(failed["attempts"], 1, "{failed:#}");
    assert_eq!(failed["error"], FORBIDDEN, "{failed:#}");
    assert_eq!(failed["response_code"], Value::Null, "{failed:#}");
    assert_eq!(failed["next_attempt_time"], Value::Null, "{failed:#}");
    assert!(receiver.received().is_empty(), "{:#?}", receiver.received());
}
