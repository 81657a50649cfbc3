//! Limits across instances (docs/operations.md, "What is shared, what is per
//! instance"): two `devmgr serve` processes on one PostgreSQL database count
//! the per-address throttle, the password-change rate and the long polls of
//! a device together. Requests alternate between the instances, and the
//! shared budget ends where one instance's own would not have.

use crate::device_support::{DeviceAuth, install};
use crate::support::*;
use serde_json::json;
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

const WRONG_PASSWORD: &str = "Wrong-Lantern-42";
/// How soon a poll pushed out on another instance answers, counted from
/// when the poll that pushes it out is sent (the push-out itself takes
/// milliseconds; a poll not pushed out would wait 30 s).
const ENDED_WITHIN: Duration = Duration::from_secs(2);

/// Two servers with the same options on one fresh database.
fn two_instances(args: &[&str]) -> (Server, Server) {
    let db = Db::new();
    let first = Server::builder()
        .args(args)
        .db(db.clone())
        .process()
        .start();
    let second = Server::builder().args(args).db(db).process().start();
    (first, second)
}

e2e!(the_address_budget_is_spent_on_both_instances_together: postgres; instances 2);
fn the_address_budget_is_spent_on_both_instances_together() {
    let (a, b) = two_instances(&["--throttle-rate", "4/minute"]);
    let sign_in = |server: &Server| {
        server
            .post("/auth/")
            .json(&json!({"email": "nobody@example.com", "password": WRONG_PASSWORD}))
            .send()
    };
    // Two on each: each instance alone would allow two more.
    for server in [&a, &b, &a, &b] {
        sign_in(server).expect_status(400);
    }
    let reply = sign_in(&a);
    let seconds = reply.expect_throttled();
    assert!(seconds <= 15, "4/minute refills one every 15 s\n{reply}");
    sign_in(&b).expect_throttled();
    // Other throttled routes share the address's budget, on either instance.
    b.post("/register/")
        .json(&json!({"email": "not-an-email"}))
        .send()
        .expect_throttled();
}

e2e!(the_password_change_rate_counts_changes_on_both_instances: postgres; instances 2);
fn the_password_change_rate_counts_changes_on_both_instances() {
    let (a, b) = two_instances(&["--password-change-rate", "3/hour"]);
    let account = a.account("ann@example.com");
    let other = a.account("bob@example.com");
    let change = |server: &Server, token: &str, old: &str, new: &str| {
        server
            .post("/change-password/")
            .token(token)
            .json(&json!({"old_password": old, "new_password": new}))
            .send()
    };
    let mut password = account.password.clone();
    for (i, server) in [&a, &b, &a].into_iter().enumerate() {
        let new = format!("changed-horse-battery-{i}");
        change(server, &account.token, &password, &new).expect_empty(204);
        password = new;
    }
    let reply = change(&b, &account.token, &password, "changed-horse-battery-x");
    let wait = reply.expect_throttled();
    assert!(wait > 60, "3/hour gives one back every 20 minutes\n{reply}");
    change(&a, &account.token, &password, "changed-horse-battery-x").expect_throttled();
    // Another account's budget is whole.
    change(&b, &other.token, &other.password, "changed-horse-battery-y").expect_empty(204);
}

/// A long poll of the device on `server`, waiting up to `wait` seconds, on
/// a thread; it gives the reply and how long it took.
fn poll(server: &Server, token: &str, wait: u32) -> JoinHandle<(Reply, Duration)> {
    let call = server
        .get(&format!("/agent/commands/?wait={wait}"))
        .device(token);
    thread::spawn(move || {
        let started = Instant::now();
        let reply = call.send();
        (reply, started.elapsed())
    })
}

/// Long enough for a poll to reach its server and register.
fn settle() {
    thread::sleep(Duration::from_millis(500));
}

e2e!(a_third_long_poll_on_one_instance_ends_the_oldest_on_the_other: postgres; instances 2);
fn a_third_long_poll_on_one_instance_ends_the_oldest_on_the_other() {
    let (a, b) = two_instances(&[]);
    let account = a.account("ann@example.com");
    let agent = install(&a, &account, "pi");
    let first = poll(&a, &agent.token, 30);
    settle();
    let second = poll(&a, &agent.token, 30);
    settle();
    let third_opened = Instant::now();
    let third = poll(&b, &agent.token, 4);
    let (reply, _) = first.join().unwrap();
    let ended_after = third_opened.elapsed();
    reply.expect(200, json!({"commands": []}));
    assert!(
        ended_after < ENDED_WITHIN,
        "the oldest poll, on the other instance, answered {ended_after:?} after the third opened"
    );
    // Two are open now, one on each instance: a fourth, on the first
    // instance, ends the second; the third goes on until its own wait ends.
    settle();
    let fourth = poll(&a, &agent.token, 1);
    let (reply, waited) = second.join().unwrap();
    reply.expect(200, json!({"commands": []}));
    assert!(
        waited < Duration::from_secs(10),
        "the second poll was ended by the fourth: {waited:?}"
    );
    fourth
        .join()
        .unwrap()
        .0
        .expect(200, json!({"commands": []}));
    let (reply, waited) = third.join().unwrap();
    reply.expect(200, json!({"commands": []}));
    assert!(
        waited >= Duration::from_secs(4),
        "the third poll stayed open for its whole wait: {waited:?}"
    );
}
