//! The agent API's command long poll and acknowledgements (docs/agent-protocol.md).

use crate::agent_support::*;
use crate::device_support::*;
use crate::support::*;
use serde_json::{Value, json};
use std::thread;
use std::time::Duration;

e2e!(a_reboot_is_handed_out_once_by_the_next_heartbeat);
fn a_reboot_is_handed_out_once_by_the_next_heartbeat() {
    let (server, alice, agent) = setup();
    reboot(&server, &alice.token, &agent.serial);
    let answer = heartbeat(&server, &agent.token, &json!({}));
    assert_eq!(answer["heartbeat_interval"], 30);
    one_reboot(answer["commands"].as_array().expect("a list"));
    assert_eq!(
        heartbeat_commands(&server, &agent.token),
        Vec::<Value>::new()
    );
    assert_eq!(poll(&server, &agent.token, 0), Vec::<Value>::new());
}

e2e!(a_pending_reboot_is_handed_out_once_by_a_long_poll);
fn a_pending_reboot_is_handed_out_once_by_a_long_poll() {
    let (server, alice, agent) = setup();
    reboot(&server, &alice.token, &agent.serial);
    // Pending already: answered at once, whatever the wait (60, the longest).
    one_reboot(&poll(&server, &agent.token, 60));
    assert_eq!(poll(&server, &agent.token, 0), Vec::<Value>::new());
    assert_eq!(
        heartbeat_commands(&server, &agent.token),
        Vec::<Value>::new()
    );
}

e2e!(queuing_a_reboot_wakes_a_waiting_long_poll);
fn queuing_a_reboot_wakes_a_waiting_long_poll() {
    let (server, alice, agent) = setup();
    let commands = thread::scope(|scope| {
        let waiting = scope.spawn(|| poll(&server, &agent.token, 20));
        thread::sleep(Duration::from_millis(500));
        reboot(&server, &alice.token, &agent.serial);
        waiting.join().expect("the long poll thread")
    });
    // Had the poll timed out instead, it would have answered [].
    one_reboot(&commands);
    assert_eq!(
        heartbeat_commands(&server, &agent.token),
        Vec::<Value>::new()
    );
}

e2e!(another_devices_command_does_not_answer_a_long_poll);
fn another_devices_command_does_not_answer_a_long_poll() {
    let (server, alice, kitchen) = setup();
    let garage = install(&server, &alice, "Garage Pi");
    let commands = thread::scope(|scope| {
        let waiting = scope.spawn(|| poll(&server, &kitchen.token, 2));
        thread::sleep(Duration::from_millis(500));
        reboot(&server, &alice.token, &garage.serial);
        waiting.join().expect("the long poll thread")
    });
    assert_eq!(commands, Vec::<Value>::new());
    one_reboot(&heartbeat_commands(&server, &garage.token));
}

e2e!(a_long_poll_with_nothing_pending_answers_an_empty_list_and_is_no_heartbeat);
fn a_long_poll_with_nothing_pending_answers_an_empty_list_and_is_no_heartbeat() {
    let (server, alice, agent) = setup();
    assert_eq!(poll(&server, &agent.token, 1), Vec::<Value>::new());
    // `wait` defaults to 0.
    server
        .get("/agent/commands/")
        .device(&agent.token)
        .send()
        .expect(200, json!({"commands": []}));
    assert_eq!(
        device_detail(&server, &alice.token, &agent.serial)["online"],
        false,
        "a long poll does not count as a heartbeat"
    );
}

e2e!(wait_must_be_a_whole_number_from_0_to_60);
fn wait_must_be_a_whole_number_from_0_to_60() {
    let (server, alice, agent) = setup();
    for (wait, message) in [
        ("61", "Ensure this value is less than or equal to 60."),
        ("3600", "Ensure this value is less than or equal to 60."),
        ("-1", "Ensure this value is greater than or equal to 0."),
        ("soon", "A valid integer is required."),
        ("1.5", "A valid integer is required."),
    ] {
        poll_call(&server, &agent.token, wait).expect_field_errors("wait", &[message]);
    }
    // A refused poll hands nothing out.
    reboot(&server, &alice.token, &agent.serial);
    poll_call(&server, &agent.token, "61")
        .expect_field_errors("wait", &["Ensure this value is less than or equal to 60."]);
    one_reboot(&poll(&server, &agent.token, 0));
}

e2e!(head_on_commands_hands_nothing_out);
fn head_on_commands_hands_nothing_out() {
    let (server, alice, agent) = setup();
    reboot(&server, &alice.token, &agent.serial);
    server
        .head("/agent/commands/")
        .device(&agent.token)
        .send()
        .expect_empty(200);
    server
        .head("/agent/commands/?wait=20")
        .device(&agent.token)
        .send()
        .expect_empty(200);
    one_reboot(&heartbeat_commands(&server, &agent.token));
}

e2e!(a_reboot_asked_for_twice_while_pending_is_queued_once);
fn a_reboot_asked_for_twice_while_pending_is_queued_once() {
    let (server, alice, agent) = setup();
    reboot(&server, &alice.token, &agent.serial);
    reboot(&server, &alice.token, &agent.serial);
    one_reboot(&heartbeat_commands(&server, &agent.token));
    assert_eq!(poll(&server, &agent.token, 0), Vec::<Value>::new());
}

e2e!(a_reboot_after_the_last_ended_is_a_new_command);
fn a_reboot_after_the_last_ended_is_a_new_command() {
    let (server, alice, agent) = setup();
    reboot(&server, &alice.token, &agent.serial);
    let first = one_reboot(&heartbeat_commands(&server, &agent.token));
    // Delivered, then received: still not ended, so not queued again.
    reboot(&server, &alice.token, &agent.serial);
    assert_eq!(poll(&server, &agent.token, 0), Vec::<Value>::new());
    ack_call(
        &server,
        &agent.token,
        &first,
        &json!({"status": "received"}),
    )
    .expect_empty(204);
    reboot(&server, &alice.token, &agent.serial);
    assert_eq!(poll(&server, &agent.token, 0), Vec::<Value>::new());
    ack_call(&server, &agent.token, &first, &json!({"status": "done"})).expect_empty(204);
    reboot(&server, &alice.token, &agent.serial);
    let second = one_reboot(&poll(&server, &agent.token, 0));
    assert_ne!(first, second);
}

e2e!(commands_go_only_to_their_own_device);
fn commands_go_only_to_their_own_device() {
    let (server, alice, kitchen) = setup();
    let garage = install(&server, &alice, "Garage Pi");
    reboot(&server, &alice.token, &kitchen.serial);
    assert_eq!(
        heartbeat_commands(&server, &garage.token),
        Vec::<Value>::new()
    );
    assert_eq!(poll(&server, &garage.token, 0), Vec::<Value>::new());
    one_reboot(&heartbeat_commands(&server, &kitchen.token));
}

// ---------------------------------------------------------------- ack

e2e!(a_command_is_acknowledged_with_204_and_again_with_204);
fn a_command_is_acknowledged_with_204_and_again_with_204() {
    let (server, alice, agent) = setup();
    reboot(&server, &alice.token, &agent.serial);
    let id = one_reboot(&heartbeat_commands(&server, &agent.token));
    ack_call(
        &server,
        &agent.token,
        &id,
        &json!({"status": "done", "detail": "reboot started"}),
    )
    .expect_empty(204);
    ack_call(&server, &agent.token, &id, &json!({"status": "failed"})).expect_empty(204);

    reboot(&server, &alice.token, &agent.serial);
    let id = one_reboot(&poll(&server, &agent.token, 0));
    ack_call(
        &server,
        &agent.token,
        &id,
        &json!({"status": "failed", "detail": ""}),
    )
    .expect_empty(204);
}

e2e!(acknowledging_an_unknown_or_foreign_command_is_404);
fn acknowledging_an_unknown_or_foreign_command_is_404() {
    let (server, alice, agent) = setup();
    let other = install(&server, &alice, "Garage Pi");
    reboot(&server, &alice.token, &other.serial);
    let others = one_reboot(&heartbeat_commands(&server, &other.token));
    for id in [others.as_str(), MISSING_SERIAL, "not-a-uuid"] {
        ack_call(&server, &agent.token, id, &json!({"status": "done"}))
            .expect_detail(404, NOT_FOUND);
    }
    // The owner can still acknowledge it.
    ack_call(&server, &other.token, &others, &json!({"status": "done"})).expect_empty(204);
}

e2e!(an_acknowledgement_needs_a_valid_status_and_a_short_detail);
fn an_acknowledgement_needs_a_valid_status_and_a_short_detail() {
    let (server, alice, agent) = setup();
    reboot(&server, &alice.token, &agent.serial);
    let id = one_reboot(&heartbeat_commands(&server, &agent.token));
    for (body, errors) in [
        (json!({}), json!({"status": [REQUIRED]})),
        (json!({"detail": "done"}), json!({"status": [REQUIRED]})),
        (
            json!({"status": "maybe"}),
            json!({"status": [not_a_choice("maybe")]}),
        ),
        (json!({"status": null}), json!({"status": [NULL]})),
        (
            json!({"status": "done", "detail": chars('d', 1001)}),
            json!({"detail": [too_long(1000)]}),
        ),
    ] {
        ack_call(&server, &agent.token, &id, &body).expect(400, errors);
    }
    ack_call(
        &server,
        &agent.token,
        &id,
        &json!({"status": "done", "detail": chars('d', 1000)}),
    )
    .expect_empty(204);
}
