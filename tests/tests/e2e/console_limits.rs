//! Where the console's doors end (docs/api.md's throttling, docs/security.md, docs/console.md): the
//! forms anyone can send are throttled per address like the API's routes, so
//! the console is no way around the API's limits on mail; and a session that
//! "Log out everywhere" ended gets no more live updates.

use crate::device_support::*;
use crate::support::*;
use serde_json::json;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

const THROTTLED: &str = "Request was throttled. Expected available in ";

e2e!(the_consoles_reset_form_is_throttled_per_address: sqlite);
fn the_consoles_reset_form_is_throttled_per_address() {
    // 20 an hour: no token comes back while the test runs, however slow.
    let server = Server::builder()
        .args(&["--throttle-rate", "20/hour"])
        .start();
    let alice = server.account("alice@example.com");
    let mut stranger = Console::new(&server);
    let mut throttled = 0;
    for _ in 0..25 {
        let reply = stranger.submit(
            "/console/reset-password/",
            "Send reset link",
            &[("E-mail", &alice.email)],
        );
        throttled += usize::from(text_of(&reply.body).contains(THROTTLED));
    }
    assert!(
        throttled >= 5,
        "25 reset requests at 20 an hour, {throttled} throttled"
    );
    std::thread::sleep(Duration::from_millis(500));
    let sent = server.mails().len();
    assert!(
        sent <= 20,
        "{sent} reset mails sent to one address at 20 requests an hour"
    );
    // One budget with the API's routes.
    server
        .post("/reset-password/")
        .json(&json!({"email": alice.email}))
        .send()
        .expect_throttled();
}

e2e!(the_consoles_register_form_is_throttled_per_address: sqlite);
fn the_consoles_register_form_is_throttled_per_address() {
    let server = Server::builder()
        .args(&["--throttle-rate", "20/hour"])
        .start();
    let mut throttled = 0;
    for n in 0..25 {
        let mut stranger = Console::new(&server);
        let reply = stranger.submit(
            "/console/register/",
            "Create account",
            &[("E-mail", &format!("new{n}@example.com"))],
        );
        throttled += usize::from(text_of(&reply.body).contains(THROTTLED));
    }
    assert!(
        throttled >= 5,
        "25 registrations at 20 an hour, {throttled} throttled"
    );
    std::thread::sleep(Duration::from_millis(500));
    let sent = server.mails().len();
    assert!(
        sent <= 20,
        "{sent} verification mails at 20 registrations an hour"
    );
}

/// What `/console/events/` sends the session of `cookie` during `for_`, in
/// chunks with the time each arrived.
fn listen(address: &str, cookie: &str, for_: Duration) -> Vec<(Instant, String)> {
    let mut stream = TcpStream::connect(address).expect("the server accepts");
    write!(
        stream,
        "GET /console/events/ HTTP/1.1\r\nHost: {address}\r\nAccept: text/event-stream\r\nCookie: {cookie}\r\n\r\n"
    )
    .expect("the request is sent");
    stream
        .set_read_timeout(Some(Duration::from_millis(100)))
        .expect("a timeout");
    let deadline = Instant::now() + for_;
    let mut chunks = Vec::new();
    let mut buffer = [0; 8192];
    while Instant::now() < deadline {
        match stream.read(&mut buffer) {
            Ok(0) => break,
            Ok(n) => chunks.push((
                Instant::now(),
                String::from_utf8_lossy(&buffer[..n]).into_owned(),
            )),
            Err(_) => {}
        }
    }
    chunks
}

/// What an open `/console/events/` stream of one of alice's two sessions
/// (`there`) got before and after `end` ran and a heartbeat followed.
fn updates_around(end: impl FnOnce(&mut Console<'_>, &mut Console<'_>)) -> (String, String) {
    let server = Server::start();
    let alice = server.account("alice@example.com");
    let agent = install(&server, &alice, "Kitchen Pi");
    let mut here = Console::new(&server);
    here.sign_in(&alice.email, PASSWORD);
    let mut there = Console::new(&server);
    there.sign_in(&alice.email, PASSWORD);
    let address = server.base().trim_start_matches("http://").to_owned();
    let cookie = there.cookie_header();
    let (chunks, heartbeat_at) = std::thread::scope(|scope| {
        let listening = scope.spawn(|| listen(&address, &cookie, Duration::from_secs(6)));
        std::thread::sleep(Duration::from_secs(1));
        end(&mut here, &mut there);
        std::thread::sleep(Duration::from_millis(500));
        let at = Instant::now();
        heartbeat(&server, &agent.token, &json!({}));
        (listening.join().expect("the listener"), at)
    });
    let text = |keep: &dyn Fn(&Instant) -> bool| -> String {
        chunks
            .iter()
            .filter(|(at, _)| keep(at))
            .map(|(_, text)| text.as_str())
            .collect()
    };
    (
        text(&|at| *at < heartbeat_at),
        text(&|at| *at >= heartbeat_at),
    )
}

#[track_caller]
fn assert_no_updates_after((before, after): (String, String), what: &str) {
    assert!(
        before.contains("Kitchen Pi"),
        "the stream told the fleet at first: {before}"
    );
    assert!(
        !after.contains("\"online\":true") && !after.contains("Kitchen Pi"),
        "a session ended by {what} still got live updates: {after}"
    );
}

e2e!(a_session_ended_everywhere_gets_no_more_live_updates);
fn a_session_ended_everywhere_gets_no_more_live_updates() {
    let updates = updates_around(|here, _| {
        let reply = here.submit("/console/account/", "Log out everywhere", &[]);
        assert!(matches!(reply.status, 302 | 303), "{reply}");
    });
    assert_no_updates_after(updates, "Log out everywhere (in another session)");
}

e2e!(a_logged_out_session_gets_no_more_live_updates);
fn a_logged_out_session_gets_no_more_live_updates() {
    let updates = updates_around(|_, there| {
        let reply = there.submit("/console/", "Log out", &[]);
        assert!(matches!(reply.status, 302 | 303), "{reply}");
    });
    assert_no_updates_after(updates, "Log out");
}
