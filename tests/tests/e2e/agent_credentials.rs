//! The `Device` credential and the shape of the agent routes: methods, OPTIONS, redirects.

use crate::agent_support::*;
use crate::device_support::*;
use crate::support::*;
use reqwest::Method;
use serde_json::{Value, json};

/// One call to each route that needs a device token, credentials still to add.
fn agent_calls(server: &Server) -> Vec<Call> {
    vec![
        server.post("/agent/heartbeat/").json(&json!({})),
        server.get("/agent/commands/"),
        server.get("/agent/commands/?wait=0"),
        server
            .post(&ack_path(MISSING_SERIAL))
            .json(&json!({"status": "done"})),
    ]
}

e2e!(agent_routes_need_credentials);
fn agent_routes_need_credentials() {
    let (server, alice, agent) = setup();
    for call in agent_calls(&server) {
        call.send().expect_device_401(NOT_PROVIDED);
    }
    for header in [
        format!("Basic {}", "YWxpY2U6cGFzcw=="),
        format!("Bearer {}", agent.token),
    ] {
        for call in agent_calls(&server) {
            call.authorization(&header)
                .send()
                .expect_device_401(NOT_PROVIDED);
        }
    }
    // A user's token is no device credential.
    for call in agent_calls(&server) {
        call.token(&alice.token)
            .send()
            .expect_device_401(NOT_PROVIDED);
    }
    assert_eq!(
        device_detail(&server, &alice.token, &agent.serial)["online"],
        false,
        "no refused heartbeat counted"
    );
}

e2e!(agent_routes_refuse_malformed_and_unknown_device_tokens);
fn agent_routes_refuse_malformed_and_unknown_device_tokens() {
    let (server, _alice, agent) = setup();
    let variants = [
        (
            "Device".to_owned(),
            "Invalid token header. No credentials provided.",
        ),
        (
            format!("Device {} extra", agent.token),
            "Invalid token header. Token string should not contain spaces.",
        ),
        (format!("Device {UNKNOWN_DEVICE_TOKEN}"), INVALID_TOKEN),
        ("Device nonsense".to_owned(), INVALID_TOKEN),
    ];
    for (header, detail) in &variants {
        for call in agent_calls(&server) {
            call.authorization(header).send().expect_device_401(detail);
        }
    }
    heartbeat(&server, &agent.token, &json!({}));
}

e2e!(the_device_keyword_is_case_insensitive);
fn the_device_keyword_is_case_insensitive() {
    let (server, _alice, agent) = setup();
    for keyword in ["Device", "device", "DEVICE", "dEvIcE"] {
        server
            .post("/agent/heartbeat/")
            .authorization(&format!("{keyword} {}", agent.token))
            .json(&json!({}))
            .send()
            .expect(200, json!({"commands": [], "heartbeat_interval": 30}));
    }
}

e2e!(a_device_token_is_no_credential_on_user_routes);
fn a_device_token_is_no_credential_on_user_routes() {
    let (server, alice, agent) = setup();
    for (method, path) in [
        (Method::GET, "/devices/".to_owned()),
        (Method::GET, device_path(&agent.serial)),
        (Method::GET, ports_path(&agent.serial)),
        (Method::POST, reboot_path(&agent.serial)),
        (Method::GET, "/profile/".to_owned()),
    ] {
        server
            .call(method, &path)
            .device(&agent.token)
            .send()
            .expect_401(NOT_PROVIDED);
    }
    assert_eq!(
        heartbeat_commands(&server, &agent.token),
        Vec::<Value>::new()
    );
    device_detail(&server, &alice.token, &agent.serial);
}

e2e!(options_on_agent_routes_needs_no_credentials);
fn options_on_agent_routes_needs_no_credentials() {
    let (server, _alice, agent) = setup();
    let ack = ack_path(MISSING_SERIAL);
    for (path, allow) in [
        ("/agent/heartbeat/", "POST, OPTIONS"),
        ("/agent/commands/", "GET, HEAD, OPTIONS"),
        (ack.as_str(), "POST, OPTIONS"),
        ("/install/", "POST, OPTIONS"),
    ] {
        let reply = server.options(path).send();
        reply.expect_status(200).expect_allow(allow);
        assert_eq!(
            keys(&reply.json()),
            ["actions", "description", "name", "parses", "renders"],
            "{reply}"
        );
        server
            .options(path)
            .device(&agent.token)
            .send()
            .expect_status(200)
            .expect_allow(allow);
    }
    for path in ["/agent/heartbeat/", "/agent/commands/", ack.as_str()] {
        server
            .options(path)
            .device(UNKNOWN_DEVICE_TOKEN)
            .send()
            .expect_device_401(INVALID_TOKEN);
    }
}

e2e!(options_lists_the_body_fields_of_the_agent_routes);
fn options_lists_the_body_fields_of_the_agent_routes() {
    let (server, _alice, _agent) = setup();
    let actions = |path: &str| {
        let reply = server.options(path).send();
        reply.expect_status(200);
        reply.json()["actions"].clone()
    };
    let install = actions("/install/");
    assert_eq!(keys(&install), ["POST"]);
    assert_eq!(
        keys(&install["POST"]),
        ["install_token", "machine_type", "name", "serial"]
    );
    for (field, required) in [
        ("install_token", true),
        ("name", true),
        ("serial", false),
        ("machine_type", false),
    ] {
        assert_eq!(install["POST"][field]["required"], required, "{field}");
        assert_eq!(install["POST"][field]["read_only"], false, "{field}");
    }
    assert_eq!(install["POST"]["name"]["max_length"], 100);

    let heartbeat = actions("/agent/heartbeat/");
    assert_eq!(keys(&heartbeat), ["POST"]);
    assert_eq!(
        keys(&heartbeat["POST"]),
        [
            "agent_version",
            "disk_capacity",
            "disk_used",
            "machine_type",
            "operating_system",
            "ports",
            "processor_speed",
            "ram_capacity",
            "uname",
        ]
    );
    let ack = actions(&ack_path(MISSING_SERIAL));
    assert_eq!(keys(&ack), ["POST"]);
    assert_eq!(keys(&ack["POST"]), ["detail", "status"]);
    assert_eq!(ack["POST"]["status"]["required"], true);
    assert_eq!(actions("/agent/commands/"), json!({}));
}

e2e!(a_wrong_method_on_an_agent_route_is_401_without_and_405_with_credentials);
fn a_wrong_method_on_an_agent_route_is_401_without_and_405_with_credentials() {
    let (server, _alice, agent) = setup();
    let ack = ack_path(MISSING_SERIAL);
    for (method, path, allow) in [
        (Method::GET, "/agent/heartbeat/", "POST, OPTIONS"),
        (Method::PUT, "/agent/heartbeat/", "POST, OPTIONS"),
        (Method::POST, "/agent/commands/", "GET, HEAD, OPTIONS"),
        (Method::DELETE, "/agent/commands/", "GET, HEAD, OPTIONS"),
        (Method::GET, ack.as_str(), "POST, OPTIONS"),
    ] {
        server
            .call(method.clone(), path)
            .send()
            .expect_device_401(NOT_PROVIDED);
        server
            .call(method.clone(), path)
            .device(&agent.token)
            .send()
            .expect_detail(405, &not_allowed(method.as_str()))
            .expect_allow(allow);
    }
    // /install/ is public: no credentials needed to learn the method is wrong.
    for method in [Method::GET, Method::PUT] {
        server
            .call(method.clone(), "/install/")
            .send()
            .expect_detail(405, &not_allowed(method.as_str()))
            .expect_allow("POST, OPTIONS");
    }
}

e2e!(agent_paths_without_a_trailing_slash_redirect);
fn agent_paths_without_a_trailing_slash_redirect() {
    let (server, _alice, agent) = setup();
    let ack = ack_path(MISSING_SERIAL);
    let bare_ack = ack.trim_end_matches('/').to_owned();
    for (bare, location) in [
        ("/agent/heartbeat", "/agent/heartbeat/"),
        ("/agent/commands", "/agent/commands/"),
        ("/agent/commands?wait=5", "/agent/commands/?wait=5"),
        (bare_ack.as_str(), ack.as_str()),
        ("/install", "/install/"),
    ] {
        for method in [Method::GET, Method::POST] {
            for authorized in [false, true] {
                let mut call = server.call(method.clone(), bare);
                if authorized {
                    call = call.device(&agent.token);
                }
                let reply = call.send();
                reply.expect_status(301);
                assert_eq!(reply.header("location"), Some(location), "{reply}");
            }
        }
    }
}
