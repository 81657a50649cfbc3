//! The console reads and writes through the API's use cases (docs/console.md,
//! Sessions and security): another account's device does not exist for it, not even in the
//! live updates; its forms show the API's messages beside their fields and
//! refuse what the API refuses; a wrong current password counts as a failed
//! login (§6.6); text is shown as text.

use crate::support::*;
use serde_json::json;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

/// The ids the `aria-describedby` of the field labelled `label` names, and
/// the text of the elements with those ids, in `html`.
fn described(html: &str, label: &str) -> String {
    let form = forms(html, "/")
        .into_iter()
        .find(|form| form.fields.iter().any(|(_, _, _, l)| l == label))
        .unwrap_or_else(|| panic!("no field labelled {label:?} in\n{html}"));
    let name = &form
        .fields
        .iter()
        .find(|(_, _, _, l)| l == label)
        .expect("the field")
        .0;
    let lower = html.to_lowercase();
    let tag = ["<input", "<textarea"]
        .iter()
        .flat_map(|open| {
            lower
                .match_indices(open)
                .map(|(at, _)| at)
                .collect::<Vec<_>>()
        })
        .map(|at| &html[at..at + lower[at..].find('>').unwrap_or(0) + 1])
        .find(|tag| attribute(tag, "name").as_deref() == Some(name.as_str()))
        .expect("the field's tag");
    let ids = attribute(tag, "aria-describedby").unwrap_or_default();
    ids.split_whitespace()
        .map(|id| {
            let marker = format!("id=\"{id}\"");
            let at = html
                .find(&marker)
                .unwrap_or_else(|| panic!("no element #{id} in\n{html}"));
            let start = html[..at].rfind('<').expect("a tag");
            let tag_name: String = html[start + 1..]
                .chars()
                .take_while(char::is_ascii_alphanumeric)
                .collect();
            let close = format!("</{tag_name}");
            let end = html[at..].find(&close).map_or(html.len(), |e| at + e);
            text_of(&html[start..end])
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// What `/console/events/` (with this query) sends alice's session within `for_`.
fn events(server: &Server, browser: &Console<'_>, query: &str, for_: Duration) -> String {
    let address = server.base().trim_start_matches("http://");
    let mut stream = TcpStream::connect(address).expect("the server accepts");
    write!(
        stream,
        "GET /console/events/{query} HTTP/1.1\r\nHost: {address}\r\nAccept: text/event-stream\r\nCookie: {}\r\n\r\n",
        browser.cookie_header()
    )
    .expect("the request is sent");
    stream
        .set_read_timeout(Some(Duration::from_millis(200)))
        .expect("a timeout");
    let deadline = Instant::now() + for_;
    let mut seen = Vec::new();
    let mut buffer = [0; 4096];
    while Instant::now() < deadline {
        match stream.read(&mut buffer) {
            Ok(0) => break,
            Ok(n) => seen.extend_from_slice(&buffer[..n]),
            Err(_) => {}
        }
    }
    String::from_utf8_lossy(&seen).into_owned()
}

e2e!(another_accounts_device_does_not_exist_in_the_console);
fn another_accounts_device_does_not_exist_in_the_console() {
    let server = Server::start();
    let alice = server.account("alice@example.com");
    let bob = server.account("bob@example.com");
    let own = server.device_serial(&alice.email);
    let theirs = string(&server.device(&bob.email, "Bobs Secret Box", &[]), "serial");
    let mut browser = Console::new(&server);
    browser.sign_in(&alice.email, PASSWORD);
    for page in ["", "edit/", "reboot/", "delete/"] {
        let reply = browser.get(&format!("/console/devices/{theirs}/{page}"));
        assert_eq!(reply.status, 404, "{reply}");
        assert!(!reply.body.contains("Bobs Secret Box"), "{reply}");
    }
    // Alice's own forms, aimed at bob's device, with her valid CSRF token.
    for (page, button, filled) in [
        ("reboot/", "Reboot now", vec![]),
        ("delete/", "Delete", vec![]),
        ("edit/", "Save", vec![("Name", "Taken over")]),
    ] {
        let form = browser.form(&format!("/console/devices/{own}/{page}"), button);
        let action = form.action.replace(&own, &theirs);
        assert_ne!(
            action, form.action,
            "the form posts to the device's path: {form:#?}"
        );
        let reply = browser.post(&action, &form.body(&filled));
        assert_eq!(
            reply.status, 404,
            "{button} on another account's device\n{reply}"
        );
    }
    let device = server
        .get(&format!("/devices/{theirs}/"))
        .token(&bob.token)
        .send()
        .json();
    assert_eq!(device["name"], "Bobs Secret Box");
    let commands = server
        .get(&format!("/devices/{theirs}/commands/"))
        .token(&bob.token)
        .send();
    commands.expect(200, json!([]));
    // Nor in the live updates, asked for by serial or not.
    let live = events(
        &server,
        &browser,
        &format!("?device={theirs}"),
        Duration::from_secs(2),
    );
    assert!(!live.contains("Bobs Secret Box"), "{live}");
    let live = events(&server, &browser, "", Duration::from_secs(2));
    assert!(live.starts_with("HTTP/1.1 200"), "{live}");
    assert!(live.contains(&own) && !live.contains(&theirs), "{live}");
}

e2e!(console_forms_show_the_apis_messages_beside_their_fields);
fn console_forms_show_the_apis_messages_beside_their_fields() {
    let server = Server::start();
    let alice = server.account("alice@example.com");
    let serial = server.device_serial(&alice.email);
    let mut browser = Console::new(&server);
    browser.sign_in(&alice.email, PASSWORD);
    let edit = format!("/console/devices/{serial}/edit/");
    for (name, message) in [
        ("\u{200b} ", "This field may not be blank."),
        (
            &"x".repeat(101)[..],
            "Ensure this field has no more than 100 characters.",
        ),
        (
            "Kitchen \u{202e}iP",
            "Bidirectional control characters are not allowed.",
        ),
    ] {
        let reply = browser.submit(&edit, "Save", &[("Name", name)]);
        assert!(
            reply.status < 500 && !matches!(reply.status, 301..=303),
            "{reply}"
        );
        assert!(
            described(&reply.body, "Name").contains(message),
            "{message}\n{reply}"
        );
    }
    let device = server
        .get(&format!("/devices/{serial}/"))
        .token(&alice.token)
        .send()
        .json();
    assert_eq!(
        device["name"], "Test device",
        "nothing the API refuses is saved"
    );

    let reply = browser.submit(
        "/console/account/",
        "Change password",
        &[("Current password", PASSWORD), ("New password", "1234")],
    );
    let said = described(&reply.body, "New password");
    for rule in [
        "This password is too short. It must contain at least 8 characters.",
        "This password is entirely numeric.",
    ] {
        assert!(said.contains(rule), "{rule}\n{reply}");
    }
    let reply = browser.submit("/console/account/", "Save", &[("Name", &"n".repeat(151))]);
    assert!(
        described(&reply.body, "Name")
            .contains("Ensure this field has no more than 150 characters."),
        "{reply}"
    );
}

e2e!(a_wrong_current_password_counts_as_a_failed_login);
fn a_wrong_current_password_counts_as_a_failed_login() {
    let server = Server::start();
    let alice = server.account("alice@example.com");
    let mut browser = Console::new(&server);
    browser.sign_in(&alice.email, PASSWORD);
    for _ in 0..5 {
        let reply = browser.submit(
            "/console/account/",
            "Change password",
            &[
                ("Current password", "not-her-password"),
                ("New password", "Brisk-Meadow-Harbour-77"),
            ],
        );
        assert!(
            described(&reply.body, "Current password")
                .contains("Your old password was entered incorrectly. Please enter it again."),
            "{reply}"
        );
    }
    server.login(&alice.email, PASSWORD).expect_throttled();
    let mut other = Console::new(&server);
    let reply = other.sign_in_attempt(&alice.email, PASSWORD);
    assert!(
        text_of(&reply.body).contains("Request was throttled."),
        "{reply}"
    );
}

e2e!(names_are_shown_as_text_not_markup);
fn names_are_shown_as_text_not_markup() {
    let server = Server::start();
    let alice = server.account("alice@example.com");
    let evil = "<img src=x onerror=alert(1)>\"'&";
    let serial = string(
        &server.device(&alice.email, evil, &["--description", evil]),
        "serial",
    );
    let mut browser = Console::new(&server);
    browser.sign_in(&alice.email, PASSWORD);
    for page in [
        "/console/".to_owned(),
        format!("/console/devices/{serial}/"),
        format!("/console/devices/{serial}/edit/"),
    ] {
        let reply = browser.get(&page);
        reply.expect_status(200);
        assert!(!reply.body.contains("<img src=x"), "{reply}");
        assert!(text_of(&reply.body).contains(evil), "{reply}");
    }
}

e2e!(last_seen_reads_as_relative_time_with_the_exact_time_in_its_title);
fn last_seen_reads_as_relative_time_with_the_exact_time_in_its_title() {
    let server = Server::start();
    let alice = server.account("alice@example.com");
    let agent = crate::device_support::install(&server, &alice, "Kitchen Pi");
    server.device(&alice.email, "Garage NAS", &[]);
    crate::device_support::heartbeat(&server, &agent.token, &json!({}));
    let seen = server
        .get(&format!("/devices/{}/", agent.serial))
        .token(&alice.token)
        .send()
        .json();
    server.advance(Duration::from_secs(3 * 60 + 10));
    let mut browser = Console::new(&server);
    browser.sign_in(&alice.email, PASSWORD);
    let fleet = browser.get("/console/");
    let rows: Vec<&str> = fleet.body.split("<tr").skip(1).collect();
    let kitchen = rows
        .iter()
        .find(|row| row.contains("Kitchen Pi"))
        .expect("Kitchen Pi's row");
    let garage = rows
        .iter()
        .find(|row| row.contains("Garage NAS"))
        .expect("Garage NAS's row");
    assert!(text_of(kitchen).contains("3 min ago"), "{kitchen}");
    assert!(text_of(kitchen).contains("Offline"), "{kitchen}");
    assert!(text_of(garage).contains("never"), "{garage}");
    let at = kitchen.find("3 min ago").expect("the relative time");
    let tag_start = kitchen[..at].rfind('<').expect("its element");
    let title = attribute(&kitchen[tag_start..at], "title").unwrap_or_default();
    if let Some(exact) = seen["last_seen_time"].as_str() {
        // `YYYY-MM-DDTHH:MM:SS` (§1): the title shows the same date and time.
        let (date, time) = exact.split_once('T').expect("a timestamp");
        assert!(
            title.contains(date) && title.contains(time),
            "title {title:?} for {exact}"
        );
    } else {
        assert!(!title.is_empty(), "{kitchen}");
    }
}
