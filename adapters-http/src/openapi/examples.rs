//! Examples of every request body and answer in the document: what Swagger
//! UI's "Try it out" fills in, and what client generators show. Request
//! bodies are keyed by operation id, answers by resource name; each is a body
//! the server really takes or gives (the end-to-end tests check them against
//! their schemas and send the requests to a live server).

use serde_json::{Value, json};

/// The e-mail address of the examples' account.
const EMAIL: &str = "ada@example.com";
/// Its password.
const PASSWORD: &str = "Sturdy-Lantern-42";
/// The password the examples change it to.
const NEW_PASSWORD: &str = "Quiet-Harbour-1987";
/// A key from an e-mailed link.
const KEY: &str = "k3x9q2m7w4v8b1n5c6z0a2s4d6f8g1h3";
/// The account's install token.
const INSTALL_TOKEN: &str = "1wq4vdtcz00798gxr71et3bt71pgjjdk";
/// A device's serial.
pub(super) const SERIAL: &str = "14afe3e2-405c-4661-bb02-c71e7541142b";
/// A command's id.
pub(super) const COMMAND_ID: &str = "8e2ed355-b0fe-42d4-9779-fedefd809a3c";
/// Where the examples' server is.
const BASE: &str = "http://127.0.0.1:8000";
/// A time as the API writes it.
const TIME: &str = "2026-11-24T09:30:00";

fn device_url(tail: &str) -> String {
    format!("{BASE}/devices/{SERIAL}/{tail}")
}

fn port() -> Value {
    json!({"port": 22, "protocol": "tcp", "name": "sshd"})
}

fn facts() -> Value {
    json!({
        "agent_version": "1.4.2",
        "operating_system": "Debian GNU/Linux 12 (bookworm)",
        "uname": "Linux kitchen-pi 6.6.51+rpt-rpi-v8 #1 SMP PREEMPT Debian aarch64 GNU/Linux",
        "machine_type": "rpi_4b",
        "disk_capacity": 31268536320_u64,
        "disk_used": 8589934592_u64,
        "ram_capacity": 4096,
        "processor_speed": 1800,
    })
}

/// The body of an operation's request, by operation id; `None` for an
/// operation that takes none.
pub(super) fn request(operation_id: &str) -> Option<Value> {
    let naming = json!({"name": "kitchen-pi", "description": "On the shelf above the router."});
    Some(match operation_id {
        "login" => json!({"email": EMAIL, "password": PASSWORD}),
        "register" | "resendVerificationEmail" => json!({"email": "grace@example.com"}),
        "requestPasswordReset" => json!({"email": EMAIL}),
        "changePassword" => json!({"old_password": PASSWORD, "new_password": NEW_PASSWORD}),
        "confirmPasswordReset" => json!({"key": KEY, "new_password": NEW_PASSWORD}),
        "verifyEmail" => json!({"key": KEY}),
        "replaceDevice" => naming,
        "updateDevice" => json!({"description": naming["description"]}),
        "replaceProfile" | "updateProfile" => json!({"name": "Ada Lovelace"}),
        "installDevice" => json!({
            "install_token": INSTALL_TOKEN,
            "name": "kitchen-pi",
            "machine_type": "rpi_4b",
        }),
        "sendHeartbeat" => {
            let mut body = facts();
            body["ports"] = json!([port()]);
            body
        }
        "acknowledgeCommand" => json!({"status": "received", "detail": ""}),
        _ => return None,
    })
}

/// A `Detail` answer of an operation that succeeds with one.
pub(super) fn success_detail(operation_id: &str) -> Value {
    let detail = match operation_id {
        "rebootDevice" => "Reboot signal dispatched.",
        "verifyEmail" | "openVerificationLink" => "E-mail address verified.",
        other => unreachable!("{other} answers no detail on success"),
    };
    json!({ "detail": detail })
}

/// A resource as answers show it, by resource name (a `Detail` depends on
/// the operation: [`success_detail`]).
pub(super) fn resource(name: &str) -> Value {
    match name {
        "AuthToken" => json!({"token": "9944b09199c62bcf9418ad846dd0e4bbdfc6ee4b"}),
        "Device" => {
            let mut device = facts();
            device.as_object_mut().expect("an object").extend(
                json!({
                    "created_time": TIME,
                    "description": "On the shelf above the router.",
                    "machine_type_display": "Raspberry Pi 4 Model B",
                    "name": "kitchen-pi",
                    "online": true,
                    "ports_url": device_url("ports/"),
                    "reboot_url": device_url("reboot/"),
                    "serial": SERIAL,
                    "url": device_url(""),
                    "wormhole_slug": "bold-heron-ya4id6",
                })
                .as_object()
                .expect("an object")
                .clone(),
            );
            device
        }
        "Profile" => json!({
            "email": EMAIL,
            "email_verified": true,
            "has_usable_password": true,
            "install_command": format!("devmgr-agent install --server {BASE} --token {INSTALL_TOKEN}"),
            "install_token": INSTALL_TOKEN,
            "name": "Ada Lovelace",
        }),
        "Port" => port(),
        "Enrolment" => json!({
            "serial": SERIAL,
            "device_token": "dq2n8w5k1z7x4c9v3b6m0p2r5t8y1u4i",
            "url": device_url(""),
        }),
        "CommandList" => json!({"commands": [handed_out_command()]}),
        "HeartbeatReply" => json!({"commands": [handed_out_command()], "heartbeat_interval": 60}),
        "CommandRecord" => json!({
            "id": COMMAND_ID,
            "action": "reboot",
            "status": "done",
            "issued_time": TIME,
            "delivered_time": "2026-11-24T09:30:01",
            "acked_time": "2026-11-24T09:30:02",
            "detail": "",
        }),
        other => unreachable!("no example of {other}"),
    }
}

fn handed_out_command() -> Value {
    json!({"id": COMMAND_ID, "action": "reboot", "issued_time": TIME})
}

/// The body of a failure every operation of its kind can meet, by the name
/// of its response in the components.
pub(super) fn failure(response: &str) -> Value {
    let detail = match response {
        "BadRequest" => {
            return json!({
                "non_field_errors": ["Invalid data. Expected a dictionary, but got list."]
            });
        }
        "Unauthorized" => "Authentication credentials were not provided.",
        "Forbidden" => "You are already signed in.",
        "NotFound" => "Not found.",
        "PayloadTooLarge" => "Request body is too large.",
        "UnsupportedMediaType" => "Unsupported media type \"text/plain\" in request.",
        "Throttled" => "Request was throttled. Expected available in 42 seconds.",
        "ServerError" => "A server error occurred.",
        other => unreachable!("no example of {other}"),
    };
    json!({ "detail": detail })
}

/// The answer of `GET /verify-email/{key}/` to an unknown key.
pub(super) fn invalid_key() -> Value {
    json!({"key": ["Invalid or expired key."]})
}

/// A path or query parameter: what it is, and an example value.
pub(super) fn parameter(name: &str) -> (&'static str, Value) {
    match name {
        "serial" => (
            "The device's serial (a UUID), as in its `url`.",
            SERIAL.into(),
        ),
        "id" => (
            "The command's id, as handed to the agent.",
            COMMAND_ID.into(),
        ),
        "key" => ("The key from the e-mailed link.", KEY.into()),
        "wait" => (
            "Seconds to wait for a pending command before answering with none (0-60).",
            10.into(),
        ),
        other => unreachable!("no description of the parameter {other}"),
    }
}
