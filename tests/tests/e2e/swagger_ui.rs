//! Swagger UI's "Try it out" works as a person uses it, in a real browser
//! (the machine's chromium, driven by playwright-core): authorize with a
//! user token through the Authorize dialog, then log in, list the devices
//! and reboot one with the bodies Swagger UI fills in from the document's
//! examples (`tests/browser/swagger_try_it_out.mjs`). Screenshots of the page
//! and of each operation tried are left in `target/<profile>/swagger-ui/`.

use crate::api_docs_browser::chromium;
use crate::api_lint::api_tools;
use crate::support::*;
use serde_json::{Value, json};
use std::path::Path;

e2e!(try_it_out_logs_in_lists_and_reboots_with_the_documented_examples: sqlite);
fn try_it_out_logs_in_lists_and_reboots_with_the_documented_examples() {
    let server = Server::start();
    let doc = server.get("/openapi.json").send().json();
    // The account of the login example, so its default body succeeds.
    let login =
        &doc["paths"]["/auth/"]["post"]["requestBody"]["content"]["application/json"]["example"];
    assert_eq!(login["password"], PASSWORD, "{login}");
    let account = server.account(login["email"].as_str().expect("an e-mail"));
    let serial = server.device_serial(&account.email);

    let shots = output_dir("swagger-ui");
    let node = api_tools();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("browser/swagger_try_it_out.mjs");
    let work = tempfile::tempdir().expect("a temporary folder");
    // The script imports playwright-core from the installed set.
    std::os::unix::fs::symlink(
        node.dir().join("node_modules"),
        work.path().join("node_modules"),
    )
    .expect("node_modules is linked");
    std::fs::copy(&script, work.path().join("try.mjs")).expect("the script is copied");
    let output = std::process::Command::new("node")
        .arg("try.mjs")
        .current_dir(work.path())
        .env("DEVMGR_URL", server.base())
        .env("DEVMGR_TOKEN", &account.token)
        .env("DEVMGR_SERIAL", &serial)
        .env("DEVMGR_CHROMIUM", chromium())
        .env("DEVMGR_SCREENSHOTS", &shots)
        .output()
        .expect("node runs");
    let printed = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "the browser session failed ({}):\n{printed}\n{}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    let seen: Value = serde_json::from_str(printed.trim())
        .unwrap_or_else(|e| panic!("no JSON from the browser session ({e}): {printed}"));
    assert_eq!(
        seen,
        json!({
            "statuses": {"login": "201", "listDevices": "200", "rebootDevice": "202"},
            "problems": [],
        })
    );
    // The reboot really reached the device's history.
    let commands = server
        .get(&format!("/devices/{serial}/commands/"))
        .token(&account.token)
        .send()
        .json();
    assert_eq!(commands[0]["action"], "reboot", "{commands}");
    for name in ["page", "login", "listDevices", "rebootDevice"] {
        let shot = shots.join(format!("{name}.png"));
        assert!(shot.is_file(), "{} was not saved", shot.display());
    }
}
