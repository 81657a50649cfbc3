//! Live updates cross instances: a console open on one `devmgr serve`
//! sees, within 5 s, what happened on another process on the same
//! PostgreSQL database (its session too is shared).

use crate::device_support::*;
use crate::support::*;
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

/// What the console promises: an update within this of the change.
const LIVE_WITHIN: Duration = Duration::from_secs(5);

/// An open event stream of a console, read event by event.
struct Events {
    lines: BufReader<TcpStream>,
}

impl Events {
    /// Opens `path` (an event stream) on `server` with the console's cookies.
    fn open(server: &Server, console: &Console<'_>, path: &str) -> Self {
        let address = server.base().trim_start_matches("http://").to_owned();
        let mut stream = TcpStream::connect(&address).expect("the server accepts");
        // The answer may take a while on a busy machine; events are then
        // read with a short timeout, so a wait can end at its deadline.
        stream
            .set_read_timeout(Some(Duration::from_secs(30)))
            .expect("a read timeout");
        write!(
            stream,
            "GET {path} HTTP/1.1\r\nHost: {address}\r\nAccept: text/event-stream\r\nCookie: {}\r\n\r\n",
            console.cookie_header()
        )
        .expect("the request is sent");
        let mut lines = BufReader::new(stream);
        let mut status = String::new();
        lines.read_line(&mut status).expect("a status line");
        assert!(status.contains(" 200 "), "the stream opens: {status}");
        lines
            .get_ref()
            .set_read_timeout(Some(Duration::from_millis(200)))
            .expect("a read timeout");
        Self { lines }
    }

    /// The data of the next `name` event for which `wanted` holds, waiting
    /// at most `within`; `None` at the deadline.
    fn until(
        &mut self,
        name: &str,
        within: Duration,
        wanted: impl Fn(&Value) -> bool,
    ) -> Option<Value> {
        let deadline = Instant::now() + within;
        let mut event = String::new();
        let mut line = String::new();
        while Instant::now() < deadline {
            // A read cut short by the timeout keeps what it read: the line
            // goes on at the next read.
            match self.lines.read_line(&mut line) {
                Ok(0) => return None,
                Ok(_) if line.ends_with('\n') => {}
                Ok(_) | Err(_) => continue,
            }
            let complete = std::mem::take(&mut line);
            let line = complete.trim_end();
            if let Some(value) = line.strip_prefix("event: ") {
                event = value.to_owned();
            } else if let Some(data) = line.strip_prefix("data: ")
                && event == name
                && let Ok(value) = serde_json::from_str::<Value>(data)
                && wanted(&value)
            {
                return Some(value);
            }
        }
        None
    }
}

fn device_online(state: &Value, serial: &str) -> Option<bool> {
    state["devices"]
        .as_array()?
        .iter()
        .find(|device| device["serial"] == serial)
        .and_then(|device| device["online"].as_bool())
}

e2e!(a_console_on_one_instance_sees_changes_made_through_another: postgres; instances 2);
fn a_console_on_one_instance_sees_changes_made_through_another() {
    let db = Db::new();
    let a = Server::builder().db(db.clone()).process().start();
    let b = Server::builder().db(db).process().start();
    let owner = a.account("ada@example.com");
    let agent = install(&a, &owner, "pi");

    let mut console = Console::new(&b);
    console.sign_in(&owner.email, PASSWORD);
    let mut fleet = Events::open(&b, &console, "/console/events/");
    let first = fleet
        .until("fleet", LIVE_WITHIN, |state| {
            device_online(state, &agent.serial).is_some()
        })
        .expect("the stream starts with the fleet");
    assert_eq!(device_online(&first, &agent.serial), Some(false), "{first}");

    let heard = Instant::now();
    heartbeat(&a, &agent.token, &json!({}));
    let online = fleet.until("fleet", LIVE_WITHIN, |state| {
        device_online(state, &agent.serial) == Some(true)
    });
    assert!(
        online.is_some(),
        "no update within 5 s of the heartbeat on the other instance"
    );
    assert_eq!(online.unwrap()["online"], 1);
    assert!(heard.elapsed() < LIVE_WITHIN);

    let mut device = Events::open(
        &b,
        &console,
        &format!("/console/events/?device={}", agent.serial),
    );
    reboot(&a, &owner.token, &agent.serial);
    let pending = device.until("device", LIVE_WITHIN, |state| {
        state["commands"][0]["status"] == "pending"
    });
    assert!(
        pending.is_some(),
        "the reboot made on the other instance shows"
    );
    let commands = poll(&a, &agent.token, 0);
    let id = one_reboot(&commands);
    ack_call(&a, &agent.token, &id, &json!({"status": "done"})).expect_empty(204);
    let done = device.until("device", LIVE_WITHIN, |state| {
        state["commands"][0]["status"] == "done"
    });
    assert!(
        done.is_some(),
        "the acknowledgement on the other instance shows"
    );
}
