//! Alerts, monitors and webhooks in the console over plain HTTP, as a
//! browser without script uses them (docs/console.md, Alerts, Monitors and
//! Webhooks), on both stores: "Alert me when any of these is offline…" on a
//! filtered fleet view makes the API's monitor with that view's selector;
//! refused fields create nothing and show the API's messages; the alert it
//! opens is listed with its monitor, device and reason; Snooze and Delete
//! act as the API's; a new webhook's secret is shown once and never again,
//! "Send ping" adds a delivery to its log; another account's monitor or
//! webhook does not exist for any page or form.

use crate::alerting_support::{
    WINDOW, alerting_server, alerts, create_webhook, device_monitor, wait_for_alerts,
};
use crate::support::*;
use serde_json::{Value, json};

/// Text as the console's templates write it into HTML.
fn escaped(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&#34;")
        .replace('\'', "&#39;")
}

/// The id at the end of a redirect to `<prefix><id>/`, and its notice code.
#[track_caller]
fn redirect_id(reply: &Reply, prefix: &str) -> (String, String) {
    assert_eq!(reply.status, 303, "{reply}");
    let path = location_path(reply);
    let id = path
        .strip_prefix(prefix)
        .and_then(|rest| rest.strip_suffix('/'))
        .unwrap_or_else(|| panic!("not under {prefix}: {path}\n{reply}"));
    let location = reply.header("location").unwrap_or_default();
    let notice = location.split("notice=").nth(1).unwrap_or_default();
    (id.to_owned(), notice.to_owned())
}

/// `GET <path>` through the API as `token`.
fn api(server: &Server, token: &str, path: &str) -> Reply {
    server.get(path).token(token).send()
}

e2e!(a_monitor_made_from_the_fleet_view_is_the_apis);
fn a_monitor_made_from_the_fleet_view_is_the_apis() {
    let server = alerting_server().start();
    let alice = server.account("alice@example.com");
    let lab: Vec<String> = ["Lab 1", "Lab 2"]
        .iter()
        .map(|name| {
            string(
                &server.device(&alice.email, name, &["--tag", "lab", "--online"]),
                "serial",
            )
        })
        .collect();
    server.device(&alice.email, "Office printer", &[]);
    let mut browser = Console::new(&server);
    browser.sign_in(&alice.email, PASSWORD);
    let fleet = browser.get("/console/?tag=lab");
    assert!(
        fleet
            .body
            .contains(r#"href="/console/monitors/new/?tag=lab""#),
        "{fleet}"
    );
    assert!(
        fleet
            .body
            .contains("Alert me when any of these is offline…"),
        "{fleet}"
    );
    let new = "/console/monitors/new/?tag=lab";
    let form = browser.get(new);
    assert_eq!(form.status, 200, "{form}");
    for shown in ["2 devices", "tagged lab", "Offline: tagged lab", "10 min"] {
        assert!(form.body.contains(shown), "{shown}\n{form}");
    }

    // Refused fields: the API's messages beside them, no monitor.
    let reply = browser.submit(
        new,
        "Create monitor",
        &[
            ("Name", "  "),
            ("Alert me when", "fleet_offline_ratio"),
            ("Share offline (%)", "150"),
            ("For at least", "1"),
        ],
    );
    assert_eq!(reply.status, 400, "{reply}");
    for message in [
        "This field may not be blank.",
        "Ensure this value is less than or equal to 100.",
        &format!("Ensure this value is greater than or equal to {WINDOW}."),
    ] {
        assert!(reply.body.contains(message), "{message}\n{reply}");
    }
    let reply = browser.submit(
        new,
        "Create monitor",
        &[("Alert me when", "toaster"), ("For at least", "600")],
    );
    assert_eq!(reply.status, 400, "{reply}");
    assert!(
        reply
            .body
            .contains(&escaped(r#""toaster" is not a valid choice."#)),
        "{reply}"
    );
    assert_eq!(api(&server, &alice.token, "/monitors/").json()["count"], 0);

    // Any of the lab's devices offline for the online window: the API's
    // monitor over the view's selector.
    let reply = browser.submit(
        new,
        "Create monitor",
        &[
            ("Name", "Lab offline"),
            ("Alert me when", "device_offline"),
            ("For at least", &WINDOW.to_string()),
        ],
    );
    let (id, notice) = redirect_id(&reply, "/console/monitors/");
    assert_eq!(notice, "monitor-created");
    let monitor = api(&server, &alice.token, &format!("/monitors/{id}/")).json();
    assert_eq!(monitor["name"], "Lab offline", "{monitor}");
    assert_eq!(monitor["kind"], "device_offline", "{monitor}");
    assert_eq!(monitor["selector"], json!({"tags": ["lab"]}), "{monitor}");
    assert_eq!(monitor["after_seconds"], WINDOW, "{monitor}");
    assert_eq!(monitor["ratio"], Value::Null, "{monitor}");
    let page = browser.get(&format!("/console/monitors/{id}/?notice=monitor-created"));
    for shown in [
        "Lab offline",
        "any device offline for 2 s",
        "tagged lab",
        "not snoozed",
    ] {
        assert!(page.body.contains(shown), "{shown}\n{page}");
    }

    // A share of the offline devices, typed as a percentage.
    let reply = browser.submit(
        "/console/monitors/new/?status=offline",
        "Create monitor",
        &[
            ("Alert me when", "fleet_offline_ratio"),
            ("Share offline (%)", "25"),
            ("For at least", "300"),
        ],
    );
    let (fleet_id, _) = redirect_id(&reply, "/console/monitors/");
    let fleet = api(&server, &alice.token, &format!("/monitors/{fleet_id}/")).json();
    assert_eq!(fleet["kind"], "fleet_offline_ratio", "{fleet}");
    assert_eq!(fleet["ratio"], 0.25, "{fleet}");
    assert_eq!(fleet["after_seconds"], 300, "{fleet}");
    assert_eq!(fleet["selector"], json!({"online": false}), "{fleet}");
    assert_eq!(fleet["name"], "Offline: offline", "{fleet}");

    // The lab's devices fall silent: their alerts, on the Alerts page.
    let open = wait_for_alerts(
        &server,
        &alice.token,
        &format!("monitor={id}"),
        "two lab alerts",
        |found| found.len() == 2,
    );
    let list = browser.get("/console/alerts/");
    assert_eq!(list.status, 200, "{list}");
    for alert in &open {
        assert!(
            list.body.contains(&escaped(&string(alert, "reason"))),
            "{alert}\n{list}"
        );
    }
    for serial in &lab {
        assert!(
            list.body
                .contains(&format!("href=\"/console/devices/{serial}/\"")),
            "{list}"
        );
    }
    assert!(
        list.body
            .contains(&format!("href=\"/console/monitors/{id}/\">Lab offline</a>")),
        "{list}"
    );
    assert!(list.body.contains("2 alerts."), "{list}");
    let resolved = browser.get("/console/alerts/?state=resolved");
    assert!(
        resolved.body.contains("No alert matches these filters"),
        "{resolved}"
    );
    let page = browser.get(&format!("/console/monitors/{id}/"));
    assert!(page.body.contains("2 open alerts"), "{page}");

    // Snooze from the list for 8 h, then end it.
    let reply = browser.submit("/console/monitors/", "Snooze Lab offline for 8 h", &[]);
    assert_eq!(reply.status, 303, "{reply}");
    assert_eq!(location_path(&reply), "/console/monitors/");
    let snoozed = api(&server, &alice.token, &format!("/monitors/{id}/")).json();
    assert!(snoozed["snoozed_until"].is_string(), "{snoozed}");
    let list = browser.get("/console/monitors/");
    assert!(list.body.contains("snoozed until"), "{list}");
    let reply = browser.submit(
        &format!("/console/monitors/{id}/"),
        "End snooze of Lab offline",
        &[],
    );
    assert_eq!(
        redirect_id(&reply, "/console/monitors/").1,
        "monitor-snooze-ended"
    );
    let ended = api(&server, &alice.token, &format!("/monitors/{id}/")).json();
    assert_eq!(ended["snoozed_until"], Value::Null, "{ended}");

    // Delete, confirmed: the monitor and its alerts are gone.
    let delete = format!("/console/monitors/{id}/delete/");
    let reply = browser.submit(&delete, "Delete monitor now", &[]);
    assert_eq!(reply.status, 303, "{reply}");
    assert_eq!(
        api(&server, &alice.token, &format!("/monitors/{id}/")).status,
        404
    );
    assert!(alerts(&server, &alice.token, &format!("monitor={id}")).is_empty());
    assert_eq!(browser.get(&delete).status, 404);
    let list = browser.get("/console/monitors/");
    assert!(!list.body.contains("Lab offline"), "{list}");
}

e2e!(a_webhooks_secret_is_shown_once_and_ping_adds_a_delivery);
fn a_webhooks_secret_is_shown_once_and_ping_adds_a_delivery() {
    // Without --allow-private-webhooks: the address rule applies.
    let server = Server::builder().throttle_off().start();
    let alice = server.account("alice@example.com");
    let mut browser = Console::new(&server);
    browser.sign_in(&alice.email, PASSWORD);
    let new = "/console/webhooks/new/";
    let form = browser.get(new);
    assert_eq!(form.status, 200, "{form}");
    assert_eq!(
        form.body.matches(" checked>").count(),
        4,
        "every event checked\n{form}"
    );
    let reply = browser.submit(
        new,
        "Create webhook",
        &[
            ("Target URL", "ftp://example.com/"),
            ("Secret (optional)", "short"),
        ],
    );
    assert_eq!(reply.status, 400, "{reply}");
    assert!(reply.body.contains("Enter a valid URL."), "{reply}");
    assert!(
        reply
            .body
            .contains("Ensure this field has at least 16 characters."),
        "{reply}"
    );
    let reply = browser.submit(
        new,
        "Create webhook",
        &[("Target URL", "http://127.0.0.1:9/hook")],
    );
    assert_eq!(reply.status, 400, "{reply}");
    assert!(
        reply
            .body
            .contains("Webhooks may not target loopback, private or link-local addresses."),
        "{reply}"
    );
    assert_eq!(api(&server, &alice.token, "/webhooks/").json()["count"], 0);

    // Created: the secret shown this once.
    let secret = "console-secret-0123456789";
    let target = "https://203.0.113.10/devmgr-events";
    let reply = browser.submit(
        new,
        "Create webhook",
        &[("Target URL", target), ("Secret (optional)", secret)],
    );
    assert_eq!(reply.status, 201, "{reply}");
    assert!(reply.body.contains(secret), "{reply}");
    assert!(reply.body.contains("it is not shown again"), "{reply}");
    assert_eq!(reply.header("cache-control"), Some("no-store"), "{reply}");
    let listed = api(&server, &alice.token, "/webhooks/").json();
    assert_eq!(listed["count"], 1, "{listed}");
    let hook = &listed["results"][0];
    let id = string(hook, "id");
    assert_eq!(hook["target_url"], target, "{hook}");
    assert_eq!(
        hook["events"],
        json!([
            "alert.opened",
            "alert.resolved",
            "job.completed",
            "job.halted"
        ]),
        "{hook}"
    );
    let page_path = format!("/console/webhooks/{id}/");
    for path in [
        "/console/webhooks/",
        page_path.as_str(),
        &format!("{page_path}delete/"),
    ] {
        let page = browser.get(path);
        assert_eq!(page.status, 200, "{path}\n{page}");
        assert!(
            !page.body.contains(secret),
            "the secret again on {path}\n{page}"
        );
    }

    // Without a secret, one is chosen: 40 hex digits, shown once.
    let reply = browser.submit(
        new,
        "Create webhook",
        &[("Target URL", "https://203.0.113.11/other")],
    );
    assert_eq!(reply.status, 201, "{reply}");
    let shown = reply
        .body
        .split("id=\"webhook-secret\">")
        .nth(1)
        .unwrap_or_default();
    let chosen: String = shown.chars().take_while(char::is_ascii_hexdigit).collect();
    assert_eq!(chosen.len(), 40, "{reply}");

    // Send ping: a delivery in the API's log and on the page.
    let reply = browser.submit(&page_path, "Send ping", &[]);
    assert_eq!(
        redirect_id(&reply, "/console/webhooks/"),
        (id.clone(), "webhook-pinged".to_owned())
    );
    let log = api(
        &server,
        &alice.token,
        &format!("/webhooks/{id}/deliveries/"),
    )
    .json();
    assert_eq!(log["count"], 1, "{log}");
    assert_eq!(log["results"][0]["event"], "ping", "{log}");
    let delivery = string(&log["results"][0], "id");
    let page = browser.get(&page_path);
    assert!(
        page.body.contains(&format!("data-id=\"{delivery}\"")),
        "{page}"
    );
    assert!(page.body.contains("1 delivery."), "{page}");

    // Delete, confirmed.
    let reply = browser.submit(&format!("{page_path}delete/"), "Delete webhook now", &[]);
    assert_eq!(reply.status, 303, "{reply}");
    assert_eq!(
        api(&server, &alice.token, &format!("/webhooks/{id}/")).status,
        404
    );
    assert_eq!(browser.get(&page_path).status, 404);
}

e2e!(another_accounts_monitor_and_webhook_do_not_exist_in_the_console);
fn another_accounts_monitor_and_webhook_do_not_exist_in_the_console() {
    let server = alerting_server().start();
    let alice = server.account("alice@example.com");
    let bob = server.account("bob@example.com");
    server.device(&bob.email, "Bobs Secret Box", &["--online"]);
    let theirs = string(
        &device_monitor(
            &server,
            &bob.token,
            "Bobs Secret Monitor",
            json!({"all": true}),
        ),
        "id",
    );
    let hook = create_webhook(&server, &bob.token, "http://127.0.0.1:9/bob", None);
    wait_for_alerts(&server, &bob.token, "", "bob's alert", |found| {
        found.len() == 1
    });
    let mut browser = Console::new(&server);
    browser.sign_in(&alice.email, PASSWORD);
    let upper = theirs.to_uppercase();
    for path in [
        format!("/console/monitors/{theirs}/"),
        format!("/console/monitors/{theirs}/delete/"),
        format!("/console/monitors/{upper}/"),
        "/console/monitors/not-a-monitor/".to_owned(),
        format!("/console/webhooks/{}/", hook.id),
        format!("/console/webhooks/{}/delete/", hook.id),
        "/console/webhooks/nope/".to_owned(),
    ] {
        let reply = browser.get(&path);
        assert_eq!(reply.status, 404, "{path}\n{reply}");
        assert!(!reply.body.contains("Bobs Secret"), "{reply}");
    }
    // Alice's own forms, with her valid CSRF token, aimed at bob's.
    let own = string(
        &device_monitor(
            &server,
            &alice.token,
            "Alices monitor",
            json!({"all": true}),
        ),
        "id",
    );
    let form = browser.form(
        &format!("/console/monitors/{own}/"),
        "Snooze Alices monitor for 1 h",
    );
    for path in [
        format!("/console/monitors/{theirs}/snooze/"),
        format!("/console/monitors/{theirs}/delete/"),
        format!("/console/webhooks/{}/ping/", hook.id),
        format!("/console/webhooks/{}/delete/", hook.id),
    ] {
        let reply = browser.post(&path, &form.body(&[]));
        assert_eq!(reply.status, 404, "{path}\n{reply}");
    }
    let monitor = api(&server, &bob.token, &format!("/monitors/{theirs}/")).json();
    assert_eq!(monitor["snoozed_until"], Value::Null, "{monitor}");
    let log = api(
        &server,
        &bob.token,
        &format!("/webhooks/{}/deliveries/", hook.id),
    )
    .json();
    let pings = log["results"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|delivery| delivery["event"] == "ping")
        .count();
    assert_eq!(pings, 0, "{log}");
    assert_eq!(
        api(&server, &bob.token, &format!("/webhooks/{}/", hook.id)).status,
        200
    );
    for path in [
        "/console/alerts/".to_owned(),
        format!("/console/alerts/?monitor={theirs}"),
        "/console/monitors/".to_owned(),
        "/console/webhooks/".to_owned(),
    ] {
        let page = browser.get(&path);
        assert_eq!(page.status, 200, "{path}\n{page}");
        assert!(!page.body.contains("Bobs Secret"), "{path}\n{page}");
        assert!(!page.body.contains(&hook.id), "{path}\n{page}");
        if !path.contains('?') {
            assert!(!page.body.contains(&theirs), "{path}\n{page}");
        }
    }
    let filtered = browser.get(&format!("/console/alerts/?monitor={theirs}"));
    assert!(
        filtered.body.contains("No alert matches these filters"),
        "{filtered}"
    );
}
