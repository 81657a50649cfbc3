//! The Activity page in a real browser (`tests/browser/console_audit.mjs`,
//! on SQLite only, as `console_browser.rs` explains): a reboot confirmed on
//! a device's page shows in its recent activity and on the Activity page
//! with the user's address, filtered by the device, then by the action;
//! screenshots on a desktop, a phone and in the dark.

use super::rows;
use crate::console_runner::{assert_screenshots, run_script, screenshots};
use crate::device_support::install;
use crate::support::*;
use serde_json::{Value, json};

/// The screenshots the browser test saves.
const SHOTS: [&str; 6] = [
    "activity",
    "activity-phone",
    "activity-dark",
    "activity-filtered",
    "device-activity",
    "device-activity-phone",
];

e2e!(console_activity_shows_a_reboot_made_in_the_browser: sqlite);
fn console_activity_shows_a_reboot_made_in_the_browser() {
    let server = Server::start();
    for name in SHOTS {
        let _ = std::fs::remove_file(screenshots().join(format!("{name}.png")));
    }
    let alice = server.account("alice@example.com");
    let lab = install(&server, &alice, "Lab Pi 1");
    install(&server, &alice, "Office printer");
    let report = run_script(
        &server,
        "console_audit.mjs",
        &[
            ("DEVMGR_EMAIL", alice.email.as_str()),
            ("DEVMGR_PASSWORD", PASSWORD),
            ("DEVMGR_SERIAL", lab.serial.as_str()),
        ],
    );
    report.assert_clean();
    assert_screenshots(&SHOTS);
    // What the browser did, seen through the console's own filter.
    let mut browser = Console::new(&server);
    browser.sign_in(&alice.email, PASSWORD);
    let page = browser.get(&format!(
        "/console/activity/?action=device.reboot&device={}",
        lab.serial
    ));
    let reboots: Vec<Value> = rows(&page.body)
        .iter()
        .map(|row| json!([row.cell("Actor"), row.cell("Address")]))
        .collect();
    assert_eq!(reboots, [json!([alice.email, "127.0.0.1"])], "{page}");
}
