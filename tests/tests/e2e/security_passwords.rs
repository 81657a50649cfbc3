//! Security rules of logins and passwords (docs/security.md): the lockout under
//! concurrency, bounded password hashing, answers that carry secrets.

use crate::device_support::install_call;
use crate::support::*;
use serde_json::json;

/// Sends `requests` at once from as many threads; the replies, in order.
fn at_once(requests: Vec<Call>) -> Vec<Reply> {
    let barrier = std::sync::Barrier::new(requests.len());
    std::thread::scope(|scope| {
        let handles: Vec<_> = requests
            .into_iter()
            .map(|call| {
                let barrier = &barrier;
                scope.spawn(move || {
                    barrier.wait();
                    call.send()
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("a request thread"))
            .collect()
    })
}

e2e!(concurrent_logins_are_verified_no_more_often_than_the_lockout_allows);
/// The audit's race: 20 logins at once (19 wrong, 1 right) against the
/// 5-failure lockout. Verified answers are 201 and 400; the rest must be
/// the lockout's 429, at once.
fn concurrent_logins_are_verified_no_more_often_than_the_lockout_allows() {
    let server = Server::builder()
        .args(&["--throttle-rate", "1000/minute"])
        .start();
    let account = server.account("ann@example.com");
    let calls = (0..20)
        .map(|i| {
            let password = if i == 10 {
                account.password.clone()
            } else {
                format!("wrong-guess-{i}")
            };
            server
                .post("/auth/")
                .json(&json!({"email": "ann@example.com", "password": password}))
        })
        .collect();
    let replies = at_once(calls);
    let verified = replies
        .iter()
        .filter(|r| r.status == 201 || r.status == 400)
        .count();
    assert!(verified <= 5, "{verified} of 20 verified");
    for reply in replies.iter().filter(|r| r.status == 429) {
        reply.expect_throttled();
    }
    assert_eq!(
        verified + replies.iter().filter(|r| r.status == 429).count(),
        20
    );
}

e2e!(wrong_old_passwords_count_as_failed_logins);
fn wrong_old_passwords_count_as_failed_logins() {
    let server = Server::builder()
        .args(&["--login-max-failures", "3"])
        .start();
    let account = server.account("ann@example.com");
    let change = |old: &str| {
        server
            .post("/change-password/")
            .token(&account.token)
            .json(&json!({"old_password": old, "new_password": "changed-horse-battery-9"}))
            .send()
    };
    for i in 0..3 {
        change(&format!("guess-{i}")).expect_field_errors(
            "old_password",
            &["Your old password was entered incorrectly. Please enter it again."],
        );
    }
    change(&account.password).expect_throttled();
    server
        .login("ann@example.com", &account.password)
        .expect_throttled();
}

e2e!(password_changes_are_limited_per_account_counting_successes_too);
fn password_changes_are_limited_per_account_counting_successes_too() {
    let server = Server::builder()
        .args(&["--password-change-rate", "3/hour"])
        .start();
    let account = server.account("ann@example.com");
    let other = server.account("bob@example.com");
    let mut password = account.password.clone();
    for i in 0..3 {
        let new = format!("changed-horse-battery-{i}");
        server
            .post("/change-password/")
            .token(&account.token)
            .json(&json!({"old_password": password, "new_password": new}))
            .send()
            .expect_empty(204);
        password = new;
    }
    let wait = server
        .post("/change-password/")
        .token(&account.token)
        .json(&json!({"old_password": password, "new_password": "changed-horse-battery-x"}))
        .send()
        .expect_throttled();
    assert!(wait > 60, "{wait}");
    server
        .post("/change-password/")
        .token(&other.token)
        .json(&json!({"old_password": other.password, "new_password": "changed-horse-battery-y"}))
        .send()
        .expect_empty(204);
}

e2e!(a_full_hash_queue_answers_503_at_once);
fn a_full_hash_queue_answers_503_at_once() {
    let server = Server::builder()
        .args(&["--throttle", "off", "--max-hash-queue", "1"])
        .start();
    let calls = (0..24)
        .map(|i| {
            server
                .post("/auth/")
                .json(&json!({"email": format!("nobody-{i}@example.com"), "password": "x"}))
        })
        .collect();
    let replies = at_once(calls);
    let busy: Vec<&Reply> = replies.iter().filter(|r| r.status == 503).collect();
    assert!(!busy.is_empty(), "no 503 among {:?}", statuses(&replies));
    for reply in busy {
        reply.expect_detail(503, "The server is busy. Try again shortly.");
        assert_eq!(reply.header("retry-after"), Some("1"), "{reply}");
    }
    assert!(
        replies.iter().all(|r| r.status == 503 || r.status == 400),
        "{:?}",
        statuses(&replies)
    );
    // The queue drains: the next login is served.
    server
        .post("/auth/")
        .json(&json!({"email": "nobody@example.com", "password": "x"}))
        .send()
        .expect_status(400);
}

fn statuses(replies: &[Reply]) -> Vec<u16> {
    replies.iter().map(|r| r.status).collect()
}

e2e!(answers_that_carry_secrets_are_never_stored);
fn answers_that_carry_secrets_are_never_stored() {
    let server = Server::start();
    let account = server.account("ann@example.com");
    let earlier = server.mails();
    let mut replies = vec![
        server.login("ann@example.com", &account.password),
        server
            .post("/register/")
            .json(&json!({"email": "new@example.com"}))
            .send(),
        install_call(
            &server,
            &json!({"install_token": account.install_token, "name": "pi"}),
        ),
        server.get("/profile/").token(&account.token).send(),
        server
            .put("/profile/")
            .token(&account.token)
            .json(&json!({"name": "Ann"}))
            .send(),
        server
            .patch("/profile/")
            .token(&account.token)
            .json(&json!({"name": "Ann"}))
            .send(),
    ];
    replies.push(
        server
            .post("/profile/install-token/")
            .token(&account.token)
            .send(),
    );
    for reply in &replies {
        assert!(reply.status < 300, "{reply}");
        assert_eq!(reply.header("cache-control"), Some("no-store"), "{reply}");
    }
    server.wait_for_new_mail(&earlier);
}
