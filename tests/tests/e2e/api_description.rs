//! The API's own description: `GET /openapi.json`, an OpenAPI 3.1 document a validator accepts
//! covering every documented route (docs/api.md); schemathesis runs in `api_fuzzing.rs`.

use crate::support::*;
use python_tools::{Packages, Python};
use serde_json::{Map, Value};
use std::collections::BTreeSet;
use std::sync::OnceLock;

/// Python packages of the contract tests, pinned in
/// `tests/python/contract-requirements.txt` and installed under `target/`.
pub const CONTRACT_TEST_PACKAGES: Packages = Packages {
    name: "contract",
    imports: &["schemathesis", "openapi_spec_validator", "requests"],
    requirements: include_str!("../../python/contract-requirements.txt"),
};

/// A `python3` that can import schemathesis and openapi-spec-validator.
pub fn contract_python() -> &'static Python {
    static PYTHON: OnceLock<Result<Python, String>> = OnceLock::new();
    match PYTHON.get_or_init(|| python_tools::prepare(CONTRACT_TEST_PACKAGES)) {
        Ok(python) => python,
        Err(problem) => panic!("{problem}"),
    }
}

/// Every path of docs/api.md with its methods, as the document must list them.
pub const DOCUMENTED_OPERATIONS: &[(&str, &[&str])] = &[
    ("/agent/commands/", &["get"]),
    ("/agent/commands/{id}/ack/", &["post"]),
    ("/agent/heartbeat/", &["post"]),
    ("/alerts/", &["get"]),
    ("/alerts/{id}/", &["get"]),
    ("/audit/", &["get"]),
    ("/auth/", &["delete", "post"]),
    ("/auth/logout-all/", &["post"]),
    ("/change-password/", &["post"]),
    ("/devices/", &["get"]),
    ("/devices/select/", &["post"]),
    ("/devices/tags/", &["post"]),
    ("/devices/{serial}/", &["delete", "get", "patch", "put"]),
    ("/devices/{serial}/commands/", &["get"]),
    ("/devices/{serial}/commands/{id}/", &["get"]),
    ("/devices/{serial}/ports/", &["get"]),
    ("/devices/{serial}/reboot/", &["post"]),
    ("/health/live/", &["get"]),
    ("/health/ready/", &["get"]),
    ("/install/", &["post"]),
    ("/jobs/", &["get", "post"]),
    ("/jobs/{id}/", &["get"]),
    ("/jobs/{id}/cancel/", &["post"]),
    ("/jobs/{id}/resume/", &["post"]),
    ("/jobs/{id}/targets/", &["get"]),
    ("/monitors/", &["get", "post"]),
    ("/monitors/{id}/", &["delete", "get"]),
    ("/monitors/{id}/snooze/", &["post"]),
    ("/profile/", &["get", "patch", "put"]),
    ("/profile/install-token/", &["post"]),
    ("/register/", &["post"]),
    ("/reset-password/", &["post"]),
    ("/reset-password/confirm/", &["get", "post"]),
    ("/tags/", &["get"]),
    ("/verify-email/", &["post"]),
    ("/verify-email/resend/", &["post"]),
    ("/verify-email/{key}/", &["get"]),
    ("/webhooks/", &["get", "post"]),
    ("/webhooks/{id}/", &["delete", "get"]),
    ("/webhooks/{id}/deliveries/", &["get"]),
    ("/webhooks/{id}/ping/", &["post"]),
];

const HTTP_METHODS: &[&str] = &["get", "put", "post", "delete", "options", "head", "patch"];

pub fn document(server: &Server) -> Value {
    let reply = server.get("/openapi.json").send();
    reply.expect_status(200);
    assert_eq!(
        reply.header("content-type"),
        Some("application/json"),
        "{reply}"
    );
    reply.json()
}

/// Follows a `$ref` inside the document.
pub fn resolve<'a>(doc: &'a Value, value: &'a Value) -> &'a Value {
    match value.get("$ref").and_then(Value::as_str) {
        Some(reference) => {
            let pointer = reference
                .strip_prefix('#')
                .unwrap_or_else(|| panic!("only local references: {reference}"));
            resolve(
                doc,
                doc.pointer(pointer)
                    .unwrap_or_else(|| panic!("dangling reference {reference}")),
            )
        }
        None => value,
    }
}

pub fn operations(doc: &Value, path: &str) -> Map<String, Value> {
    doc["paths"][path]
        .as_object()
        .unwrap_or_else(|| panic!("{path} is not in the document"))
        .iter()
        .filter(|(key, _)| HTTP_METHODS.contains(&key.as_str()))
        .map(|(key, value)| (key.clone(), value.clone()))
        .collect()
}

/// A path of the document with its parameters filled in.
pub fn concrete(path: &str) -> String {
    path.replace("{serial}", "0f8fad5b-d9cb-469f-a165-70867728950e")
        .replace("{id}", "0f8fad5b-d9cb-469f-a165-70867728950e")
        .replace("{key}", "some-key")
}

e2e!(the_document_is_openapi_3_1_and_a_validator_accepts_it);
fn the_document_is_openapi_3_1_and_a_validator_accepts_it() {
    let server = Server::start();
    let reply = server.get("/openapi.json").send();
    reply.expect_status(200);
    let doc = reply.json();
    assert_eq!(doc["openapi"], "3.1.0");
    assert_eq!(doc["info"]["title"], "devmgr");
    let dir = tempfile::tempdir().expect("a temporary folder");
    let file = dir.path().join("openapi.json");
    std::fs::write(&file, &reply.body).expect("the document is written");
    let output = contract_python()
        .command()
        .args(["-m", "openapi_spec_validator", "--schema", "3.1"])
        .arg(&file)
        .output()
        .expect("python3 runs");
    assert!(
        output.status.success(),
        "openapi-spec-validator refused the document:\n{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}

e2e!(every_documented_route_is_described_with_its_methods_and_slash);
fn every_documented_route_is_described_with_its_methods_and_slash() {
    let server = Server::start();
    let doc = document(&server);
    let documented: BTreeSet<String> = doc["paths"]
        .as_object()
        .expect("paths")
        .keys()
        .cloned()
        .collect();
    let described: BTreeSet<String> = DOCUMENTED_OPERATIONS
        .iter()
        .map(|(path, _)| (*path).to_owned())
        .collect();
    assert_eq!(documented, described);
    for (path, methods) in DOCUMENTED_OPERATIONS {
        let ops = operations(&doc, path);
        let listed: Vec<&str> = ops.keys().map(String::as_str).collect();
        assert_eq!(&listed, methods, "{path}");
        // The methods described are the ones the server allows.
        let allow = server
            .options(&concrete(path))
            .send()
            .header("allow")
            .unwrap_or_default()
            .to_lowercase();
        let allowed: BTreeSet<&str> = allow
            .split(", ")
            .filter(|m| !["head", "options"].contains(m))
            .collect();
        assert_eq!(
            allowed,
            methods.iter().copied().collect::<BTreeSet<_>>(),
            "{path}"
        );
        // And the path is served exactly as written: with its slash, and
        // redirected without it.
        assert!(path.ends_with('/'), "{path}");
        let bare = concrete(path.trim_end_matches('/'));
        let reply = server.get(&bare).send();
        assert_eq!(reply.status, 301, "{bare}: {reply}");
    }
}

e2e!(operations_have_the_ids_and_descriptions_client_generators_use);
fn operations_have_the_ids_and_descriptions_client_generators_use() {
    let server = Server::start();
    let doc = document(&server);
    assert_eq!(doc["servers"][0]["url"], "/");
    let mut ids = BTreeSet::new();
    for (path, _) in DOCUMENTED_OPERATIONS {
        assert!(
            doc["paths"][path].get("description").is_none(),
            "{path}: prose belongs to the operations"
        );
        for (method, op) in operations(&doc, path) {
            let id = op["operationId"].as_str().expect("an operationId");
            assert!(
                id.chars().next().is_some_and(|c| c.is_ascii_lowercase())
                    && id.chars().all(|c| c.is_ascii_alphanumeric()),
                "{method} {path}: {id} is not a lowerCamelCase name"
            );
            assert!(ids.insert(id.to_owned()), "{id} twice");
            assert!(
                op["description"].as_str().is_some_and(|d| !d.is_empty()),
                "{method} {path} has no description"
            );
        }
    }
    for id in [
        "login",
        "logout",
        "listDevices",
        "getDevice",
        "rebootDevice",
        "listDeviceCommands",
        "getDeviceCommand",
        "logoutEverywhere",
    ] {
        assert!(ids.contains(id), "{id} missing from {ids:?}");
    }
}

e2e!(users_and_devices_have_their_own_security_schemes);
fn users_and_devices_have_their_own_security_schemes() {
    let server = Server::start();
    let doc = document(&server);
    let schemes = &doc["components"]["securitySchemes"];
    for name in ["Token", "Device"] {
        assert_eq!(schemes[name]["type"], "apiKey", "{name}");
        assert_eq!(schemes[name]["in"], "header", "{name}");
        assert_eq!(schemes[name]["name"], "Authorization", "{name}");
    }
    for (path, _) in DOCUMENTED_OPERATIONS {
        for (method, op) in operations(&doc, path) {
            let security = op["security"].as_array().expect("security").clone();
            let names: BTreeSet<String> = security
                .iter()
                .flat_map(|requirement| requirement.as_object().expect("a requirement").keys())
                .cloned()
                .collect();
            // Public operations say `security: []`: a generated client sends
            // no credentials (a stale token would get 401 after a logout).
            let public = security.is_empty();
            let expected = if public {
                BTreeSet::new()
            } else if path.starts_with("/agent/") {
                BTreeSet::from(["Device".to_owned()])
            } else {
                BTreeSet::from(["Token".to_owned()])
            };
            assert_eq!(names, expected, "{method} {path}");
            // Whoever may call without credentials is exactly who gets no 401
            // for lack of them.
            let anonymous = server
                .call(
                    method.to_uppercase().parse().expect("a method"),
                    &concrete(path),
                )
                .send();
            let refused = anonymous.status == 401
                && anonymous.json()["detail"] == "Authentication credentials were not provided.";
            assert_eq!(public, !refused, "{method} {path}: {anonymous}");
            // An invalid token is refused on every route but the probes,
            // which read no credentials (docs/operations.md).
            let probe = path.starts_with("/health/");
            assert_eq!(
                op["responses"]["401"].is_object(),
                !probe,
                "{method} {path} documents 401 unless it is a probe"
            );
        }
    }
}

e2e!(every_failure_answers_with_a_drf_body_the_document_names);
fn every_failure_answers_with_a_drf_body_the_document_names() {
    let server = Server::start();
    let doc = document(&server);
    let responses = &doc["components"]["responses"];
    for name in [
        "Unauthorized",
        "Forbidden",
        "NotFound",
        "PayloadTooLarge",
        "UnsupportedMediaType",
        "Throttled",
        "ServerError",
    ] {
        assert_eq!(
            responses[name]["content"]["application/json"]["schema"]["$ref"],
            "#/components/schemas/Detail",
            "{name}"
        );
    }
    assert!(responses["Unauthorized"]["headers"]["WWW-Authenticate"].is_object());
    assert!(responses["Throttled"]["headers"]["Retry-After"].is_object());
    // A reboot's answer says where its command is read.
    let accepted = &doc["paths"]["/devices/{serial}/reboot/"]["post"]["responses"]["202"];
    let location = &accepted["headers"]["Location"];
    assert_eq!(location["schema"]["format"], "uri", "{location}");
    let example = location["example"].as_str().expect("a Location example");
    let command = doc["paths"]["/devices/{serial}/commands/{id}/"]["get"]["parameters"]
        .as_array()
        .expect("parameters");
    let serial = command[0]["example"].as_str().expect("a serial example");
    let id = command[1]["example"].as_str().expect("an id example");
    assert!(
        example.ends_with(&format!("/devices/{serial}/commands/{id}/")),
        "{example}"
    );
    assert_eq!(
        accepted["content"]["application/json"]["example"]["command"]["id"],
        id
    );
    let device = &doc["components"]["schemas"]["Device"];
    assert_eq!(device["required"].as_array().map(Vec::len), Some(20));
    assert_eq!(
        device["properties"]["disk_capacity"]["type"],
        serde_json::json!(["integer", "null"])
    );
    assert_eq!(device["additionalProperties"], false);
}
