//! Security rules of the server itself (docs/security.md): no exhaustion by
//! long polls, slow bodies or file descriptors, and private files.

use crate::device_support::{DeviceAuth, install};
use crate::support::*;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::os::unix::fs::PermissionsExt;
use std::time::{Duration, Instant};

/// A long poll of the device, waiting up to `wait` seconds, on a thread.
fn poll_in_background(
    server: &Server,
    token: &str,
    wait: u32,
) -> std::thread::JoinHandle<(Reply, Duration)> {
    let call = server
        .get(&format!("/agent/commands/?wait={wait}"))
        .device(token);
    std::thread::spawn(move || {
        let started = Instant::now();
        let reply = call.send();
        (reply, started.elapsed())
    })
}

e2e!(a_third_long_poll_of_a_device_answers_the_oldest_at_once);
fn a_third_long_poll_of_a_device_answers_the_oldest_at_once() {
    let server = Server::start();
    let account = server.account("ann@example.com");
    let agent = install(&server, &account, "pi");
    let first = poll_in_background(&server, &agent.token, 30);
    std::thread::sleep(Duration::from_millis(500));
    let second = poll_in_background(&server, &agent.token, 30);
    std::thread::sleep(Duration::from_millis(500));
    let third = poll_in_background(&server, &agent.token, 1);
    let (reply, waited) = first.join().unwrap();
    reply.expect(200, serde_json::json!({"commands": []}));
    assert!(
        waited < Duration::from_secs(10),
        "answered after {waited:?}"
    );
    // The third ends by its own wait; then the second is the oldest, and a
    // fourth poll pushes it out.
    third.join().unwrap().0.expect_status(200);
    let fourth = poll_in_background(&server, &agent.token, 1);
    let fifth = poll_in_background(&server, &agent.token, 1);
    let (reply, waited) = second.join().unwrap();
    reply.expect(200, serde_json::json!({"commands": []}));
    assert!(
        waited < Duration::from_secs(20),
        "answered after {waited:?}"
    );
    fourth.join().unwrap().0.expect_status(200);
    fifth.join().unwrap().0.expect_status(200);
}

/// A raw connection to the server, whose reads give up after `timeout`,
/// and the server's address.
fn connect(server: &Server, timeout: Duration) -> (TcpStream, String) {
    let address = server.base().trim_start_matches("http://").to_owned();
    let stream = TcpStream::connect(&address).unwrap();
    stream.set_read_timeout(Some(timeout)).unwrap();
    (stream, address)
}

e2e!(a_body_that_does_not_arrive_within_ten_seconds_is_refused_with_408);
/// A body trickled slowly (here: never sent) gets 408 and the connection
/// closes, instead of holding it open indefinitely.
fn a_body_that_does_not_arrive_within_ten_seconds_is_refused_with_408() {
    let server = Server::start();
    let (mut stream, address) = connect(&server, Duration::from_secs(30));
    let started = Instant::now();
    write!(
        stream,
        "POST /auth/ HTTP/1.1\r\nHost: {address}\r\nContent-Type: application/json\r\n\
         Content-Length: 100\r\n\r\n{{\"email\""
    )
    .unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).unwrap();
    let waited = started.elapsed();
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
    assert!(
        answer.contains(r#"{"detail":"The request body took too long to arrive."}"#),
        "{answer}"
    );
    assert!(
        answer.to_ascii_lowercase().contains("connection: close"),
        "{answer}"
    );
    assert!(
        (Duration::from_secs(9)..Duration::from_secs(20)).contains(&waited),
        "answered after {waited:?}"
    );
}

/// Sends `head`, then a chunked body one small chunk every 2 s on another
/// thread, and reads the answer until the server closes the connection:
/// the answer, and when the connection closed.
fn trickle_chunked(server: &Server, head: &str) -> (String, Duration) {
    let (mut stream, address) = connect(server, Duration::from_secs(40));
    let started = Instant::now();
    write!(
        stream,
        "{head}Host: {address}\r\nContent-Type: application/json\r\n\
         Transfer-Encoding: chunked\r\n\r\n1\r\n{{\r\n"
    )
    .unwrap();
    let mut writer = stream.try_clone().unwrap();
    std::thread::spawn(move || {
        // Stops at the first write the closed connection refuses, or after 30 s.
        for _ in 0..15 {
            std::thread::sleep(Duration::from_secs(2));
            if writer.write_all(b"1\r\n \r\n").is_err() {
                break;
            }
        }
    });
    let mut answer = Vec::new();
    let _ = stream.read_to_end(&mut answer);
    (
        String::from_utf8_lossy(&answer).into_owned(),
        started.elapsed(),
    )
}

e2e!(a_trickled_chunked_body_gets_408_and_the_connection_closes: sqlite);
/// Whatever the framing, a body not complete 10 s after the headers gets
/// 408 and the connection closes (docs/security.md).
fn a_trickled_chunked_body_gets_408_and_the_connection_closes() {
    let server = Server::start();
    let (answer, closed_after) = trickle_chunked(&server, "POST /auth/ HTTP/1.1\r\n");
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
    assert!(
        answer.contains(r#"{"detail":"The request body took too long to arrive."}"#),
        "{answer}"
    );
    assert!(
        closed_after < Duration::from_secs(12),
        "the connection stayed open {closed_after:?}"
    );
}

e2e!(an_answer_before_the_body_has_arrived_closes_the_connection: sqlite);
/// A route that reads no body (here: refused for want of credentials)
/// answers at once, and the trickled body cannot keep the connection open.
fn an_answer_before_the_body_has_arrived_closes_the_connection() {
    let server = Server::start();
    let (answer, closed_after) = trickle_chunked(&server, "GET /devices/ HTTP/1.1\r\n");
    assert!(answer.starts_with("HTTP/1.1 401"), "{answer}");
    assert!(
        closed_after < Duration::from_secs(5),
        "the connection stayed open {closed_after:?}"
    );
}

/// The soft and hard open-file limits of a process, from /proc.
fn open_file_limits(pid: u32) -> (String, String) {
    let limits = std::fs::read_to_string(format!("/proc/{pid}/limits")).unwrap();
    let line = limits
        .lines()
        .find(|line| line.starts_with("Max open files"))
        .expect("a Max open files line");
    let fields: Vec<&str> = line.split_whitespace().collect();
    (fields[3].to_owned(), fields[4].to_owned())
}

e2e!(serve_raises_its_open_file_limit_to_the_hard_limit);
fn serve_raises_its_open_file_limit_to_the_hard_limit() {
    let server = Server::builder().process().start();
    let (soft, hard) = open_file_limits(server.pid());
    assert_eq!(soft, hard);
}

e2e!(connections_beyond_the_maximum_wait_for_a_free_slot);
/// With `--max-connections 2`, a third connection waits in the backlog until
/// one of the first two closes.
fn connections_beyond_the_maximum_wait_for_a_free_slot() {
    let server = Server::builder()
        .args(&["--workers", "1", "--max-connections", "2"])
        .process()
        .start();
    let account = server.account("ann@example.com");
    let agent = install(&server, &account, "pi");
    let first = poll_in_background(&server, &agent.token, 4);
    let second = poll_in_background(&server, &agent.token, 4);
    std::thread::sleep(Duration::from_millis(500));
    let started = Instant::now();
    let address = server.base().trim_start_matches("http://").to_owned();
    let mut stream = TcpStream::connect(&address).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    write!(
        stream,
        "GET /devices/ HTTP/1.1\r\nHost: {address}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).unwrap();
    let waited = started.elapsed();
    assert!(answer.starts_with("HTTP/1.1 401"), "{answer}");
    assert!(waited > Duration::from_secs(2), "answered after {waited:?}");
    first.join().unwrap().0.expect_status(200);
    second.join().unwrap().0.expect_status(200);
}

fn mode(path: &std::path::Path) -> u32 {
    std::fs::metadata(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .permissions()
        .mode()
        & 0o777
}

e2e!(mail_files_are_private);
fn mail_files_are_private() {
    let server = Server::builder().mail_dir().start();
    let earlier = server.mails();
    server.register("new@example.com");
    server.wait_for_new_mail(&earlier);
    for entry in std::fs::read_dir(server.mail_dir()).unwrap() {
        let path = entry.unwrap().path();
        assert_eq!(mode(&path), 0o600, "{}", path.display());
    }
}
