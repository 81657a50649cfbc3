//! A webhook delivery survives its server being killed (SIGKILL, no
//! clean-up of any kind) between two attempts: the delivery lives in the
//! store (docs/architecture.md, "Background work"), so a new server on the
//! same database makes the next attempt when it is due, counting on from
//! the attempts recorded, and every attempt carries the same delivery id,
//! body bytes and signature (docs/webhooks.md).

use crate::alerting_support::*;
use crate::support::*;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// Failed attempts recorded before the kill (the next waits 4 s).
const BEFORE_KILL: u64 = 3;

/// A `devmgr serve` process on `db` whose webhooks may reach this machine.
fn serve(db: Db) -> Server {
    Server::builder()
        .db(db)
        .online_window(WINDOW)
        .throttle_off()
        .args(&["--allow-private-webhooks"])
        .process()
        .start()
}

e2e!(a_delivery_carries_on_after_its_server_is_killed_between_attempts);
fn a_delivery_carries_on_after_its_server_is_killed_between_attempts() {
    // The receiver fails every attempt until the server was restarted.
    let restarted = Arc::new(AtomicBool::new(false));
    let seen = restarted.clone();
    let receiver = Receiver::start(move |_, _| {
        if seen.load(Ordering::SeqCst) {
            Answer::Status(204)
        } else {
            Answer::Status(500)
        }
    });
    let server = serve(Db::new());
    let owner = server.account("ada@example.com");
    let hook = create_webhook(&server, &owner.token, &receiver.url("/hook"), None);
    let id = ping(&server, &owner.token, &hook);
    let before = wait_for_delivery(&server, &owner.token, &hook, &id, "failed attempts", |d| {
        d["attempts"] == BEFORE_KILL
    });
    assert_eq!(before["status"], "pending", "{before:#}");
    assert_eq!(before["response_code"], 500, "{before:#}");

    let db = server.kill();
    assert_eq!(
        receiver.received().len() as u64,
        BEFORE_KILL,
        "no attempt in flight at the kill: {:#?}",
        receiver.received()
    );
    restarted.store(true, Ordering::SeqCst);
    let server = serve(db);
    let done = wait_for_delivery(
        &server,
        &owner.token,
        &hook,
        &id,
        "the delivery after the restart",
        |d| d["status"] == "succeeded",
    );
    assert_eq!(
        done["attempts"],
        BEFORE_KILL + 1,
        "counted on: {done:#}\nlog:\n{}",
        server.log()
    );
    assert_eq!(done["response_code"], 204, "{done:#}");
    assert_eq!(done["error"], "", "{done:#}");

    let attempts = receiver.received();
    assert_eq!(attempts.len() as u64, BEFORE_KILL + 1, "{attempts:#?}");
    let body = assert_delivery(&attempts[0], &hook, "ping");
    assert_eq!(body["delivery"], id.as_str(), "{body:#}");
    for attempt in &attempts[1..] {
        assert_eq!(attempt.body, attempts[0].body, "the same body bytes");
        for header in ["x-devmgr-delivery", "x-devmgr-signature", "x-devmgr-event"] {
            assert_eq!(
                attempt.header(header),
                attempts[0].header(header),
                "{header}"
            );
        }
    }
    assert_eq!(
        deliveries(&server, &owner.token, &hook).len(),
        1,
        "one delivery"
    );
}
