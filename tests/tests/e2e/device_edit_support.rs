//! Helpers shared by the tests of the owner's device routes.

use crate::device_support::*;
use crate::support::*;
use reqwest::Method;
use serde_json::Value;

/// A server with alice owning one device named "Kitchen Pi", described "By the fridge".
pub fn setup() -> (Server, Account, String) {
    let server = Server::start();
    let alice = server.account("alice@example.com");
    let device = server.device(
        &alice.email,
        "Kitchen Pi",
        &["--description", "By the fridge", "--machine-type", "rpi_4b"],
    );
    let serial = string(&device, "serial");
    (server, alice, serial)
}

/// `device` with these fields replaced.
pub fn with(device: &Value, changes: Value) -> Value {
    let mut device = device.clone();
    let object = device.as_object_mut().expect("a device is an object");
    for (key, value) in changes.as_object().expect("changes are an object") {
        object.insert(key.clone(), value.clone());
    }
    device
}

/// PATCH or PUT of the device with this body, by alice.
pub fn edit(server: &Server, method: Method, token: &str, serial: &str, body: &Value) -> Reply {
    server
        .call(method, &device_path(serial))
        .token(token)
        .json(body)
        .send()
}
