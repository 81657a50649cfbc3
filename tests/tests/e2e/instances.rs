//! Several `devmgr serve` processes on one PostgreSQL database behave as one
//! server: what one instance does, the other sees at once, and concurrent
//! requests spread over both never make duplicates or answer 500.

use crate::device_support::*;
use crate::support::*;
use serde_json::json;
use smtp_sink::SmtpSink;
use std::collections::BTreeSet;
use std::thread;
use std::time::{Duration, Instant};

const DUPLICATE: &str = "An account with this e-mail already exists.";
const WRONG_PASSWORD: &str = "Wrong-Lantern-42";
/// How long a long poll would wait if nothing woke it.
const POLL_WAIT: u64 = 30;
/// A wake-up takes far less; a poll that took this long was not woken.
const WOKEN_WITHIN: Duration = Duration::from_secs(5);

/// Two servers with the same options on one fresh database.
fn two_instances(builder: impl Fn() -> ServerBuilder) -> (Server, Server) {
    let db = Db::new();
    let first = builder().db(db.clone()).process().start();
    let second = builder().db(db).process().start();
    (first, second)
}

e2e!(a_token_made_on_one_instance_works_on_the_other: postgres; instances 2);
fn a_token_made_on_one_instance_works_on_the_other() {
    let (a, b) = two_instances(Server::builder);
    let registered = a.register("ada@example.com");
    let profile = b.get("/profile/").token(&registered).send();
    profile.expect_status(200);
    assert_eq!(profile.json()["email"], "ada@example.com", "{profile}");

    let account = b.account("bea@example.com");
    let logged_in = b.login_token(&account.email, PASSWORD);
    a.get("/profile/")
        .token(&logged_in)
        .send()
        .expect_status(200);
}

e2e!(logging_out_on_one_instance_ends_the_token_on_the_other_at_once: postgres; instances 2);
fn logging_out_on_one_instance_ends_the_token_on_the_other_at_once() {
    let (a, b) = two_instances(Server::builder);
    let account = a.account("cid@example.com");
    let token = a.login_token(&account.email, PASSWORD);
    b.get("/profile/").token(&token).send().expect_status(200);

    a.delete("/auth/").token(&token).send().expect_empty(204);
    b.get("/profile/")
        .token(&token)
        .send()
        .expect_401("Invalid token.");
    // The account's other token is untouched on both.
    b.get("/profile/")
        .token(&account.token)
        .send()
        .expect_status(200);
}

/// Starts a long poll of `agent` on `poller` in a thread, reboots the device
/// through `requester` once the poll is surely waiting, and checks that the
/// poll returned the command soon after, long before its wait was over.
fn reboot_wakes_poll(requester: &Server, poller: &Server, owner: &Account, agent: &Agent) {
    thread::scope(|scope| {
        let polling = scope.spawn(|| {
            let started = Instant::now();
            let commands = poll(poller, &agent.token, POLL_WAIT);
            (commands, Instant::now(), started.elapsed())
        });
        // Long enough for the poll to reach the server and start waiting.
        thread::sleep(Duration::from_secs(1));
        let requested = Instant::now();
        reboot(requester, &owner.token, &agent.serial);
        let (commands, answered, waited) = polling.join().expect("the polling thread");
        let id = one_reboot(&commands);
        // Carried out: the next reboot is a new command.
        ack_call(
            poller,
            &agent.token,
            &id,
            &serde_json::json!({"status": "done"}),
        )
        .expect_empty(204);
        assert!(
            waited >= Duration::from_millis(900),
            "the poll answered before the reboot was requested ({waited:?})"
        );
        let delay = answered.saturating_duration_since(requested);
        assert!(
            delay < WOKEN_WITHIN,
            "the poll on the other instance was not woken by the reboot: it answered \
             {delay:?} after the request (a poll waits {POLL_WAIT} s unless woken)"
        );
    });
}

e2e!(a_reboot_requested_on_one_instance_wakes_a_long_poll_on_the_other: postgres; instances 2);
fn a_reboot_requested_on_one_instance_wakes_a_long_poll_on_the_other() {
    let (a, b) = two_instances(Server::builder);
    let owner = a.account("dee@example.com");
    let agent = install(&a, &owner, "pi-across");
    reboot_wakes_poll(&a, &b, &owner, &agent);
    // Once acknowledged, it is gone on both; the other way round works too.
    assert_eq!(
        heartbeat_commands(&a, &agent.token),
        Vec::<serde_json::Value>::new()
    );
    reboot_wakes_poll(&b, &a, &owner, &agent);
}

e2e!(an_instance_that_loses_its_notification_session_listens_again: postgres; instances 2);
fn an_instance_that_loses_its_notification_session_listens_again() {
    let (a, b) = two_instances(Server::builder);
    let owner = a.account("flo@example.com");
    let agent = install(&a, &owner, "pi-reconnect");
    // End every listening session on the database, as a restart of
    // PostgreSQL or a broken connection would.
    a.db.postgres().execute(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity \
         WHERE datname = current_database() AND query LIKE 'LISTEN%'",
    );
    let deadline = Instant::now() + WOKEN_WITHIN;
    while !(a
        .stderr()
        .contains("listening for PostgreSQL notifications again")
        && b.stderr()
            .contains("listening for PostgreSQL notifications again"))
    {
        assert!(
            Instant::now() < deadline,
            "the instances did not listen again:\n{}\n{}",
            a.stderr(),
            b.stderr()
        );
        thread::sleep(Duration::from_millis(50));
    }
    reboot_wakes_poll(&a, &b, &owner, &agent);
}

e2e!(deleting_a_device_on_one_instance_ends_its_long_poll_on_the_other: postgres; instances 2);
fn deleting_a_device_on_one_instance_ends_its_long_poll_on_the_other() {
    let (a, b) = two_instances(Server::builder);
    let owner = a.account("eve@example.com");
    let agent = install(&a, &owner, "pi-gone");
    thread::scope(|scope| {
        let polling = scope.spawn(|| {
            let started = Instant::now();
            let reply = poll_call(&b, &agent.token, &POLL_WAIT.to_string());
            (reply, started.elapsed())
        });
        thread::sleep(Duration::from_secs(1));
        a.delete(&device_path(&agent.serial))
            .token(&owner.token)
            .send()
            .expect_empty(204);
        let (reply, waited) = polling.join().expect("the polling thread");
        assert!(
            waited < Duration::from_secs(1) + WOKEN_WITHIN,
            "the poll was not ended by the deletion ({waited:?})\n{reply}"
        );
    });
    poll_call(&b, &agent.token, "0").expect_status(401);
}

e2e!(each_mail_is_delivered_once_while_both_instances_deliver: postgres; instances 2);
fn each_mail_is_delivered_once_while_both_instances_deliver() {
    const ACCOUNTS: usize = 24;
    let sink = SmtpSink::start();
    let (a, b) = two_instances(|| {
        Server::builder()
            .smtp_url(&sink.url())
            .args(&["--mail-from", "devmgr <noreply@devmgr.test>"])
            .throttle_off()
    });
    let addresses: Vec<String> = (0..ACCOUNTS)
        .map(|i| format!("user{i}@example.com"))
        .collect();
    thread::scope(|scope| {
        for (i, address) in addresses.iter().enumerate() {
            let server = if i % 2 == 0 { &a } else { &b };
            scope.spawn(move || server.register(address));
        }
    });
    sink.wait_for_messages(ACCOUNTS, Duration::from_secs(30));
    // Time for a second delivery of any of them to show up.
    thread::sleep(Duration::from_secs(3));
    let messages = sink.messages();
    let recipients: Vec<String> = messages.iter().flat_map(|m| m.rcpt_to.clone()).collect();
    let unique: BTreeSet<&String> = recipients.iter().collect();
    assert_eq!(
        (messages.len(), unique.len()),
        (ACCOUNTS, ACCOUNTS),
        "each of {ACCOUNTS} registrations mails once; got {} mail(s) to {recipients:?}",
        messages.len()
    );
    let ids: BTreeSet<Option<String>> = messages.iter().map(|m| m.header("Message-ID")).collect();
    assert_eq!(ids.len(), ACCOUNTS, "every mail has its own Message-ID");
}

e2e!(failed_logins_count_towards_one_lockout_across_instances: postgres; instances 2);
fn failed_logins_count_towards_one_lockout_across_instances() {
    let (a, b) = two_instances(|| {
        Server::builder().args(&[
            "--trust-proxy",
            "--throttle-rate",
            "1000/minute",
            "--login-max-failures",
            "4",
        ])
    });
    let account = a.account("fay@example.com");
    let login = |server: &Server, n: u8, password: &str| {
        server
            .post("/auth/")
            .header("X-Forwarded-For", &format!("198.51.100.{n}"))
            .json(&json!({"email": account.email, "password": password}))
            .send()
    };
    // Two failures on each instance: neither saw four, the database did.
    for (n, server) in [(1, &a), (2, &b), (3, &a), (4, &b)] {
        login(server, n, WRONG_PASSWORD)
            .expect(400, json!({"non_field_errors": [BAD_CREDENTIALS]}));
    }
    login(&a, 5, PASSWORD).expect_throttled();
    login(&b, 6, PASSWORD).expect_throttled();
}

e2e!(concurrent_registrations_of_one_address_make_one_account: postgres; instances 2);
fn concurrent_registrations_of_one_address_make_one_account() {
    const ATTEMPTS: usize = 16;
    let (a, b) = two_instances(|| Server::builder().throttle_off());
    let replies: Vec<Reply> = thread::scope(|scope| {
        let calls: Vec<_> = (0..ATTEMPTS)
            .map(|i| {
                let server = if i % 2 == 0 { &a } else { &b };
                // The same address in different letter cases.
                let email = if i % 3 == 0 {
                    "Gil@Example.com"
                } else {
                    "gil@example.com"
                };
                scope.spawn(move || {
                    server
                        .post("/register/")
                        .json(&json!({ "email": email }))
                        .send()
                })
            })
            .collect();
        calls
            .into_iter()
            .map(|call| call.join().expect("a registering thread"))
            .collect()
    });
    let created = replies.iter().filter(|r| r.status == 201).count();
    let statuses: Vec<u16> = replies.iter().map(|r| r.status).collect();
    assert_eq!(created, 1, "one registration wins: {statuses:?}");
    for reply in replies.iter().filter(|r| r.status != 201) {
        reply.expect_field_errors("email", &[DUPLICATE]);
    }
}

e2e!(concurrent_reboots_queue_one_command: postgres; instances 2);
fn concurrent_reboots_queue_one_command() {
    const REQUESTS: usize = 16;
    let (a, b) = two_instances(|| Server::builder().throttle_off());
    let owner = a.account("hal@example.com");
    let agent = install(&a, &owner, "pi-busy");
    thread::scope(|scope| {
        for i in 0..REQUESTS {
            let server = if i % 2 == 0 { &a } else { &b };
            let (owner, serial) = (&owner, &agent.serial);
            scope.spawn(move || reboot(server, &owner.token, serial));
        }
    });
    one_reboot(&heartbeat_commands(&b, &agent.token));
    assert_eq!(
        heartbeat_commands(&a, &agent.token),
        Vec::<serde_json::Value>::new()
    );
}

e2e!(a_write_storm_over_both_instances_never_answers_500: postgres; instances 2);
fn a_write_storm_over_both_instances_never_answers_500() {
    const DEVICES: usize = 4;
    const ROUNDS: usize = 15;
    let (a, b) = two_instances(|| Server::builder().throttle_off());
    let owner = a.account("ivy@example.com");
    let agents: Vec<Agent> = (0..DEVICES)
        .map(|i| install(&a, &owner, &format!("pi-{i}")))
        .collect();
    let statuses: Vec<u16> = thread::scope(|scope| {
        let mut workers = Vec::new();
        for (i, agent) in agents.iter().enumerate() {
            let (owner, agent) = (&owner, agent);
            let (mine, other) = if i % 2 == 0 { (&a, &b) } else { (&b, &a) };
            // The agent: heartbeats with ports, and re-enrolments.
            workers.push(scope.spawn(move || {
                (0..ROUNDS)
                    .flat_map(|round| {
                        let ports = json!({"ports": [{"port": 22 + round, "protocol": "tcp"}]});
                        [
                            heartbeat_call(mine, &agent.token, &ports).status,
                            heartbeat_call(other, &agent.token, &json!({})).status,
                        ]
                    })
                    .collect::<Vec<u16>>()
            }));
            // The owner: renames, reboots, reads, on both instances.
            workers.push(scope.spawn(move || {
                (0..ROUNDS)
                    .flat_map(|round| {
                        let path = device_path(&agent.serial);
                        [
                            other
                                .patch(&path)
                                .token(&owner.token)
                                .json(&json!({"name": format!("pi-{i}-{round}")}))
                                .send()
                                .status,
                            mine.post(&reboot_path(&agent.serial))
                                .token(&owner.token)
                                .send()
                                .status,
                            other.get("/devices/").token(&owner.token).send().status,
                        ]
                    })
                    .collect::<Vec<u16>>()
            }));
        }
        workers
            .into_iter()
            .flat_map(|worker| worker.join().expect("a worker"))
            .collect()
    });
    let failed: Vec<u16> = statuses.iter().copied().filter(|s| *s >= 300).collect();
    assert!(
        failed.is_empty(),
        "every request succeeds; these did not: {failed:?}\nstderr of one:\n{}\nof the other:\n{}",
        a.stderr(),
        b.stderr()
    );
    // Every device is where its last rename left it.
    for (i, agent) in agents.iter().enumerate() {
        let detail = device_detail(&b, &owner.token, &agent.serial);
        assert_eq!(detail["name"], format!("pi-{i}-{}", ROUNDS - 1), "{detail}");
    }
}
