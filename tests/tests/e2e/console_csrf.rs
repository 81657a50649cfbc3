//! The console's CSRF protection over plain HTTP (docs/console.md, Sessions and security):
//! every form of every page carries a hidden CSRF token, and a post without
//! it, with a made-up one or with another session's is refused with 403 and
//! changes nothing (monitors, webhooks and their buttons included).

use crate::console_security::signed_in_pages;
use crate::support::*;
use serde_json::json;

/// Every post form of the console's pages for alice (signed in, one device),
/// and of `more` pages, with the confirmation pages that get forms lead to.
fn post_forms(browser: &mut Console<'_>, serial: &str, more: &[String]) -> Vec<Form> {
    let mut found: Vec<Form> = Vec::new();
    let mut pages = signed_in_pages(serial);
    pages.extend_from_slice(more);
    let mut seen = Vec::new();
    while let Some(page) = pages.pop() {
        if seen.contains(&page) {
            continue;
        }
        seen.push(page.clone());
        let reply = browser.get(&page);
        assert_eq!(reply.status, 200, "{reply}");
        for form in forms(&reply.body, &page) {
            if form.method == "get"
                && form.action.starts_with("/console/")
                && !form.action.contains("/events/")
            {
                let query = form_encode(&form.body(&[]));
                pages.push(if query.is_empty() {
                    form.action.clone()
                } else {
                    format!("{}?{query}", form.action)
                });
            } else if form.method == "post"
                && !found
                    .iter()
                    .any(|f| f.action == form.action && f.buttons == form.buttons)
            {
                found.push(form);
            }
        }
    }
    found
}

e2e!(every_console_form_refuses_a_post_without_a_valid_csrf_token);
fn every_console_form_refuses_a_post_without_a_valid_csrf_token() {
    let server = Server::start();
    let alice = server.account("alice@example.com");
    let bob = server.account("bob@example.com");
    let serial = server.device_serial(&alice.email);
    let mut browser = Console::new(&server);
    browser.sign_in(&alice.email, PASSWORD);
    let mut other = Console::new(&server);
    other.sign_in(&bob.email, PASSWORD);
    let bobs_form = other.form("/console/account/", "Log out");
    // A job scheduled far ahead: its page has the forms of a job.
    let job = server
        .post("/jobs/")
        .token(&alice.token)
        .json(&json!({
            "action": "reboot",
            "selector": {"serials": [serial]},
            "start_time": "2999-01-01T00:00:00",
        }))
        .send();
    job.expect_status(201);
    let job_id = job.json()["id"].as_str().expect("a job id").to_owned();
    // A monitor and a webhook: their pages have their forms.
    let monitor = server
        .post("/monitors/")
        .token(&alice.token)
        .json(&json!({"name": "Watched", "kind": "device_offline",
            "selector": {"all": true}, "after_seconds": 600}))
        .send();
    monitor.expect_status(201);
    let monitor_id = monitor.json()["id"]
        .as_str()
        .expect("a monitor id")
        .to_owned();
    let webhook = server
        .post("/webhooks/")
        .token(&alice.token)
        .json(&json!({"target_url": "https://203.0.113.10/csrf"}))
        .send();
    webhook.expect_status(201);
    let webhook_id = webhook.json()["id"]
        .as_str()
        .expect("a webhook id")
        .to_owned();
    let job_pages = [
        "/console/jobs/".to_owned(),
        format!("/console/jobs/{job_id}/"),
        "/console/reboot-devices/".to_owned(),
        "/console/alerts/".to_owned(),
        "/console/monitors/".to_owned(),
        format!("/console/monitors/{monitor_id}/"),
        format!("/console/monitors/{monitor_id}/delete/"),
        "/console/monitors/new/?tag=lab".to_owned(),
        "/console/webhooks/".to_owned(),
        "/console/webhooks/new/".to_owned(),
        format!("/console/webhooks/{webhook_id}/"),
        format!("/console/webhooks/{webhook_id}/delete/"),
    ];
    let forms = post_forms(&mut browser, &serial, &job_pages);
    let buttons: Vec<&String> = forms.iter().flat_map(|f| &f.buttons).collect();
    for expected in [
        "Log out",
        "Save",
        "Change password",
        "New install token",
        "Log out everywhere",
        "Change tags",
        "Reboot devices",
        "Create monitor",
        "Snooze Watched for 8 h",
        "Delete monitor now",
        "Create webhook",
        "Send ping",
        "Delete webhook now",
    ] {
        assert!(
            buttons.iter().any(|b| *b == expected),
            "no post form with {expected:?}: {buttons:?}"
        );
    }
    for expected in [
        ["Reboot", "Reboot now"],
        ["Delete device", "Delete"],
        ["Cancel job", "Cancel job now"],
    ] {
        assert!(
            buttons.iter().any(|b| expected.contains(&b.as_str())),
            "no post form for {expected:?}: {buttons:?}"
        );
    }
    for form in &forms {
        let csrf = form.csrf_fields();
        assert!(
            !csrf.is_empty(),
            "a form without a hidden CSRF field: {form:#?}"
        );
        let body = form.body(&[]);
        let without: Vec<_> = body
            .iter()
            .filter(|(n, _)| !csrf.contains(n))
            .cloned()
            .collect();
        let reply = browser.post(&form.action, &without);
        assert_eq!(
            reply.status, 403,
            "without a CSRF token: {form:#?}\n{reply}"
        );
        for wrong in [
            "wrong".to_owned(),
            bobs_form
                .body(&[])
                .into_iter()
                .find(|(n, _)| csrf.contains(n))
                .map(|(_, v)| v)
                .unwrap_or_default(),
        ] {
            let forged: Vec<_> = body
                .iter()
                .map(|(n, v)| {
                    if csrf.contains(n) {
                        (n.clone(), wrong.clone())
                    } else {
                        (n.clone(), v.clone())
                    }
                })
                .collect();
            let reply = browser.post(&form.action, &forged);
            assert_eq!(
                reply.status, 403,
                "with the CSRF token {wrong:?}: {form:#?}\n{reply}"
            );
        }
    }
    // Nothing happened: still signed in, the device there without a command,
    // the API token alive.
    assert_eq!(browser.get("/console/").status, 200);
    let commands = server
        .get(&format!("/devices/{serial}/commands/"))
        .token(&alice.token)
        .send();
    commands.expect(200, json!([]));
    let device = server
        .get(&format!("/devices/{serial}/"))
        .token(&alice.token)
        .send()
        .json();
    assert_eq!(device["tags"], json!([]), "{device}");
    let jobs = server.get("/jobs/").token(&alice.token).send().json();
    assert_eq!(jobs["count"], 1, "no job made: {jobs}");
    assert_eq!(jobs["results"][0]["status"], "scheduled", "{jobs}");
    let monitor = server
        .get(&format!("/monitors/{monitor_id}/"))
        .token(&alice.token)
        .send()
        .json();
    assert_eq!(
        monitor["snoozed_until"],
        json!(null),
        "not snoozed: {monitor}"
    );
    let monitors = server.get("/monitors/").token(&alice.token).send().json();
    assert_eq!(
        monitors["count"], 1,
        "no monitor made or deleted: {monitors}"
    );
    let webhooks = server.get("/webhooks/").token(&alice.token).send().json();
    assert_eq!(
        webhooks["count"], 1,
        "no webhook made or deleted: {webhooks}"
    );
    let deliveries = server
        .get(&format!("/webhooks/{webhook_id}/deliveries/"))
        .token(&alice.token)
        .send()
        .json();
    assert_eq!(deliveries["count"], 0, "no ping: {deliveries}");
    server
        .get("/profile/")
        .token(&alice.token)
        .send()
        .expect_status(200);
    // Signed out, the forms that need no session refuse a missing token too.
    let mut stranger = Console::new(&server);
    for (page, button, filled) in [
        (
            "/console/login/",
            "Log in",
            vec![("E-mail", alice.email.as_str()), ("Password", PASSWORD)],
        ),
        (
            "/console/register/",
            "Create account",
            vec![("E-mail", "carol@example.com")],
        ),
        (
            "/console/reset-password/",
            "Send reset link",
            vec![("E-mail", alice.email.as_str())],
        ),
    ] {
        let form = stranger.form(page, button);
        let csrf = form.csrf_fields();
        assert!(
            !csrf.is_empty(),
            "a form without a hidden CSRF field: {form:#?}"
        );
        let without: Vec<_> = form
            .body(&filled)
            .into_iter()
            .filter(|(n, _)| !csrf.contains(n))
            .collect();
        let reply = stranger.post(&form.action, &without);
        assert_eq!(reply.status, 403, "{page} without a CSRF token\n{reply}");
    }
    assert_eq!(location_path(&stranger.get("/console/")), "/console/login/");
    server.assert_mail_count_stays(0);
}
