//! The console's Activity page and each device's recent activity (docs/console.md).
//!
//! Over plain HTTP, as a browser without script uses them, on both stores:
//! the page lists the account's entries only, newest first, with who, what,
//! on what and from where; the action and device filters (a GET form) keep
//! what the API's `action=` and `target=` keep; it pages by 50 keeping its
//! filters; signed out it sends to the sign-in page; a device's page shows
//! its 10 newest entries with a link to all of them. The same in a real
//! browser is in `console_audit/browser.rs`.

use crate::device_support::install;
use crate::support::*;
use serde_json::json;
use std::collections::BTreeMap;

mod browser;

/// Every audited action's name (docs/audit.md).
const ACTIONS: [&str; 25] = [
    "account.create",
    "account.register",
    "auth.login",
    "auth.login_failed",
    "auth.logout",
    "auth.logout_all",
    "password.change",
    "password.reset",
    "profile.update",
    "install_token.rotate",
    "device.create",
    "device.install",
    "device.update",
    "device.delete",
    "device.reboot",
    "job.create",
    "job.cancel",
    "job.resume",
    "job.halt",
    "job.complete",
    "monitor.create",
    "monitor.delete",
    "monitor.snooze",
    "webhook.create",
    "webhook.delete",
];

/// One row of an activity table: its entry's id, its cells' texts by
/// column, and its HTML.
struct Row {
    id: u64,
    cells: BTreeMap<String, String>,
    html: String,
}

impl Row {
    fn cell(&self, column: &str) -> &str {
        self.cells.get(column).map_or("", String::as_str)
    }
}

/// The rows of the first activity table of `html` (after `from`, when given).
fn rows_after(html: &str, from: &str) -> Vec<Row> {
    let start = html.find(from).unwrap_or(0);
    let Some(table) = html[start..].find(r#"<table class="activity""#) else {
        return Vec::new();
    };
    let table = &html[start + table..];
    let table = &table[..table.find("</table>").unwrap_or(table.len())];
    table
        .split(r#"<tr data-id=""#)
        .skip(1)
        .map(|row| {
            let id = row[..row.find('"').unwrap_or(0)].parse().expect("an id");
            let cells = row
                .split(r#"<td data-label=""#)
                .skip(1)
                .map(|cell| {
                    let (label, rest) = cell.split_once('"').unwrap_or_default();
                    let content = &rest[rest.find('>').map_or(0, |at| at + 1)..];
                    let content = &content[..content.find("</td>").unwrap_or(content.len())];
                    (label.to_owned(), text_of(content))
                })
                .collect();
            Row {
                id,
                cells,
                html: row.to_owned(),
            }
        })
        .collect()
}

fn rows(html: &str) -> Vec<Row> {
    rows_after(html, "")
}

/// The actions of these rows, in order.
fn actions(rows: &[Row]) -> Vec<&str> {
    rows.iter().map(|row| row.cell("Action")).collect()
}

/// The Activity page with the filter form filled as a browser submits it.
#[track_caller]
fn filtered(browser: &mut Console, action: &str, device: &str) -> Reply {
    let form = browser.form("/console/activity/", "Filter");
    assert_eq!(
        (form.method.as_str(), form.action.as_str()),
        ("get", "/console/activity/")
    );
    let query = form_encode(&form.body(&[("Action", action), ("Device", device)]));
    let reply = browser.get(&format!("/console/activity/?{query}"));
    assert_eq!(reply.status, 200, "{reply}");
    reply
}

e2e!(the_activity_page_lists_the_accounts_entries_and_filters_them);
fn the_activity_page_lists_the_accounts_entries_and_filters_them() {
    let server = Server::start();
    let alice = server.account("alice@example.com");
    let bob = server.account("bob@example.com");
    let lab = string(&server.device(&alice.email, "Lab Pi", &[]), "serial");
    let office = string(
        &server.device(&alice.email, "Office printer", &[]),
        "serial",
    );
    let bobs = string(&server.device(&bob.email, "Bob's box", &[]), "serial");
    let bob_reboot = format!("/devices/{bobs}/reboot/");
    server
        .post(&bob_reboot)
        .token(&bob.token)
        .send()
        .expect_status(202);
    server
        .patch(&format!("/devices/{office}/"))
        .token(&alice.token)
        .json(&json!({"name": "Printer"}))
        .send()
        .expect_status(200);
    let mut browser = Console::new(&server);
    browser.sign_in(&alice.email, PASSWORD);
    let reply = browser.submit(&format!("/console/devices/{lab}/"), "Reboot now", &[]);
    assert_eq!(reply.status, 303, "{reply}");

    // Alice's entries only, newest first.
    let page = browser.get("/console/activity/");
    assert_eq!(page.status, 200, "{page}");
    assert!(
        page.body.contains(r#"aria-current="page">Activity</a>"#),
        "{page}"
    );
    for other in ["bob@example.com", bobs.as_str(), "Bob&#39;s box"] {
        assert!(!page.body.contains(other), "{other}\n{page}");
    }
    let all = rows(&page.body);
    let expected = [
        "device.reboot",
        "device.update",
        "device.create",
        "device.create",
        "account.create",
    ];
    assert_eq!(actions(&all), expected, "{page}");
    assert!(all.windows(2).all(|pair| pair[0].id > pair[1].id), "{page}");
    assert!(text_of(&page.body).contains("5 entries."), "{page}");
    let reboot = &all[0];
    assert_eq!(reboot.cell("Actor"), alice.email);
    assert_eq!(reboot.cell("Target"), "Lab Pi");
    assert_eq!(reboot.cell("Address"), "127.0.0.1");
    assert!(
        reboot
            .html
            .contains(&format!(r#"href="/console/devices/{lab}/""#))
    );
    assert!(reboot.html.contains("<time datetime=\""), "{}", reboot.html);
    assert_eq!(all[1].cell("Target"), "Printer");
    assert_eq!(all[2].cell("Actor"), "cli");
    assert_eq!(all[2].cell("Address"), "—");
    assert_eq!(all[4].cell("Target"), "account:alice@example.com");

    // The filters: every action by name, the account's devices by name.
    for action in ACTIONS {
        assert!(
            page.body
                .contains(&format!(r#"<option value="{action}">{action}</option>"#)),
            "{action}\n{page}"
        );
    }
    assert!(page.body.contains(">All actions</option>"), "{page}");
    for (serial, name) in [(&lab, "Lab Pi"), (&office, "Printer")] {
        let option = format!(r#"<option value="{serial}">{name}</option>"#);
        assert!(page.body.contains(&option), "{option}\n{page}");
    }
    let by_action = filtered(&mut browser, "device.reboot", "");
    assert_eq!(actions(&rows(&by_action.body)), ["device.reboot"]);
    assert!(
        by_action
            .body
            .contains(r#"<option value="device.reboot" selected>"#)
    );
    let by_device = filtered(&mut browser, "", &office);
    assert_eq!(
        actions(&rows(&by_device.body)),
        ["device.update", "device.create"]
    );
    let both = filtered(&mut browser, "device.create", &office);
    let both = rows(&both.body);
    assert_eq!(actions(&both), ["device.create"]);
    assert_eq!(both[0].id, all[2].id);
    let none = filtered(&mut browser, "webhook.create", "");
    assert!(rows(&none.body).is_empty(), "{none}");
    let none = text_of(&none.body);
    assert!(none.contains("No entry matches these filters"), "{none}");
    assert!(none.contains("Clear filters"), "{none}");
    // Nonsense is no filter; another account's device matches nothing.
    let nonsense = browser.get("/console/activity/?action=device.explode&device=nope");
    assert_eq!(actions(&rows(&nonsense.body)), expected, "{nonsense}");
    let foreign = browser.get(&format!("/console/activity/?device={bobs}"));
    assert!(rows(&foreign.body).is_empty(), "{foreign}");

    // A deleted device's entries stay, as text; its filter still works.
    server
        .delete(&format!("/devices/{lab}/"))
        .token(&alice.token)
        .send()
        .expect_status(204);
    let page = browser.get(&format!("/console/activity/?device={lab}"));
    let gone = rows(&page.body);
    assert_eq!(
        actions(&gone),
        ["device.delete", "device.reboot", "device.create"],
        "{page}"
    );
    assert_eq!(gone[1].cell("Target"), format!("device:{lab}"));
    assert!(
        !page
            .body
            .contains(&format!(r#"href="/console/devices/{lab}/""#))
    );
    assert!(
        page.body
            .contains(&format!(r#"<option value="{lab}" selected>"#))
    );
}

e2e!(the_activity_page_pages_by_fifty_keeping_its_filters);
fn the_activity_page_pages_by_fifty_keeping_its_filters() {
    let server = Server::start();
    let alice = server.account("alice@example.com");
    let serial = string(&server.device(&alice.email, "Pi", &[]), "serial");
    for n in 1..=54 {
        server
            .patch(&format!("/devices/{serial}/"))
            .token(&alice.token)
            .json(&json!({"name": format!("Pi {n}")}))
            .send()
            .expect_status(200);
    }
    let mut browser = Console::new(&server);
    browser.sign_in(&alice.email, PASSWORD);
    let first = browser.get("/console/activity/");
    let first_rows = rows(&first.body);
    assert_eq!(first_rows.len(), 50, "{first}");
    let text = text_of(&first.body);
    assert!(text.contains("56 entries. Showing 1–50."), "{text}");
    assert!(text.contains("Page 1 of 2"), "{text}");
    assert!(
        first
            .body
            .contains(r#"<a href="/console/activity/?page=2" rel="next">"#)
    );
    assert!(!first.body.contains(r#"rel="prev""#), "{first}");
    let second = browser.get("/console/activity/?page=2");
    let second_rows = rows(&second.body);
    assert_eq!(
        actions(&second_rows),
        [
            "device.update",
            "device.update",
            "device.update",
            "device.update",
            "device.create",
            "account.create"
        ]
    );
    assert!(second_rows[0].id < first_rows[49].id);
    assert!(
        second
            .body
            .contains(r#"<a href="/console/activity/" rel="prev">"#)
    );
    assert!(!second.body.contains(r#"rel="next""#), "{second}");
    // Past the end: the last page.
    let past = browser.get("/console/activity/?page=9");
    assert!(text_of(&past.body).contains("Page 2 of 2"), "{past}");
    // A filtered list's pages keep the filter.
    let updates = browser.get("/console/activity/?action=device.update");
    assert!(text_of(&updates.body).contains("54 entries. Showing 1–50."));
    let next = r#"href="/console/activity/?action=device.update&#38;page=2" rel="next""#;
    assert!(updates.body.contains(next), "{updates}");
    let last = browser.get("/console/activity/?action=device.update&page=2");
    assert_eq!(actions(&rows(&last.body)), ["device.update"; 4]);
    let previous = r#"href="/console/activity/?action=device.update" rel="prev""#;
    assert!(last.body.contains(previous), "{last}");
}

e2e!(signed_out_the_activity_page_sends_to_sign_in);
fn signed_out_the_activity_page_sends_to_sign_in() {
    let server = Server::start();
    let alice = server.account("alice@example.com");
    let mut stranger = Console::new(&server);
    for path in [
        "/console/activity/",
        "/console/activity/?action=device.reboot&page=2",
    ] {
        let reply = stranger.get(path);
        assert!(matches!(reply.status, 302 | 303), "{reply}");
        assert_eq!(location_path(&reply), "/console/login/", "{reply}");
    }
    let reply = stranger.get("/console/activity?action=auth.login");
    assert_eq!(reply.status, 301, "{reply}");
    assert_eq!(
        reply.header("location"),
        Some("/console/activity/?action=auth.login")
    );
    // Signed in, every page's navigation leads there.
    stranger.sign_in(&alice.email, PASSWORD);
    for path in ["/console/", "/console/account/", "/console/alerts/"] {
        let page = stranger.get(path);
        assert!(
            page.body.contains(r#"<a href="/console/activity/""#),
            "{page}"
        );
    }
}

e2e!(a_device_page_shows_its_ten_newest_entries);
fn a_device_page_shows_its_ten_newest_entries() {
    let server = Server::start();
    let alice = server.account("alice@example.com");
    let agent = install(&server, &alice, "Agent box");
    let serial = &agent.serial;
    let mut browser = Console::new(&server);
    browser.sign_in(&alice.email, PASSWORD);
    let path = format!("/console/devices/{serial}/");
    let page = browser.get(&path);
    assert_eq!(page.status, 200, "{page}");
    let text = text_of(&page.body);
    assert!(text.contains("Recent activity"), "{text}");
    let link =
        format!(r#"<a href="/console/activity/?device={serial}">All activity of this device</a>"#);
    assert!(page.body.contains(&link), "{page}");
    let installed = rows_after(&page.body, "Recent activity");
    assert_eq!(actions(&installed), ["device.install"], "{page}");
    let short = format!("device {}…", &serial[..8]);
    assert_eq!(installed[0].cell("Actor"), short);
    assert!(installed[0].html.contains(&format!(r#"title="{serial}""#)));
    assert_eq!(installed[0].cell("Address"), "127.0.0.1");
    for n in 1..=11 {
        server
            .patch(&format!("/devices/{serial}/"))
            .token(&alice.token)
            .json(&json!({"description": format!("Take {n}")}))
            .send()
            .expect_status(200);
    }
    let other = string(&server.device(&alice.email, "Other", &[]), "serial");
    let page = browser.get(&path);
    let newest = rows_after(&page.body, "Recent activity");
    assert_eq!(actions(&newest), ["device.update"; 10], "{page}");
    assert!(newest.windows(2).all(|pair| pair[0].id > pair[1].id));
    assert!(
        !newest[0].cells.contains_key("Target"),
        "{}",
        newest[0].html
    );
    // The same entries head the Activity page's view of the device.
    let all = browser.get(&format!("/console/activity/?device={serial}"));
    let all = rows(&all.body);
    assert_eq!(all.len(), 12);
    let ids = |rows: &[Row]| rows.iter().map(|row| row.id).collect::<Vec<_>>();
    assert_eq!(ids(&all[..10]), ids(&newest));
    let page = browser.get(&format!("/console/devices/{other}/"));
    assert_eq!(
        actions(&rows_after(&page.body, "Recent activity")),
        ["device.create"]
    );
}
