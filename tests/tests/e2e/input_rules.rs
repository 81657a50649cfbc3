//! The input rules of `docs/api.md`: passwords judged in their NFKC form,
//! refused when only white space or over 4096 characters; names of invisible
//! characters only counted as blank; bidirectional controls refused in every
//! text field; accepted text stored exactly as sent.

use crate::device_support::*;
use crate::support::*;
use serde_json::{Value, json};

const COMMON: &str = "This password is too common.";
const NUMERIC: &str = "This password is entirely numeric.";
const TOO_SHORT: &str = "This password is too short. It must contain at least 8 characters.";
const WHITE_SPACE: &str = "This password is entirely white space.";
const BIDI: &str = "Bidirectional control characters are not allowed.";

/// Well-formed but never issued: 43 URL-safe characters.
const UNKNOWN_KEY: &str = "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA";

/// `password` in fullwidth letters: "too common" once normalised.
const FULLWIDTH_PASSWORD: &str = "\u{FF50}\u{FF41}\u{FF53}\u{FF53}\u{FF57}\u{FF4F}\u{FF52}\u{FF44}";
/// A good password partly in fullwidth letters, whose NFKC form is
/// `Velvet-Harbor-97`.
const FULLWIDTH_GOOD_PASSWORD: &str = "\u{FF36}\u{FF45}\u{FF4C}\u{FF56}\u{FF45}\u{FF54}-Harbor-97";

/// The longest password accepted: 4096 characters that break no rule.
fn longest_password() -> String {
    "Velvet-Harbor-97-".repeat(241)[..4096].to_owned()
}

fn change_to(server: &Server, account: &Account, new_password: &str) -> Reply {
    server
        .post("/change-password/")
        .token(&account.token)
        .json(&json!({"old_password": account.password, "new_password": new_password}))
        .send()
}

fn patch_device(server: &Server, account: &Account, serial: &str, body: Value) -> Reply {
    server
        .patch(&device_path(serial))
        .token(&account.token)
        .json(&body)
        .send()
}

/// A server with alice owning one device named "Kitchen Pi".
fn setup() -> (Server, Account, String) {
    let server = Server::start();
    let alice = server.account("alice@example.com");
    let serial = string(&server.device(&alice.email, "Kitchen Pi", &[]), "serial");
    (server, alice, serial)
}

e2e!(passwords_are_judged_in_their_nfkc_form);
fn passwords_are_judged_in_their_nfkc_form() {
    let server = Server::start();
    let alice = server.account("alice@example.com");
    change_to(&server, &alice, FULLWIDTH_PASSWORD).expect_field_errors("new_password", &[COMMON]);
    let fullwidth_digits =
        "\u{FF18}\u{FF14}\u{FF17}\u{FF13}\u{FF16}\u{FF12}\u{FF19}\u{FF11}\u{FF10}";
    change_to(&server, &alice, fullwidth_digits).expect_field_errors("new_password", &[NUMERIC]);
    server.login_token(&alice.email, PASSWORD);
}

e2e!(a_password_is_hashed_as_sent_not_normalised);
fn a_password_is_hashed_as_sent_not_normalised() {
    let server = Server::start();
    let alice = server.account("alice@example.com");
    change_to(&server, &alice, FULLWIDTH_GOOD_PASSWORD).expect_empty(204);
    server.login_token(&alice.email, FULLWIDTH_GOOD_PASSWORD);
    server
        .login(&alice.email, "Velvet-Harbor-97")
        .expect(400, json!({"non_field_errors": [BAD_CREDENTIALS]}));
}

e2e!(a_password_of_white_space_alone_is_refused);
fn a_password_of_white_space_alone_is_refused() {
    let server = Server::start();
    let alice = server.account("alice@example.com");
    change_to(&server, &alice, "        ").expect_field_errors("new_password", &[WHITE_SPACE]);
    change_to(&server, &alice, &chars('\u{3000}', 8))
        .expect_field_errors("new_password", &[WHITE_SPACE]);
    // Reported along with the other failing rules, one message each.
    change_to(&server, &alice, "   ")
        .expect_field_errors("new_password", &[TOO_SHORT, WHITE_SPACE]);
    server.login_token(&alice.email, PASSWORD);
}

e2e!(passwords_over_4096_characters_are_refused_in_every_password_field);
fn passwords_over_4096_characters_are_refused_in_every_password_field() {
    let server = Server::start();
    let alice = server.account("alice@example.com");
    let overlong = format!("{}x", longest_password());
    let message = too_long(4096);
    let refused = [message.as_str()];
    change_to(&server, &alice, &overlong).expect_field_errors("new_password", &refused);
    server
        .login(&alice.email, &overlong)
        .expect_field_errors("password", &refused);
    server
        .post("/change-password/")
        .token(&alice.token)
        .json(&json!({"old_password": overlong, "new_password": "Velvet-Harbor-97"}))
        .send()
        .expect_field_errors("old_password", &refused);
    server
        .post("/reset-password/confirm/")
        .json(&json!({"key": UNKNOWN_KEY, "new_password": overlong}))
        .send()
        .expect_field_errors("new_password", &refused);

    let longest = longest_password();
    change_to(&server, &alice, &longest).expect_empty(204);
    server.login_token(&alice.email, &longest);
}

e2e!(the_command_line_applies_the_password_rules);
fn the_command_line_applies_the_password_rules() {
    let server = Server::start();
    let overlong = format!("{}x", longest_password());
    let message = too_long(4096);
    for (email, password, reason) in [
        ("space@example.com", "        ", WHITE_SPACE),
        ("wide@example.com", FULLWIDTH_PASSWORD, COMMON),
        ("long@example.com", overlong.as_str(), message.as_str()),
    ] {
        let args = ["user", "create", "--email", email, "--password", password];
        let output = server.cli_output(&args);
        assert_refused(&output, "devmgr user create --password");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains(reason), "{email}: {stderr}");
    }
}

e2e!(a_name_of_invisible_characters_only_is_blank);
fn a_name_of_invisible_characters_only_is_blank() {
    let (server, alice, serial) = setup();
    for name in [
        "\u{200B}\u{200B}\u{200B}",
        "\u{200D}\u{2060}\u{FEFF}",
        "\u{3164}",
        "\u{115F}\u{1160}\u{FFA0}",
        "\u{FE0F}\u{034F} \u{180E}",
    ] {
        patch_device(&server, &alice, &serial, json!({ "name": name }))
            .expect_field_errors("name", &[BLANK]);
    }
    assert_eq!(
        device_detail(&server, &alice.token, &serial)["name"],
        "Kitchen Pi"
    );
    let args = [
        "device",
        "add",
        "--owner",
        "alice@example.com",
        "--name",
        "\u{200B}",
    ];
    assert_refused(&server.cli_output(&args), "devmgr device add --name U+200B");
}

e2e!(bidirectional_controls_are_refused_in_device_fields);
fn bidirectional_controls_are_refused_in_device_fields() {
    let (server, alice, serial) = setup();
    patch_device(
        &server,
        &alice,
        &serial,
        json!({"description": "By the \u{202E}egdirf"}),
    )
    .expect_field_errors("description", &[BIDI]);
    patch_device(
        &server,
        &alice,
        &serial,
        json!({"name": "Kitchen \u{2067}Pi\u{2069}", "description": "\u{202A}"}),
    )
    .expect(400, json!({"name": [BIDI], "description": [BIDI]}));
    let device = device_detail(&server, &alice.token, &serial);
    assert_eq!(device["name"], "Kitchen Pi");
    assert_eq!(device["description"], "");
    let args = [
        "device",
        "add",
        "--owner",
        "alice@example.com",
        "--name",
        "\u{202E}x",
    ];
    assert_refused(&server.cli_output(&args), "devmgr device add --name U+202E");
}

e2e!(bidirectional_controls_are_refused_in_the_profile_name);
fn bidirectional_controls_are_refused_in_the_profile_name() {
    let server = Server::start();
    let alice = server.account("alice@example.com");
    server
        .patch("/profile/")
        .token(&alice.token)
        .json(&json!({"name": "\u{2066}Alice"}))
        .send()
        .expect_field_errors("name", &[BIDI]);
    let reply = server.get("/profile/").token(&alice.token).send();
    reply.expect_status(200);
    assert_eq!(reply.json()["name"], "", "{reply}");
}

e2e!(bidirectional_controls_are_refused_in_what_the_agent_sends);
fn bidirectional_controls_are_refused_in_what_the_agent_sends() {
    let server = Server::start();
    let alice = server.account("alice@example.com");
    install_call(
        &server,
        &json!({"install_token": alice.install_token, "name": "Pi \u{202D}4"}),
    )
    .expect_field_errors("name", &[BIDI]);
    let agent = install(&server, &alice, "Shed Pi");
    heartbeat_call(
        &server,
        &agent.token,
        &json!({"uname": "Linux shed 6.1.0 \u{202E}46x_68"}),
    )
    .expect_field_errors("uname", &[BIDI]);
    heartbeat_call(
        &server,
        &agent.token,
        &json!({"agent_version": "1.0\u{2068}", "operating_system": "\u{202C}Debian"}),
    )
    .expect(
        400,
        json!({"agent_version": [BIDI], "operating_system": [BIDI]}),
    );
    heartbeat_call(
        &server,
        &agent.token,
        &json!({"ports": [
            {"port": 22, "protocol": "tcp", "name": "sshd"},
            {"port": 80, "protocol": "tcp", "name": "ngi\u{202E}xn"},
        ]}),
    )
    .expect(400, json!({"ports": [{}, {"name": [BIDI]}]}));
    reboot(&server, &alice.token, &agent.serial);
    let id = one_reboot(&heartbeat_commands(&server, &agent.token));
    ack_call(
        &server,
        &agent.token,
        &id,
        &json!({"status": "failed", "detail": "exit \u{202B}1"}),
    )
    .expect_field_errors("detail", &[BIDI]);
}

e2e!(visible_text_in_any_script_is_stored_as_sent);
fn visible_text_in_any_script_is_stored_as_sent() {
    let (server, alice, serial) = setup();
    let name = "\u{05DE}\u{05E2}\u{05D1}\u{05D3}\u{05D4} \u{1F469}\u{200D}\u{1F4BB} lab";
    let description = "\u{0645}\u{062E}\u{062A}\u{0628}\u{0631} 2\u{200F} \u{200B}";
    let reply = patch_device(
        &server,
        &alice,
        &serial,
        json!({"name": name, "description": description}),
    );
    reply.expect_status(200);
    assert_eq!(reply.json()["name"], name, "{reply}");
    let device = device_detail(&server, &alice.token, &serial);
    assert_eq!(device["name"], name);
    assert_eq!(device["description"], description);
    let emoji_only = "\u{1F469}\u{200D}\u{1F4BB}";
    patch_device(&server, &alice, &serial, json!({ "name": emoji_only })).expect_status(200);
    assert_eq!(
        device_detail(&server, &alice.token, &serial)["name"],
        emoji_only
    );
}
