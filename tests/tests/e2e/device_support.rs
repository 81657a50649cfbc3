//! Helpers shared by the device-editing and agent-API tests: enrolling a
//! device through `POST /install/`, `Authorization: Device <token>`, the agent
//! calls, the owner's view of a device and the shape of a command.

use crate::support::*;
use serde_json::{Value, json};
use std::time::{SystemTime, UNIX_EPOCH};

/// The 20 fields of a device (docs/api.md, Devices), sorted.
pub const DEVICE_FIELDS: [&str; 20] = [
    "agent_version",
    "created_time",
    "description",
    "disk_capacity",
    "disk_used",
    "last_seen_time",
    "machine_type",
    "machine_type_display",
    "name",
    "online",
    "operating_system",
    "ports_url",
    "processor_speed",
    "ram_capacity",
    "reboot_url",
    "serial",
    "tags",
    "uname",
    "url",
    "wormhole_slug",
];

/// Well-formed (40 lowercase hex) but never issued.
pub const UNKNOWN_DEVICE_TOKEN: &str = "0123456789abcdef0123456789abcdef01234567";

/// A well-formed serial that no device has.
pub const MISSING_SERIAL: &str = "0f2c3d4e-5a6b-4c7d-8e9f-a0b1c2d3e4f5";

/// The 202 body of `POST /devices/{serial}/reboot/`.
pub const REBOOT_DISPATCHED: &str = "Reboot signal dispatched.";

/// The message for a blank string.
pub const BLANK: &str = "This field may not be blank.";

/// The message for a `null` where none is allowed.
pub const NULL: &str = "This field may not be null.";

/// The message for a list or object where text is expected.
pub const NOT_A_STRING: &str = "Not a valid string.";

/// `Ensure this field has no more than N characters.`
pub fn too_long(max: usize) -> String {
    format!("Ensure this field has no more than {max} characters.")
}

/// `"<value>" is not a valid choice.`
pub fn not_a_choice(value: &str) -> String {
    format!("\"{value}\" is not a valid choice.")
}

/// `Method "<METHOD>" not allowed.`
pub fn not_allowed(method: &str) -> String {
    format!("Method \"{method}\" not allowed.")
}

/// `count` copies of `c`: a string of exactly `count` characters.
pub fn chars(c: char, count: usize) -> String {
    std::iter::repeat_n(c, count).collect()
}

/// `/devices/{serial}/`.
pub fn device_path(serial: &str) -> String {
    format!("/devices/{serial}/")
}

/// `/devices/{serial}/ports/`.
pub fn ports_path(serial: &str) -> String {
    format!("/devices/{serial}/ports/")
}

/// `/devices/{serial}/reboot/`.
pub fn reboot_path(serial: &str) -> String {
    format!("/devices/{serial}/reboot/")
}

/// `/agent/commands/{id}/ack/`.
pub fn ack_path(id: &str) -> String {
    format!("/agent/commands/{id}/ack/")
}

/// `Authorization: Device <token>` on a request.
pub trait DeviceAuth {
    /// Adds `Authorization: Device <token>`.
    fn device(self, token: &str) -> Self;
}

impl DeviceAuth for Call {
    fn device(self, token: &str) -> Self {
        self.authorization(&format!("Device {token}"))
    }
}

/// Assertions for the agent side's 401s.
pub trait DeviceReply {
    /// Asserts a 401 with `{"detail": detail}` and `WWW-Authenticate: Device`.
    fn expect_device_401(&self, detail: &str) -> &Self;
}

impl DeviceReply for Reply {
    #[track_caller]
    fn expect_device_401(&self, detail: &str) -> &Self {
        self.expect_detail(401, detail);
        assert_eq!(
            self.header("www-authenticate"),
            Some("Device"),
            "WWW-Authenticate\n{self}"
        );
        self
    }
}

/// A device enrolled through `POST /install/`.
#[derive(Debug, Clone)]
pub struct Agent {
    /// The device's serial.
    pub serial: String,
    /// Its device token.
    pub token: String,
}

/// `POST /install/` with this body.
pub fn install_call(server: &Server, body: &Value) -> Reply {
    server.post("/install/").json(body).send()
}

/// Asserts a 201 of `POST /install/`: exactly `serial`, `device_token` (40
/// lowercase hex) and `url` (`<base>/devices/<serial>/`, serial a lowercase
/// UUID). Returns the device.
#[track_caller]
pub fn installed(server: &Server, reply: &Reply) -> Agent {
    reply.expect_status(201);
    let body = reply.json();
    assert_eq!(keys(&body), ["device_token", "serial", "url"], "{reply}");
    let serial = string(&body, "serial");
    let token = string(&body, "device_token");
    assert!(is_lowercase_uuid(&serial), "serial {serial:?}\n{reply}");
    assert!(
        is_auth_token(&token),
        "a device token is 40 lowercase hex characters\n{reply}"
    );
    assert_eq!(
        body["url"],
        format!("{}/devices/{serial}/", server.expected_base()),
        "{reply}"
    );
    Agent { serial, token }
}

/// Installs a device named `name` with `account`'s install token (and these
/// extra body fields); asserts the 201.
#[track_caller]
pub fn install_with(server: &Server, account: &Account, name: &str, extra: Value) -> Agent {
    let mut body = json!({"install_token": account.install_token, "name": name});
    if let (Some(body), Some(extra)) = (body.as_object_mut(), extra.as_object()) {
        body.extend(extra.clone());
    }
    installed(server, &install_call(server, &body))
}

/// Installs a device named `name` for `account`; asserts the 201.
#[track_caller]
pub fn install(server: &Server, account: &Account, name: &str) -> Agent {
    install_with(server, account, name, json!({}))
}

/// `POST /agent/heartbeat/` with this body and the device's token.
pub fn heartbeat_call(server: &Server, token: &str, body: &Value) -> Reply {
    server
        .post("/agent/heartbeat/")
        .device(token)
        .json(body)
        .send()
}

/// A heartbeat that must succeed: asserts 200 `{"commands": [...],
/// "heartbeat_interval": N}` and returns the answer.
#[track_caller]
pub fn heartbeat(server: &Server, token: &str, body: &Value) -> Value {
    let reply = heartbeat_call(server, token, body);
    reply.expect_status(200);
    let answer = reply.json();
    assert_eq!(keys(&answer), ["commands", "heartbeat_interval"], "{reply}");
    assert!(answer["commands"].is_array(), "{reply}");
    assert!(answer["heartbeat_interval"].is_u64(), "{reply}");
    answer
}

/// The commands handed out by an empty heartbeat.
#[track_caller]
pub fn heartbeat_commands(server: &Server, token: &str) -> Vec<Value> {
    heartbeat(server, token, &json!({}))["commands"]
        .as_array()
        .expect("checked by heartbeat")
        .clone()
}

/// `GET /agent/commands/?wait=<wait>` with the device's token.
pub fn poll_call(server: &Server, token: &str, wait: &str) -> Reply {
    server
        .get(&format!("/agent/commands/?wait={wait}"))
        .device(token)
        .send()
}

/// A long poll that must succeed: asserts 200 `{"commands": [...]}` and
/// returns the commands.
#[track_caller]
pub fn poll(server: &Server, token: &str, wait: u64) -> Vec<Value> {
    let reply = poll_call(server, token, &wait.to_string());
    reply.expect_status(200);
    let answer = reply.json();
    assert_eq!(keys(&answer), ["commands"], "{reply}");
    answer["commands"]
        .as_array()
        .unwrap_or_else(|| panic!("commands is a list\n{reply}"))
        .clone()
}

/// `POST /devices/{serial}/reboot/` by the owner; asserts the 202 with
/// `detail` and the reboot's `command`, and returns the command.
#[track_caller]
pub fn reboot(server: &Server, owner_token: &str, serial: &str) -> Value {
    let reply = server.post(&reboot_path(serial)).token(owner_token).send();
    reply.expect_status(202);
    let body = reply.json();
    assert_eq!(keys(&body), ["command", "detail"], "{reply}");
    assert_eq!(body["detail"], REBOOT_DISPATCHED, "{reply}");
    body["command"].clone()
}

/// `POST /agent/commands/{id}/ack/` with this body and the device's token.
pub fn ack_call(server: &Server, token: &str, id: &str, body: &Value) -> Reply {
    server.post(&ack_path(id)).device(token).json(body).send()
}

/// `GET /devices/{serial}/` by the owner; asserts a 200 with the 18 fields.
#[track_caller]
pub fn device_detail(server: &Server, owner_token: &str, serial: &str) -> Value {
    let reply = server.get(&device_path(serial)).token(owner_token).send();
    reply.expect_status(200);
    let device = reply.json();
    assert_eq!(keys(&device), DEVICE_FIELDS, "{reply}");
    device
}

/// `GET /devices/` by the owner: the serials listed.
#[track_caller]
pub fn listed_serials(server: &Server, owner_token: &str) -> Vec<String> {
    let reply = server.get("/devices/").token(owner_token).send();
    reply.expect_status(200);
    reply
        .json()
        .as_array()
        .unwrap_or_else(|| panic!("the device list is an array\n{reply}"))
        .iter()
        .map(|device| string(device, "serial"))
        .collect()
}

/// `GET /devices/{serial}/ports/` by the owner; asserts a 200 and returns the list.
#[track_caller]
pub fn device_ports(server: &Server, owner_token: &str, serial: &str) -> Value {
    let reply = server.get(&ports_path(serial)).token(owner_token).send();
    reply.expect_status(200);
    let ports = reply.json();
    assert!(ports.is_array(), "the ports are a list\n{reply}");
    ports
}

/// Asserts that `command` is `{"id": <uuid>, "action": "reboot", "issued_time":
/// <UTC now, YYYY-MM-DDTHH:MM:SS>}` and returns its id.
#[track_caller]
pub fn reboot_command_id(command: &Value) -> String {
    assert_eq!(
        keys(command),
        ["action", "id", "issued_time"],
        "{command:#}"
    );
    assert_eq!(command["action"], "reboot", "{command:#}");
    let id = string(command, "id");
    assert!(
        is_lowercase_uuid(&id.to_ascii_lowercase()),
        "the id is a UUID: {command:#}"
    );
    let issued = string(command, "issued_time");
    assert!(is_timestamp(&issued), "issued_time: {command:#}");
    let issued = chrono::NaiveDateTime::parse_from_str(&issued, "%Y-%m-%dT%H:%M:%S")
        .unwrap_or_else(|e| panic!("issued_time {issued:?}: {e}"))
        .and_utc()
        .timestamp();
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .expect("after 1970")
        .as_secs() as i64;
    assert!(
        (issued - now).abs() < 300,
        "issued_time is UTC now: {command:#}"
    );
    id
}

/// Asserts that `commands` is exactly one reboot command and returns its id.
#[track_caller]
pub fn one_reboot(commands: &[Value]) -> String {
    assert_eq!(commands.len(), 1, "one command expected: {commands:#?}");
    reboot_command_id(&commands[0])
}

/// Asserts the rules for request bodies (docs/api.md, Errors) on one write route: 415 for
/// another media type, 400 for malformed JSON and for JSON that is not an
/// object, 413 over 64 KiB. `call` makes the request, credentials included.
#[track_caller]
pub fn assert_json_body_rules(call: impl Fn() -> Call) {
    call()
        .body("text/plain", "name=Kitchen")
        .send()
        .expect_detail(415, "Unsupported media type \"text/plain\" in request.");

    let reply = call().body("application/json", "{\"name\": ").send();
    reply.expect_status(400);
    let body = reply.json();
    assert_eq!(keys(&body), ["detail"], "{reply}");
    assert!(
        string(&body, "detail").starts_with("JSON parse error - "),
        "{reply}"
    );

    call().json(&json!([{"name": "Kitchen"}])).send().expect(
        400,
        json!({"non_field_errors": ["Invalid data. Expected a dictionary, but got list."]}),
    );

    let skeleton = json!({"pad": ""}).to_string();
    let oversized = json!({"pad": "x".repeat(64 * 1024 + 1 - skeleton.len())}).to_string();
    assert_eq!(oversized.len(), 64 * 1024 + 1);
    call()
        .body("application/json", oversized)
        .send()
        .expect_detail(413, "Request body is too large.");
}
