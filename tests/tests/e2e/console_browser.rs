//! The web console (docs/console.md) in a real browser, as people use it: the
//! scripts of `tests/browser/console_*.mjs` (playwright-core driving the
//! machine's chromium) walk through its journeys; on every page axe-core
//! 4.14 finds no serious or critical violation, nothing scrolls sideways at
//! 360 px, the page logs no error and breaks no Content-Security-Policy rule.
//! Screenshots of every page are left in `target/<profile>/console/`.
//!
//! The browser tests run on SQLite only: what they add over the HTTP tests
//! (`console_security`, `console_sessions`, which run on both backends) is
//! the pages' behaviour in a browser, which the database does not change.

use crate::console_runner::*;
use crate::device_support::*;
use crate::support::*;
use serde_json::{Value, json};

/// Removes earlier runs' screenshots of these names, so that the check after
/// the run sees this run's.
fn forget(names: &[&str]) {
    for name in names {
        let _ = std::fs::remove_file(screenshots().join(format!("{name}.png")));
    }
}

const JOURNEY_SHOTS: &[&str] = &[
    "login",
    "register",
    "reset-password",
    "fleet-unverified",
    "verified",
    "fleet-empty",
    "account",
    "add-device",
    "fleet",
    "fleet-phone",
    "fleet-dark",
    "device",
    "device-phone",
    "device-dark",
    "reboot-dialog",
    "edit",
    "delete-dialog",
];

e2e!(console_journey_from_registration_to_an_empty_fleet);
fn console_journey_from_registration_to_an_empty_fleet() {
    let server = Server::start();
    forget(JOURNEY_SHOTS);
    let email = "alice@example.com";
    let report = run_script(
        &server,
        "console_journeys.mjs",
        &[("DEVMGR_EMAIL", email), ("DEVMGR_PASSWORD", PASSWORD)],
    );
    report.assert_clean();
    assert_screenshots(JOURNEY_SHOTS);
    // What the browser did, seen through the API: the account is verified,
    // has its password and name, and no device is left.
    let token = server.login_token(email, PASSWORD);
    let profile = profile(&server, &token);
    assert_eq!(profile["name"], "Alice Example", "{profile}");
    server
        .get("/devices/")
        .token(&token)
        .send()
        .expect(200, json!([]));
}

e2e!(console_of_a_private_instance_offers_no_registration: sqlite);
fn console_of_a_private_instance_offers_no_registration() {
    let server = Server::builder()
        .args(&["--registration", "closed"])
        .start();
    let shots = ["register-closed", "register-closed-phone"];
    forget(&shots);
    run_script(&server, "console_closed.mjs", &[]).assert_clean();
    assert_screenshots(&shots);
}

e2e!(console_sign_in_failures_lockout_and_password_reset: sqlite);
fn console_sign_in_failures_lockout_and_password_reset() {
    let server = Server::start();
    let shots = ["login-refused", "login-locked", "set-password"];
    forget(&shots);
    let known = server.account("bob@example.com");
    let unverified = server.account_with("carol@example.com", &[]);
    let locked = server.account("dave@example.com");
    let new_password = "Brisk-Meadow-Harbour-77";
    let report = run_script(
        &server,
        "console_accounts.mjs",
        &[
            ("DEVMGR_EMAIL", known.email.as_str()),
            ("DEVMGR_UNVERIFIED", unverified.email.as_str()),
            ("DEVMGR_LOCKED", locked.email.as_str()),
            ("DEVMGR_PASSWORD", PASSWORD),
            ("DEVMGR_NEW_PASSWORD", new_password),
        ],
    );
    report.assert_clean();
    assert_screenshots(&shots);
    // The reset through the console is the API's: the old token ended (§6.2)
    // and the new password logs in.
    server
        .get("/profile/")
        .token(&locked.token)
        .send()
        .expect_401(INVALID_TOKEN);
    server.login_token(&locked.email, new_password);
}

e2e!(console_search_filters_as_you_type_and_status_changes_live);
fn console_search_filters_as_you_type_and_status_changes_live() {
    // Long enough for the row and the count to turn Online before the
    // window lapses on a loaded machine (CI once: the row took over 4 s,
    // and by then a 4 s window had ended), short enough to see it lapse.
    let window = 10;
    let server = Server::builder().online_window(window).start();
    let alice = server.account("alice@example.com");
    let kitchen = install(&server, &alice, "Kitchen Pi");
    server.device(
        &alice.email,
        "Garage NAS",
        &["--description", "Backups in the garage"],
    );
    let printer = string(
        &server.device(&alice.email, "Office printer <img src=x>", &[]),
        "serial",
    );
    let window_text = window.to_string();
    let report = run_script(
        &server,
        "console_live.mjs",
        &[
            ("DEVMGR_EMAIL", alice.email.as_str()),
            ("DEVMGR_PASSWORD", PASSWORD),
            ("DEVMGR_DEVICE_TOKEN", kitchen.token.as_str()),
            ("DEVMGR_PRINTER_SERIAL", printer.as_str()),
            ("DEVMGR_ONLINE_WINDOW", window_text.as_str()),
        ],
    );
    report.assert_clean();
}

e2e!(console_sign_in_and_reboot_by_keyboard_alone: sqlite);
fn console_sign_in_and_reboot_by_keyboard_alone() {
    let server = Server::start();
    let alice = server.account("alice@example.com");
    let serial = string(&server.device(&alice.email, "Kitchen Pi", &[]), "serial");
    let report = run_script(
        &server,
        "console_keyboard.mjs",
        &[
            ("DEVMGR_EMAIL", alice.email.as_str()),
            ("DEVMGR_PASSWORD", PASSWORD),
            ("DEVMGR_SERIAL", serial.as_str()),
        ],
    );
    report.assert_clean();
    let commands = server
        .get(&format!("/devices/{serial}/commands/"))
        .token(&alice.token)
        .send()
        .json();
    assert_eq!(commands[0]["action"], "reboot", "{commands}");
    assert_eq!(commands[0]["status"], "pending", "{commands}");
}

e2e!(console_reboot_edit_and_delete_work_without_script: sqlite);
fn console_reboot_edit_and_delete_work_without_script() {
    let server = Server::start();
    forget(&["reboot-confirm", "delete-confirm"]);
    let alice = server.account("alice@example.com");
    let serial = string(&server.device(&alice.email, "Kitchen Pi", &[]), "serial");
    let report = run_script(
        &server,
        "console_noscript.mjs",
        &[
            ("DEVMGR_EMAIL", alice.email.as_str()),
            ("DEVMGR_PASSWORD", PASSWORD),
            ("DEVMGR_SERIAL", serial.as_str()),
        ],
    );
    report.assert_clean();
    assert_screenshots(&["reboot-confirm", "delete-confirm"]);
    server
        .get("/devices/")
        .token(&alice.token)
        .send()
        .expect(200, json!([]));
}

e2e!(console_pages_fit_360_px_with_the_longest_names: sqlite);
fn console_pages_fit_360_px_with_the_longest_names() {
    let server = Server::start();
    let alice = server.account("a.very.long.address.to.see.how.headers.wrap@devices.example.com");
    let agent = install(&server, &alice, &"N".repeat(100));
    server
        .patch(&format!("/devices/{}/", agent.serial))
        .token(&alice.token)
        .json(&json!({"description": "D".repeat(1000)}))
        .send()
        .expect_status(200);
    let port_name = "p".repeat(64);
    heartbeat(
        &server,
        &agent.token,
        &json!({
            "agent_version": format!("1.0.0-{}", "z".repeat(60)),
            "operating_system": format!("Debian-{}", "x".repeat(120)),
            "uname": format!("Linux-{}", "y".repeat(200)),
            "ports": [{"port": 65535, "protocol": "udp", "name": port_name}],
        }),
    );
    server
        .post(&format!("/devices/{}/reboot/", agent.serial))
        .token(&alice.token)
        .send()
        .expect_status(202);
    let report = run_script(
        &server,
        "console_layout.mjs",
        &[
            ("DEVMGR_EMAIL", alice.email.as_str()),
            ("DEVMGR_PASSWORD", PASSWORD),
            ("DEVMGR_SERIAL", agent.serial.as_str()),
        ],
    );
    report.assert_clean();
}

e2e!(console_fleet_view_filters_pages_and_tags: sqlite);
fn console_fleet_view_filters_pages_and_tags() {
    let server = Server::builder().throttle_off().online_window(900).start();
    let shots = [
        "device-tags-refused",
        "device-tags",
        "device-tags-phone",
        "fleet-filtered",
        "fleet-filtered-phone",
        "fleet-filtered-dark",
        "fleet-no-match",
        "tag-devices",
        "tag-devices-phone",
        "tag-devices-refused",
        "fleet-tagged",
        "fleet-tagged-phone",
        "fleet-tagged-dark",
        "fleet-tagged-top",
    ];
    forget(&shots);
    let alice = server.account("alice@example.com");
    let report = run_script(
        &server,
        "console_fleet.mjs",
        &[
            ("DEVMGR_EMAIL", alice.email.as_str()),
            ("DEVMGR_PASSWORD", PASSWORD),
        ],
    );
    report.assert_clean();
    assert_screenshots(&shots);
    // What the browser did, seen through the API: the sensors carry the
    // tags added at once, the kitchen its own less the one removed without
    // script.
    let devices = server.get("/devices/").token(&alice.token).send().json();
    let devices = devices.as_array().expect("a list");
    assert_eq!(devices.len(), 55, "{devices:?}");
    for device in devices {
        let name = device["name"].as_str().unwrap_or_default();
        if name.starts_with("Sensor") {
            assert_eq!(device["tags"], json!(["batch:7", "field"]), "{device}");
        } else if name == "Kitchen Pi" {
            assert_eq!(device["tags"], json!(["lab"]), "{device}");
        }
    }
}

e2e!(console_jobs_reboot_a_filtered_selection_in_waves_live: sqlite);
fn console_jobs_reboot_a_filtered_selection_in_waves_live() {
    let server = Server::builder().throttle_off().online_window(900).start();
    let shots = [
        "reboot-devices",
        "reboot-devices-phone",
        "reboot-devices-refused",
        "job",
        "job-phone",
        "job-dark",
        "job-halted",
        "job-halted-dark",
        "job-cancel-dialog",
        "job-cancelled",
        "jobs",
        "jobs-phone",
    ];
    forget(&shots);
    let alice = server.account("alice@example.com");
    let agents: Vec<Value> = (1..=4)
        .map(|n| {
            let name = format!("Lab Pi {n}");
            let agent = install(&server, &alice, &name);
            server
                .patch(&format!("/devices/{}/", agent.serial))
                .token(&alice.token)
                .json(&json!({"tags": ["lab"]}))
                .send()
                .expect_status(200);
            json!({"name": name, "serial": agent.serial, "token": agent.token})
        })
        .collect();
    install(&server, &alice, "Office printer");
    let agents_json = Value::Array(agents).to_string();
    let report = run_script(
        &server,
        "console_jobs.mjs",
        &[
            ("DEVMGR_EMAIL", alice.email.as_str()),
            ("DEVMGR_PASSWORD", PASSWORD),
            ("DEVMGR_AGENTS", agents_json.as_str()),
        ],
    );
    report.assert_clean();
    assert_screenshots(&shots);
    // What the browser did, seen through the API: two jobs, newest first,
    // both cancelled; the first's targets done, failed, done and skipped
    // in its waves' order.
    let jobs = server.get("/jobs/").token(&alice.token).send().json();
    assert_eq!(jobs["count"], 2, "{jobs}");
    let first = &jobs["results"][1];
    assert_eq!(first["status"], "cancelled", "{first}");
    assert_eq!(first["wave_size"], 1, "{first}");
    assert_eq!(first["selector"], json!({"tags": ["lab"]}), "{first}");
    let counts = &first["counts"];
    let tally = ["done", "failed", "skipped"].map(|status| counts[status].clone());
    assert_eq!(tally, [json!(2), json!(1), json!(1)], "{first}");
}

e2e!(console_alerts_follow_a_silent_device_live: sqlite);
fn console_alerts_follow_a_silent_device_live() {
    let server = Server::builder().throttle_off().online_window(2).start();
    let shots = [
        "monitor-new",
        "monitor-new-phone",
        "monitor-new-refused",
        "monitor",
        "alerts",
        "alerts-phone",
        "alerts-dark",
        "alerts-resolved",
        "monitors",
        "monitors-phone",
        "webhook-new",
        "webhook-created",
        "webhook-created-phone",
        "webhook",
        "webhook-phone",
    ];
    forget(&shots);
    let alice = server.account("alice@example.com");
    let agents: Vec<Value> = (1..=2)
        .map(|n| {
            let name = format!("Lab Pi {n}");
            let agent = install(&server, &alice, &name);
            server
                .patch(&format!("/devices/{}/", agent.serial))
                .token(&alice.token)
                .json(&json!({"tags": ["lab"]}))
                .send()
                .expect_status(200);
            json!({"name": name, "serial": agent.serial, "token": agent.token})
        })
        .collect();
    install(&server, &alice, "Office printer");
    let agents_json = Value::Array(agents).to_string();
    let report = run_script(
        &server,
        "console_alerts.mjs",
        &[
            ("DEVMGR_EMAIL", alice.email.as_str()),
            ("DEVMGR_PASSWORD", PASSWORD),
            ("DEVMGR_AGENTS", agents_json.as_str()),
        ],
    );
    report.assert_clean();
    assert_screenshots(&shots);
    // What the browser did, seen through the API: the monitor deleted with
    // its alerts, one webhook of every event, whose log holds the ping.
    let monitors = server.get("/monitors/").token(&alice.token).send().json();
    assert_eq!(monitors["count"], 0, "{monitors}");
    let alerts = server.get("/alerts/").token(&alice.token).send().json();
    assert_eq!(alerts["count"], 0, "{alerts}");
    let webhooks = server.get("/webhooks/").token(&alice.token).send().json();
    assert_eq!(webhooks["count"], 1, "{webhooks}");
    let hook = &webhooks["results"][0];
    assert_eq!(
        hook["target_url"], "https://203.0.113.10/devmgr-events",
        "{hook}"
    );
    let id = hook["id"].as_str().unwrap_or_default();
    let log = server
        .get(&format!("/webhooks/{id}/deliveries/"))
        .token(&alice.token)
        .send()
        .json();
    let events: Vec<&Value> = log["results"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|delivery| &delivery["event"])
        .collect();
    assert!(events.contains(&&json!("ping")), "{log}");
}
