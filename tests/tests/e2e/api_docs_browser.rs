//! The browsable API docs at `/docs/`, rendered by a real headless browser.

use crate::api_description::*;
use crate::support::*;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

/// Debian's chromium (or `DEVMGR_TEST_CHROMIUM`). On a machine without it,
/// running as root, it is installed with apt-get once (after refreshing the
/// package lists when they do not know it yet), as the README says.
pub fn chromium() -> &'static Path {
    static CHROMIUM: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    let found = CHROMIUM.get_or_init(|| {
        let find = || {
            std::env::var_os("DEVMGR_TEST_CHROMIUM")
                .map(PathBuf::from)
                .into_iter()
                .chain(["/usr/bin/chromium", "/usr/bin/chromium-browser"].map(PathBuf::from))
                .find(|path| path.is_file())
        };
        if let Some(path) = find() {
            return Ok(path);
        }
        let apt_get = |args: &[&str]| {
            Command::new("apt-get")
                .args(args)
                .env("DEBIAN_FRONTEND", "noninteractive")
                .output()
        };
        let mut installed = apt_get(&["install", "-y", "-q", "chromium"]);
        if find().is_none() {
            let _ = apt_get(&["update", "-q"]);
            installed = apt_get(&["install", "-y", "-q", "chromium"]);
        }
        find().ok_or_else(|| {
            format!(
                "the docs test needs a headless browser: install Debian's chromium \
                 (`apt-get install chromium`) or set DEVMGR_TEST_CHROMIUM; \
                 installing it here failed: {}",
                match installed {
                    Ok(output) => String::from_utf8_lossy(&output.stderr).into_owned(),
                    Err(e) => e.to_string(),
                }
            )
        })
    });
    match found {
        Ok(path) => path,
        Err(problem) => panic!("{problem}"),
    }
}

e2e!(the_docs_render_in_a_headless_browser_with_no_internet);
fn the_docs_render_in_a_headless_browser_with_no_internet() {
    let server = Server::start();
    let profile = tempfile::tempdir().expect("a temporary folder");
    // Every host but the server's is unreachable, so a page that needed the
    // internet would show nothing.
    let output = Command::new(chromium())
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
        ])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .arg("--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1")
        .args(["--enable-logging=stderr", "--v=0"])
        .arg("--virtual-time-budget=15000")
        .arg("--dump-dom")
        .arg(server.url("/docs/"))
        .output()
        .expect("chromium runs");
    let dom = String::from_utf8_lossy(&output.stdout);
    let log = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "chromium failed:\n{log}");
    // Swagger UI rendered the document: its title, and one block per operation.
    assert!(
        dom.contains(r#"class="title">devmgr"#),
        "no title in\n{dom}"
    );
    for (path, methods) in DOCUMENTED_OPERATIONS {
        let blocks = dom.matches(&format!(r#"data-path="{path}""#)).count();
        assert_eq!(blocks, methods.len(), "operations of {path} shown");
    }
    for line in log.lines().filter(|line| line.contains("CONSOLE")) {
        assert!(
            !line.contains("Content Security Policy") && !line.contains("Failed to load"),
            "the page met a problem: {line}"
        );
    }
}
