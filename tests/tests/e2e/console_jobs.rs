//! Fleet jobs in the console over plain HTTP, as a browser without script
//! uses it (docs/console.md, Reboot devices and Jobs), on both stores: the
//! job "Reboot devices" starts is the API's (same selector, settings and
//! targets); refused settings create nothing and show the API's messages;
//! a later start time schedules it; "Resume" and "Cancel job" answer with
//! the job's status and the API's refusals; another account's job does not
//! exist for the console, not even in the live updates; the list pages 50
//! jobs and a job's page 100 targets.

use crate::support::*;
use serde_json::{Value, json};
use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

/// The jobs of `token`'s account, as `GET /jobs/` pages them.
fn jobs(server: &Server, token: &str) -> Value {
    server.get("/jobs/").token(token).send().json()
}

/// The job page a redirect leads to (`/console/jobs/<id>/`) and its notice code.
#[track_caller]
fn job_redirect(reply: &Reply) -> (String, String) {
    assert_eq!(reply.status, 303, "{reply}");
    let path = location_path(reply);
    let id = path
        .strip_prefix("/console/jobs/")
        .and_then(|rest| rest.strip_suffix('/'))
        .unwrap_or_else(|| panic!("not a job's page: {path}\n{reply}"));
    let location = reply.header("location").unwrap_or_default();
    let notice = location.split("notice=").nth(1).unwrap_or_default();
    (id.to_owned(), notice.to_owned())
}

/// What `/console/events/` (with this query) sends the browser within `for_`.
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

e2e!(reboot_devices_in_the_console_is_a_job_of_the_api);
fn reboot_devices_in_the_console_is_a_job_of_the_api() {
    let server = Server::start();
    let alice = server.account("alice@example.com");
    for name in ["Lab 1", "Lab 2", "Lab 3"] {
        server.device(&alice.email, name, &["--tag", "lab"]);
    }
    server.device(&alice.email, "Office printer", &[]);
    let mut browser = Console::new(&server);
    browser.sign_in(&alice.email, PASSWORD);
    let preview = browser.get("/console/reboot-devices/?tag=lab");
    assert_eq!(preview.status, 200, "{preview}");
    assert!(preview.body.contains("3 devices"), "{preview}");

    // Refused settings: the API's messages beside the fields, no job.
    let reply = browser.submit(
        "/console/reboot-devices/?tag=lab",
        "Reboot devices",
        &[
            ("Wave size", "0"),
            ("Wave interval (seconds)", "x"),
            ("Halt failure ratio", "-1"),
            ("Start time (UTC)", "tomorrow"),
        ],
    );
    assert_eq!(reply.status, 400, "{reply}");
    for message in [
        "Ensure this value is greater than or equal to 1.",
        "A valid integer is required.",
        "Ensure this value is greater than or equal to 0.",
        "Datetime has wrong format. Use one of these formats instead: YYYY-MM-DDThh:mm:ss.",
    ] {
        assert!(reply.body.contains(message), "{message}\n{reply}");
    }
    assert_eq!(jobs(&server, &alice.token)["count"], 0);

    // Waves of two: the API's job, its first wave under way.
    let reply = browser.submit(
        "/console/reboot-devices/?tag=lab",
        "Reboot devices",
        &[("Wave size", "2"), ("Halt failure ratio", "0.25")],
    );
    let (id, notice) = job_redirect(&reply);
    assert_eq!(notice, "job-started");
    let job = server
        .get(&format!("/jobs/{id}/"))
        .token(&alice.token)
        .send()
        .json();
    assert_eq!(job["status"], "running", "{job}");
    assert_eq!(job["selector"], json!({"tags": ["lab"]}), "{job}");
    assert_eq!(job["wave_size"], 2, "{job}");
    assert_eq!(job["wave_interval_seconds"], 0, "{job}");
    assert_eq!(job["halt_failure_ratio"], 0.25, "{job}");
    assert_eq!(job["counts"]["pending"], 2, "{job}");
    assert_eq!(job["counts"]["waiting"], 1, "{job}");
    let page = browser.get(&format!("/console/jobs/{id}/"));
    assert_eq!(page.status, 200, "{page}");
    for shown in ["Reboot · tagged lab", "2 pending · 1 waiting", "running"] {
        assert!(page.body.contains(shown), "{shown}\n{page}");
    }
    assert!(!page.body.contains("Office printer"), "{page}");
    let list = browser.get("/console/jobs/");
    assert!(
        list.body.contains(&format!("/console/jobs/{id}/")),
        "{list}"
    );

    // Resume is refused while it runs; Cancel job cancels it, once.
    let reply = browser.submit(&format!("/console/jobs/{id}/"), "Resume", &[]);
    assert_eq!(job_redirect(&reply).1, "job-not-halted");
    let page = browser.get(&format!("/console/jobs/{id}/?notice=job-not-halted"));
    assert!(
        page.body.contains("Only a halted job can be resumed."),
        "{page}"
    );
    let cancel = format!("/console/jobs/{id}/cancel/");
    let reply = browser.submit(&cancel, "Cancel job now", &[]);
    assert_eq!(job_redirect(&reply).1, "job-cancelled");
    let job = server
        .get(&format!("/jobs/{id}/"))
        .token(&alice.token)
        .send()
        .json();
    assert_eq!(job["status"], "cancelled", "{job}");
    assert_eq!(job["counts"]["skipped"], 1, "{job}");
    let reply = browser.submit(&cancel, "Cancel job now", &[]);
    assert_eq!(job_redirect(&reply).1, "job-already-finished");

    // A later start time schedules the job; the whole fleet without filters.
    let reply = browser.submit(
        "/console/reboot-devices/",
        "Reboot devices",
        &[("Start time (UTC)", "2099-01-02T03:04")],
    );
    let (later, notice) = job_redirect(&reply);
    assert_eq!(notice, "job-scheduled");
    let job = server
        .get(&format!("/jobs/{later}/"))
        .token(&alice.token)
        .send()
        .json();
    assert_eq!(job["status"], "scheduled", "{job}");
    assert_eq!(job["start_time"], "2099-01-02T03:04:00", "{job}");
    assert_eq!(job["selector"], json!({"all": true}), "{job}");
    let page = browser.get(&format!("/console/jobs/{later}/"));
    assert!(page.body.contains("not started yet"), "{page}");
    assert_eq!(jobs(&server, &alice.token)["count"], 2);
}

e2e!(another_accounts_job_does_not_exist_in_the_console);
fn another_accounts_job_does_not_exist_in_the_console() {
    let server = Server::start();
    let alice = server.account("alice@example.com");
    let bob = server.account("bob@example.com");
    server.device(&alice.email, "Alices box", &[]);
    server.device(&bob.email, "Bobs Secret Box", &[]);
    let created = server
        .post("/jobs/")
        .token(&bob.token)
        .json(&json!({"action": "reboot", "selector": {"all": true}}))
        .send();
    created.expect_status(201);
    let theirs = string(&created.json(), "id");
    let mut browser = Console::new(&server);
    browser.sign_in(&alice.email, PASSWORD);
    let upper = theirs.to_uppercase();
    for path in [
        format!("/console/jobs/{theirs}/"),
        format!("/console/jobs/{theirs}/cancel/"),
        format!("/console/jobs/{upper}/"),
        "/console/jobs/not-a-job/".to_owned(),
    ] {
        let reply = browser.get(&path);
        assert_eq!(reply.status, 404, "{path}\n{reply}");
        assert!(!reply.body.contains("Bobs Secret Box"), "{reply}");
    }
    // Alice's own cancel form, with her valid CSRF token, aimed at bob's job.
    let reply = browser.submit("/console/reboot-devices/", "Reboot devices", &[]);
    let (own, _) = job_redirect(&reply);
    let form = browser.form(&format!("/console/jobs/{own}/cancel/"), "Cancel job now");
    for action in ["cancel", "resume"] {
        let path = format!("/console/jobs/{theirs}/{action}/");
        let reply = browser.post(&path, &form.body(&[]));
        assert_eq!(reply.status, 404, "{path}\n{reply}");
    }
    let job = server
        .get(&format!("/jobs/{theirs}/"))
        .token(&bob.token)
        .send()
        .json();
    assert_eq!(job["status"], "running", "{job}");
    let list = browser.get("/console/jobs/");
    assert!(!list.body.contains(&theirs), "{list}");
    // Nor in the live updates: the stream knows no such job.
    let live = events(
        &server,
        &browser,
        &format!("?job={theirs}"),
        Duration::from_secs(2),
    );
    assert!(live.starts_with("HTTP/1.1 200"), "{live}");
    assert!(live.contains(r#"event: job"#), "{live}");
    assert!(live.contains(r#""job":null"#), "{live}");
    assert!(!live.contains("Bobs Secret Box"), "{live}");
    let own_live = events(
        &server,
        &browser,
        &format!("?job={own}"),
        Duration::from_secs(2),
    );
    assert!(own_live.contains("Alices box"), "{own_live}");
    let malformed = events(&server, &browser, "?job=nope", Duration::from_secs(1));
    assert!(malformed.starts_with("HTTP/1.1 404"), "{malformed}");
}

e2e!(the_jobs_list_shows_fifty_a_page_newest_first);
fn the_jobs_list_shows_fifty_a_page_newest_first() {
    let server = Server::start();
    let alice = server.account("alice@example.com");
    let ids: Vec<String> = (0..51)
        .map(|_| {
            let created = server
                .post("/jobs/")
                .token(&alice.token)
                .json(&json!({"action": "reboot", "selector": {"all": true}}))
                .send();
            created.expect_status(201);
            string(&created.json(), "id")
        })
        .collect();
    let mut browser = Console::new(&server);
    browser.sign_in(&alice.email, PASSWORD);
    let link = |id: &str| format!("href=\"/console/jobs/{id}/\"");
    let first = browser.get("/console/jobs/");
    assert!(first.body.contains("51 jobs. Showing 1–50."), "{first}");
    assert!(first.body.contains("Page 1 of 2"), "{first}");
    let newest = first.body.find(&link(&ids[50])).expect("the newest job");
    let older = first.body.find(&link(&ids[49])).expect("the one before");
    assert!(newest < older, "newest first\n{first}");
    assert!(!first.body.contains(&link(&ids[0])), "{first}");
    assert!(first.body.contains("no devices"), "{first}");
    let second = browser.get("/console/jobs/?page=2");
    assert!(second.body.contains("Showing 51–51."), "{second}");
    assert!(second.body.contains(&link(&ids[0])), "{second}");
    let past = browser.get("/console/jobs/?page=9");
    assert!(
        past.body.contains(&link(&ids[0])),
        "a page past the last shows the last\n{past}"
    );
}

e2e!(a_large_jobs_page_shows_its_first_hundred_targets_and_pages);
fn a_large_jobs_page_shows_its_first_hundred_targets_and_pages() {
    let server = Server::builder().throttle_off().start();
    let alice = server.account("alice@example.com");
    for n in 0..101 {
        crate::device_support::install(&server, &alice, &format!("Sensor {n:03}"));
    }
    let mut browser = Console::new(&server);
    browser.sign_in(&alice.email, PASSWORD);
    let reply = browser.submit("/console/reboot-devices/", "Reboot devices", &[]);
    let (id, _) = job_redirect(&reply);
    let path = format!("/console/jobs/{id}/");
    let rows = |body: &str| body.matches("<tr data-serial=").count();
    let first = browser.get(&path);
    assert_eq!(rows(&first.body), 100, "{first}");
    assert!(first.body.contains("Targets 1–100 of 101."), "{first}");
    assert!(
        first.body.contains(&format!("href=\"{path}?page=2\"")),
        "{first}"
    );
    let second = browser.get(&format!("{path}?page=2"));
    assert_eq!(rows(&second.body), 1, "{second}");
    assert!(second.body.contains("Targets 101–101 of 101."), "{second}");
    assert!(second.body.contains("101 pending"), "{second}");
}
