//! The agent API's enrolment through POST /install/ (docs/agent-protocol.md).

use crate::agent_support::*;
use crate::device_support::*;
use crate::support::*;
use serde_json::json;

e2e!(install_enrols_an_offline_device_in_the_install_tokens_account);
fn install_enrols_an_offline_device_in_the_install_tokens_account() {
    let server = Server::start();
    let alice = server.account("alice@example.com");
    let bob = server.account("bob@example.com");
    let agent = install(&server, &alice, "Kitchen Pi");
    assert_eq!(
        listed_serials(&server, &alice.token),
        [agent.serial.as_str()]
    );
    assert_eq!(listed_serials(&server, &bob.token), Vec::<String>::new());
    let device = device_detail(&server, &alice.token, &agent.serial);
    assert_eq!(device["name"], "Kitchen Pi");
    assert_eq!(device["description"], "");
    assert_eq!(device["machine_type"], "unknown");
    assert_eq!(device["machine_type_display"], "Unknown");
    assert_eq!(device["agent_version"], "");
    assert_eq!(
        device["online"], false,
        "installing does not make it online"
    );
    assert_eq!(
        device["url"],
        format!("{}/devices/{}/", server.expected_base(), agent.serial)
    );
}

e2e!(install_keeps_a_given_serial_in_lowercase_and_the_machine_type);
fn install_keeps_a_given_serial_in_lowercase_and_the_machine_type() {
    let server = Server::start();
    let alice = server.account("alice@example.com");
    let serial = "0f8fad5b-d9cb-469f-a165-70867728950e";
    let agent = install_with(
        &server,
        &alice,
        "Kitchen Pi",
        json!({"serial": serial.to_ascii_uppercase(), "machine_type": "rpi_4b"}),
    );
    assert_eq!(agent.serial, serial);
    let device = device_detail(&server, &alice.token, serial);
    assert_eq!(device["machine_type"], "rpi_4b");
    assert_eq!(device["machine_type_display"], "Raspberry Pi 4 Model B");
}

e2e!(each_install_without_a_serial_makes_a_new_device_with_its_own_token);
fn each_install_without_a_serial_makes_a_new_device_with_its_own_token() {
    let (server, alice, first) = setup();
    let second = install(&server, &alice, "Kitchen Pi");
    assert_ne!(first.serial, second.serial);
    assert_ne!(first.token, second.token);
    assert_eq!(listed_serials(&server, &alice.token).len(), 2);
    // Both tokens work.
    heartbeat(&server, &first.token, &json!({}));
    heartbeat(&server, &second.token, &json!({}));
}

e2e!(install_uses_the_public_url_when_configured);
fn install_uses_the_public_url_when_configured() {
    let server = Server::builder()
        .public_url("https://devmgr.example.net")
        .start();
    let alice = server.account("alice@example.com");
    // `installed` checks the url against the public URL.
    let agent = install(&server, &alice, "Kitchen Pi");
    assert!(is_lowercase_uuid(&agent.serial));
}

e2e!(an_unknown_install_token_is_refused);
fn an_unknown_install_token_is_refused() {
    let server = Server::start();
    let alice = server.account("alice@example.com");
    install_call(
        &server,
        &json!({"install_token": "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "name": "Intruder"}),
    )
    .expect_field_errors("install_token", &["Invalid install token."]);
    assert_eq!(listed_serials(&server, &alice.token), Vec::<String>::new());
}

e2e!(install_requires_the_install_token_and_a_name);
fn install_requires_the_install_token_and_a_name() {
    let (server, alice, _agent) = setup();
    install_call(&server, &json!({})).expect(
        400,
        json!({"install_token": [REQUIRED], "name": [REQUIRED]}),
    );
    install_call(&server, &json!({"install_token": alice.install_token}))
        .expect_field_errors("name", &[REQUIRED]);
    server.post("/install/").send().expect(
        400,
        json!({"install_token": [REQUIRED], "name": [REQUIRED]}),
    );
    assert_eq!(listed_serials(&server, &alice.token).len(), 1);
}

e2e!(install_checks_the_name);
fn install_checks_the_name() {
    let server = Server::start();
    let alice = server.account("alice@example.com");
    let cases = [
        (json!(""), BLANK.to_owned()),
        (json!("   "), BLANK.to_owned()),
        (json!(null), NULL.to_owned()),
        (json!(["Kitchen Pi"]), NOT_A_STRING.to_owned()),
        (json!(chars('é', 101)), too_long(100)),
    ];
    for (name, message) in cases {
        install_call(
            &server,
            &json!({"install_token": alice.install_token, "name": name}),
        )
        .expect_field_errors("name", &[&message]);
    }
    assert_eq!(listed_serials(&server, &alice.token), Vec::<String>::new());
    // 100 characters are fine, and a name is stored as sent.
    for name in [chars('é', 100), " Küchen-Pi ".to_owned()] {
        let agent = install(&server, &alice, &name);
        assert_eq!(
            device_detail(&server, &alice.token, &agent.serial)["name"],
            name.as_str()
        );
    }
}

e2e!(install_checks_the_serial_and_the_machine_type);
fn install_checks_the_serial_and_the_machine_type() {
    let server = Server::start();
    let alice = server.account("alice@example.com");
    install_call(
        &server,
        &json!({"install_token": alice.install_token, "name": "Pi", "serial": "not-a-uuid"}),
    )
    .expect_field_errors("serial", &["Must be a valid UUID."]);
    install_call(
        &server,
        &json!({"install_token": alice.install_token, "name": "Pi", "machine_type": "toaster"}),
    )
    .expect_field_errors("machine_type", &[&not_a_choice("toaster")]);
    // Every field error of one request comes together.
    install_call(
        &server,
        &json!({
            "install_token": "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
            "name": "",
            "serial": "not-a-uuid",
            "machine_type": "toaster",
        }),
    )
    .expect(
        400,
        json!({
            "install_token": ["Invalid install token."],
            "name": [BLANK],
            "serial": ["Must be a valid UUID."],
            "machine_type": [not_a_choice("toaster")],
        }),
    );
    assert_eq!(listed_serials(&server, &alice.token), Vec::<String>::new());
}

e2e!(installing_again_rekeys_the_device_and_keeps_everything_else);
fn installing_again_rekeys_the_device_and_keeps_everything_else() {
    // A one-second online window: the device is offline again soon after
    // its heartbeat, and only an offline device is re-keyed.
    let server = Server::builder().online_window(1).start();
    let alice = server.account("alice@example.com");
    let first = install(&server, &alice, "Kitchen Pi");
    heartbeat(
        &server,
        &first.token,
        &json!({"agent_version": "1.0.0", "ports": [{"port": 22, "protocol": "tcp", "name": "ssh"}]}),
    );
    server
        .patch(&device_path(&first.serial))
        .token(&alice.token)
        .json(&json!({"description": "By the fridge"}))
        .send()
        .expect_status(200);
    reboot(&server, &alice.token, &first.serial);
    let before = device_detail(&server, &alice.token, &first.serial);
    server.advance(std::time::Duration::from_millis(1100));

    let second = install_with(
        &server,
        &alice,
        "Pantry Pi",
        json!({"serial": first.serial}),
    );
    assert_eq!(second.serial, first.serial);
    assert_ne!(second.token, first.token);

    heartbeat_call(&server, &first.token, &json!({})).expect_device_401(INVALID_TOKEN);
    poll_call(&server, &first.token, "0").expect_device_401(INVALID_TOKEN);
    // The pending reboot survives and goes to the new token.
    one_reboot(&heartbeat_commands(&server, &second.token));

    let after = device_detail(&server, &alice.token, &first.serial);
    assert_eq!(after["name"], "Pantry Pi");
    for key in [
        "description",
        "agent_version",
        "machine_type",
        "created_time",
        "wormhole_slug",
    ] {
        assert_eq!(after[key], before[key], "{key} is kept");
    }
    assert_eq!(
        device_ports(&server, &alice.token, &first.serial),
        json!([{"port": 22, "protocol": "tcp", "name": "ssh"}])
    );
    assert_eq!(listed_serials(&server, &alice.token), [first.serial]);
}

e2e!(installing_a_device_added_on_the_command_line_rekeys_it);
fn installing_a_device_added_on_the_command_line_rekeys_it() {
    let server = Server::start();
    let alice = server.account("alice@example.com");
    let serial = "3f2504e0-4f89-41d3-9a0c-0305e82c3301";
    server.device(
        &alice.email,
        "Made by hand",
        &["--serial", serial, "--description", "From the CLI"],
    );
    let agent = install_with(&server, &alice, "Garage Pi", json!({"serial": serial}));
    assert_eq!(agent.serial, serial);
    assert_eq!(listed_serials(&server, &alice.token), [serial]);
    let device = device_detail(&server, &alice.token, serial);
    assert_eq!(device["name"], "Garage Pi");
    assert_eq!(device["description"], "From the CLI");
    heartbeat(&server, &agent.token, &json!({}));
}

e2e!(reinstalling_sets_the_machine_type_only_when_sent);
fn reinstalling_sets_the_machine_type_only_when_sent() {
    let server = Server::start();
    let alice = server.account("alice@example.com");
    let agent = install_with(&server, &alice, "Pi", json!({"machine_type": "rpi_4b"}));
    install_with(&server, &alice, "Pi", json!({"serial": agent.serial}));
    assert_eq!(
        device_detail(&server, &alice.token, &agent.serial)["machine_type"],
        "rpi_4b"
    );
    install_with(
        &server,
        &alice,
        "Pi",
        json!({"serial": agent.serial, "machine_type": "x86_64"}),
    );
    assert_eq!(
        device_detail(&server, &alice.token, &agent.serial)["machine_type"],
        "x86_64"
    );
}

e2e!(a_serial_of_another_account_is_refused);
fn a_serial_of_another_account_is_refused() {
    let server = Server::start();
    let alice = server.account("alice@example.com");
    let bob = server.account("bob@example.com");
    let bobs = install(&server, &bob, "Bob's Pi");
    let before = device_detail(&server, &bob.token, &bobs.serial);
    install_call(
        &server,
        &json!({"install_token": alice.install_token, "name": "Mine now", "serial": bobs.serial}),
    )
    .expect_field_errors("serial", &["This serial belongs to another account."]);
    // Not in a different letter case either.
    install_call(
        &server,
        &json!({
            "install_token": alice.install_token,
            "name": "Mine now",
            "serial": bobs.serial.to_ascii_uppercase(),
        }),
    )
    .expect_field_errors("serial", &["This serial belongs to another account."]);
    assert_eq!(device_detail(&server, &bob.token, &bobs.serial), before);
    assert_eq!(listed_serials(&server, &alice.token), Vec::<String>::new());
    heartbeat(&server, &bobs.token, &json!({}));
}

e2e!(install_is_throttled_per_address);
fn install_is_throttled_per_address() {
    let server = Server::builder()
        .args(&["--throttle-rate", "2/minute"])
        .start();
    let alice = server.account("alice@example.com");
    install(&server, &alice, "One");
    install(&server, &alice, "Two");
    install_call(
        &server,
        &json!({"install_token": alice.install_token, "name": "Three"}),
    )
    .expect_throttled();
    assert_eq!(listed_serials(&server, &alice.token).len(), 2);
    // One budget for every unauthenticated write of the address.
    server
        .post("/verify-email/resend/")
        .json(&json!({"email": "nobody@example.com"}))
        .send()
        .expect_throttled();
}

e2e!(agent_routes_are_not_throttled);
fn agent_routes_are_not_throttled() {
    let server = Server::builder()
        .args(&["--throttle-rate", "1/minute"])
        .start();
    let alice = server.account("alice@example.com");
    let agent = install(&server, &alice, "Kitchen Pi");
    for _ in 0..4 {
        heartbeat(&server, &agent.token, &json!({}));
        poll(&server, &agent.token, 0);
    }
}
