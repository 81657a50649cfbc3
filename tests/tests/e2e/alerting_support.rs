//! Helpers of the alerting tests (docs/api.md, "Monitors and alerts" and
//! "Webhooks"): servers with a short online window, monitors, alerts and
//! deliveries read through the API, waits on the monitor engine and the
//! webhook worker without fixed sleeps, devices that heartbeat in the
//! background, and alert mails read back as subject and text.

use crate::device_support::{Agent, device_detail, heartbeat};
use crate::jobs_support::wait_until;
use crate::support::*;
use reqwest::blocking::Client;
use serde_json::{Value, json};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::{self, JoinHandle};
use std::time::Duration;

/// The servers' online window (`--online-window`), in seconds: also the
/// least `after_seconds` of a monitor.
pub const WINDOW: u64 = 2;
/// How long a test waits for what the engine or the worker does within a
/// second or two (generous: the machine is shared).
pub const SOON: Duration = Duration::from_secs(20);
/// The keys of an alert, sorted.
pub const ALERT_KEYS: [&str; 8] = [
    "id",
    "monitor",
    "reason",
    "resolved_time",
    "serial",
    "started_time",
    "state",
    "url",
];
/// The keys of a delivery, sorted.
pub const DELIVERY_KEYS: [&str; 9] = [
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

/// A server with the online window of [`WINDOW`], no throttling, and
/// webhooks allowed to reach this machine's receivers.
pub fn alerting_server() -> ServerBuilder {
    Server::builder()
        .online_window(WINDOW)
        .throttle_off()
        .args(&["--allow-private-webhooks"])
}

/// `POST /monitors/ body`, asserting the 201; the monitor.
#[track_caller]
pub fn create_monitor(server: &Server, token: &str, body: &Value) -> Value {
    let reply = server.post("/monitors/").token(token).json(body).send();
    reply.expect_status(201);
    reply.json()
}

/// A `device_offline` monitor named `name` over `selector`, waiting
/// [`WINDOW`] seconds.
#[track_caller]
pub fn device_monitor(server: &Server, token: &str, name: &str, selector: Value) -> Value {
    let body = json!({"name": name, "kind": "device_offline", "selector": selector,
        "after_seconds": WINDOW});
    create_monitor(server, token, &body)
}

/// A `fleet_offline_ratio` monitor named `name` over `selector`.
#[track_caller]
pub fn fleet_monitor(
    server: &Server,
    token: &str,
    name: &str,
    selector: Value,
    ratio: f64,
) -> Value {
    let body = json!({"name": name, "kind": "fleet_offline_ratio", "selector": selector,
        "after_seconds": WINDOW, "ratio": ratio});
    create_monitor(server, token, &body)
}

/// `POST /monitors/{id}/snooze/ {"until": until}`, asserting the 200; the monitor.
#[track_caller]
pub fn snooze(server: &Server, token: &str, id: &str, until: Value) -> Value {
    let reply = server
        .post(&format!("/monitors/{id}/snooze/"))
        .token(token)
        .json(&json!({"until": until}))
        .send();
    reply.expect_status(200);
    reply.json()
}

/// Asserts an alert's shape: its keys, id, url and times.
#[track_caller]
pub fn assert_alert_shape(server: &Server, alert: &Value) {
    assert_eq!(keys(alert), ALERT_KEYS, "{alert:#}");
    let id = string(alert, "id");
    assert!(is_lowercase_uuid(&id), "{alert:#}");
    let url = format!("{}/alerts/{id}/", server.expected_base());
    assert_eq!(alert["url"], url, "{alert:#}");
    assert!(is_timestamp(&string(alert, "started_time")), "{alert:#}");
    match alert["state"].as_str() {
        Some("open") => assert!(alert["resolved_time"].is_null(), "{alert:#}"),
        Some("resolved") => assert!(is_timestamp(&string(alert, "resolved_time")), "{alert:#}"),
        _ => panic!("an alert is open or resolved: {alert:#}"),
    }
}

/// `GET /alerts/?limit=1000&<query>`: every alert of the page, newest
/// first, their shapes asserted and the page holding them all.
#[track_caller]
pub fn alerts(server: &Server, token: &str, query: &str) -> Vec<Value> {
    let reply = server
        .get(&format!("/alerts/?limit=1000&{query}"))
        .token(token)
        .send();
    reply.expect_status(200);
    let page = reply.json();
    let results = page["results"].as_array().expect("results").clone();
    assert_eq!(page["count"], results.len(), "{reply}");
    results.iter().for_each(|a| assert_alert_shape(server, a));
    results
}

/// `GET /alerts/{id}/`, asserting the 200; the alert.
#[track_caller]
pub fn alert(server: &Server, token: &str, id: &str) -> Value {
    let reply = server.get(&format!("/alerts/{id}/")).token(token).send();
    reply.expect_status(200);
    let alert = reply.json();
    assert_alert_shape(server, &alert);
    alert
}

/// Waits (up to [`SOON`]) until the alerts of `query` satisfy `ready`; them.
#[track_caller]
pub fn wait_for_alerts(
    server: &Server,
    token: &str,
    query: &str,
    what: &str,
    ready: impl Fn(&[Value]) -> bool,
) -> Vec<Value> {
    wait_until(what, SOON, || {
        let found = alerts(server, token, query);
        if ready(&found) {
            Ok(found)
        } else {
            Err(format!("{found:#?}"))
        }
    })
}

/// Waits until alert `id` is `resolved`; the alert.
#[track_caller]
pub fn wait_resolved(server: &Server, token: &str, id: &str) -> Value {
    wait_until(&format!("alert {id} resolved"), SOON, || {
        let found = alert(server, token, id);
        if found["state"] == "resolved" {
            Ok(found)
        } else {
            Err(found.to_string())
        }
    })
}

/// One heartbeat of `agent`; its device's `last_seen_time` after it.
#[track_caller]
pub fn beat(server: &Server, owner_token: &str, agent: &Agent) -> String {
    heartbeat(server, &agent.token, &json!({}));
    string(
        &device_detail(server, owner_token, &agent.serial),
        "last_seen_time",
    )
}

/// Devices heartbeating in the background, every 200 ms each, until stopped.
pub struct Heartbeats {
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl Heartbeats {
    /// Starts heartbeating `agents` on `server`.
    pub fn start(server: &Server, agents: &[Agent]) -> Self {
        let stop = Arc::new(AtomicBool::new(false));
        let url = server.url("/agent/heartbeat/");
        let tokens: Vec<String> = agents.iter().map(|a| a.token.clone()).collect();
        let stopping = stop.clone();
        let thread = thread::spawn(move || {
            let client = Client::builder()
                .timeout(Duration::from_secs(10))
                .build()
                .expect("an HTTP client");
            while !stopping.load(Ordering::SeqCst) {
                for token in &tokens {
                    let _ = client
                        .post(&url)
                        .header("Authorization", format!("Device {token}"))
                        .json(&json!({}))
                        .send();
                }
                thread::sleep(Duration::from_millis(200));
            }
        });
        Self {
            stop,
            thread: Some(thread),
        }
    }

    /// Stops the heartbeats; none is sent after this returns.
    pub fn stop(mut self) {
        self.halt();
    }

    fn halt(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

impl Drop for Heartbeats {
    fn drop(&mut self) {
        self.halt();
    }
}

/// A webhook as created: its id and its secret.
#[derive(Debug, Clone)]
pub struct Hook {
    /// Its id.
    pub id: String,
    /// Its secret, shown only at creation.
    pub secret: String,
}

/// `POST /webhooks/ {target_url, events?}` with a secret of its own,
/// asserting the 201; the webhook.
#[track_caller]
pub fn create_webhook(
    server: &Server,
    token: &str,
    target_url: &str,
    events: Option<&[&str]>,
) -> Hook {
    let secret = format!("s3cret-of-{}", target_url.len() * 7919);
    let mut body = json!({"target_url": target_url, "secret": secret});
    if let Some(events) = events {
        body["events"] = json!(events);
    }
    let reply = server.post("/webhooks/").token(token).json(&body).send();
    reply.expect_status(201);
    let created = reply.json();
    assert_eq!(created["secret"], secret.as_str(), "{reply}");
    Hook {
        id: string(&created, "id"),
        secret,
    }
}

/// `POST /webhooks/{id}/ping/`, asserting the 202; the delivery's id.
#[track_caller]
pub fn ping(server: &Server, token: &str, hook: &Hook) -> String {
    let reply = server
        .post(&format!("/webhooks/{}/ping/", hook.id))
        .token(token)
        .send();
    reply.expect_status(202);
    string(&reply.json(), "delivery")
}

/// `GET /webhooks/{id}/deliveries/?limit=1000`: every delivery, newest first.
#[track_caller]
pub fn deliveries(server: &Server, token: &str, hook: &Hook) -> Vec<Value> {
    let reply = server
        .get(&format!("/webhooks/{}/deliveries/?limit=1000", hook.id))
        .token(token)
        .send();
    reply.expect_status(200);
    let page = reply.json();
    let results = page["results"].as_array().expect("results").clone();
    assert_eq!(page["count"], results.len(), "{reply}");
    for delivery in &results {
        assert_eq!(keys(delivery), DELIVERY_KEYS, "{delivery:#}");
    }
    results
}

/// Waits (up to [`SOON`]) until delivery `id` of `hook` satisfies `ready`; it.
#[track_caller]
pub fn wait_for_delivery(
    server: &Server,
    token: &str,
    hook: &Hook,
    id: &str,
    what: &str,
    ready: impl Fn(&Value) -> bool,
) -> Value {
    wait_until(what, SOON, || {
        let found = deliveries(server, token, hook);
        match found.iter().find(|d| d["id"] == id) {
            Some(delivery) if ready(delivery) => Ok(delivery.clone()),
            _ => Err(format!("{found:#?}")),
        }
    })
}

/// Asserts that `request` is a delivery of `event` as documented: a POST
/// of JSON `{"event", "delivery", "time", "data"}`, its headers, and a
/// signature that verifies with `hook`'s secret. Returns the body.
#[track_caller]
pub fn assert_delivery(request: &Received, hook: &Hook, event: &str) -> Value {
    assert_eq!(request.method, "POST", "{request:?}");
    assert_eq!(
        request.header("content-type"),
        Some("application/json"),
        "{request:?}"
    );
    assert_eq!(request.header("x-devmgr-event"), Some(event), "{request:?}");
    let body = request.json();
    assert_eq!(
        keys(&body),
        ["data", "delivery", "event", "time"],
        "{body:#}"
    );
    assert_eq!(body["event"], event, "{body:#}");
    assert_eq!(
        request.header("x-devmgr-delivery"),
        body["delivery"].as_str(),
        "{request:?}"
    );
    assert!(is_timestamp(&string(&body, "time")), "{body:#}");
    assert_eq!(
        request.header("x-devmgr-signature"),
        Some(signature_of(&hook.secret, &request.body).as_str()),
        "the signature of {:?}",
        String::from_utf8_lossy(&request.body)
    );
    body
}

/// The alert mails `server` sent so far (subject beginning `Alert `), oldest first.
pub fn alert_mails(server: &Server) -> Vec<MailParts> {
    server
        .mails()
        .iter()
        .map(|m| read_mail(m))
        .filter(|m| m.subject.starts_with("Alert "))
        .collect()
}

/// Waits (up to [`SOON`]) until the alert mails satisfy `ready`; them.
#[track_caller]
pub fn wait_for_alert_mails(
    server: &Server,
    what: &str,
    ready: impl Fn(&[MailParts]) -> bool,
) -> Vec<MailParts> {
    wait_until(what, SOON, || {
        let mails = alert_mails(server);
        if ready(&mails) {
            Ok(mails)
        } else {
            Err(format!("{mails:#?}"))
        }
    })
}
