//! The API's own description: `GET /openapi.json` (an OpenAPI 3.1 document
//! that a validator accepts, covering every documented route (docs/api.md) and
//! agreeing with OPTIONS), and the browsable docs at `/docs/`, rendered by a
//! real headless browser.
//!
//! The property-based run of schemathesis against the document lives in
//! `schemathesis.rs`.

use crate::support::*;
use python_tools::{Packages, Python};
use serde_json::{Map, Value};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;
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
const DOCUMENTED_OPERATIONS: &[(&str, &[&str])] = &[
    ("/agent/commands/", &["get"]),
    ("/agent/commands/{id}/ack/", &["post"]),
    ("/agent/heartbeat/", &["post"]),
    ("/auth/", &["delete", "post"]),
    ("/auth/logout-all/", &["post"]),
    ("/change-password/", &["post"]),
    ("/devices/", &["get"]),
    ("/devices/{serial}/", &["delete", "get", "patch", "put"]),
    ("/devices/{serial}/commands/", &["get"]),
    ("/devices/{serial}/ports/", &["get"]),
    ("/devices/{serial}/reboot/", &["post"]),
    ("/install/", &["post"]),
    ("/profile/", &["get", "patch", "put"]),
    ("/profile/install-token/", &["post"]),
    ("/register/", &["post"]),
    ("/reset-password/", &["post"]),
    ("/reset-password/confirm/", &["get", "post"]),
    ("/verify-email/", &["post"]),
    ("/verify-email/resend/", &["post"]),
    ("/verify-email/{key}/", &["get"]),
];

const HTTP_METHODS: &[&str] = &["get", "put", "post", "delete", "options", "head", "patch"];

fn document(server: &Server) -> Value {
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
fn resolve<'a>(doc: &'a Value, value: &'a Value) -> &'a Value {
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

fn operations(doc: &Value, path: &str) -> Map<String, Value> {
    doc["paths"][path]
        .as_object()
        .unwrap_or_else(|| panic!("{path} is not in the document"))
        .iter()
        .filter(|(key, _)| HTTP_METHODS.contains(&key.as_str()))
        .map(|(key, value)| (key.clone(), value.clone()))
        .collect()
}

/// A path of the document with its parameters filled in.
fn concrete(path: &str) -> String {
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
            assert!(
                op["responses"]["401"].is_object(),
                "{method} {path} documents 401"
            );
        }
    }
}

/// The JSON Schema a field's OPTIONS `type` stands for.
fn assert_same_type(meta: &Value, schema: &Value, what: &str) {
    let types: Vec<&str> = match &schema["type"] {
        Value::String(t) => vec![t.as_str()],
        Value::Array(ts) => ts.iter().filter_map(Value::as_str).collect(),
        other => panic!("{what}: no type in {other}"),
    };
    let main = types
        .iter()
        .find(|t| **t != "null")
        .copied()
        .unwrap_or("null");
    let format = schema["format"].as_str();
    match meta["type"].as_str().expect("an OPTIONS type") {
        "string" => assert!(main == "string" && format != Some("uri"), "{what}"),
        "email" => {
            assert_eq!(main, "string", "{what}");
            let pattern = schema["pattern"].as_str().expect("an e-mail pattern");
            assert_eq!(pattern, domain::email::EMAIL_PATTERN, "{what}");
        }
        "integer" => assert_eq!(main, "integer", "{what}"),
        "boolean" => assert_eq!(main, "boolean", "{what}"),
        "datetime" => assert!(main == "string" && schema["pattern"].is_string(), "{what}"),
        "url" => assert!(main == "string" && format == Some("uri"), "{what}"),
        "list" => assert_eq!(main, "array", "{what}"),
        other => panic!("{what}: unexpected OPTIONS type {other}"),
    }
}

/// Compares one method's OPTIONS `actions` entry with the operation's
/// request body and success response, field by field (nested lists too).
fn assert_fields_agree(
    doc: &Value,
    actions: &Map<String, Value>,
    request: &Value,
    response: Option<&Value>,
    partial: bool,
    what: &str,
) {
    let properties = request["properties"]
        .as_object()
        .cloned()
        .unwrap_or_default();
    let required: BTreeSet<&str> = request["required"]
        .as_array()
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let writable: BTreeSet<&String> = actions
        .iter()
        .filter(|(_, meta)| meta["read_only"] == false)
        .map(|(name, _)| name)
        .collect();
    assert_eq!(
        properties.keys().collect::<BTreeSet<_>>(),
        writable,
        "{what}: the request body's properties are the writable fields"
    );
    for (name, meta) in actions {
        let what = format!("{what} field {name}");
        if meta["read_only"] == true {
            let response = response.unwrap_or_else(|| panic!("{what}: read-only but no response"));
            let shown = &response["properties"][name];
            assert_eq!(shown["readOnly"], true, "{what}");
            assert_eq!(shown["title"], meta["label"], "{what}");
            assert_same_type(meta, shown, &what);
            continue;
        }
        let schema = resolve(doc, &properties[name]);
        assert_same_type(meta, schema, &what);
        assert_eq!(schema["title"], meta["label"], "{what}");
        assert_eq!(
            schema.get("maxLength"),
            meta.get("max_length"),
            "{what}: max_length"
        );
        let must = meta["required"] == true && !partial;
        assert_eq!(required.contains(name.as_str()), must, "{what}: required");
        if let Some(child) = meta.get("child") {
            let children = child["children"].as_object().expect("children");
            assert_fields_agree(doc, children, &schema["items"], None, false, &what);
        }
    }
}

e2e!(options_and_the_document_describe_every_body_alike);
fn options_and_the_document_describe_every_body_alike() {
    let server = Server::start();
    let doc = document(&server);
    let mut compared = 0;
    for (path, _) in DOCUMENTED_OPERATIONS {
        let reply = server.options(&concrete(path)).send();
        reply.expect_status(200);
        let actions = reply.json()["actions"]
            .as_object()
            .cloned()
            .expect("actions");
        for (method, op) in operations(&doc, path) {
            let what = format!("{} {path}", method.to_uppercase());
            let body = op["requestBody"]["content"]["application/json"]["schema"].clone();
            let Some(fields) = actions.get(&method.to_uppercase()) else {
                assert!(body.is_null(), "{what}: a body OPTIONS does not list");
                continue;
            };
            let success = op["responses"]
                .as_object()
                .expect("responses")
                .iter()
                .find(|(status, _)| status.starts_with('2'))
                .map(|(_, response)| resolve(&doc, response).clone())
                .expect("a success response");
            let shown = success["content"]["application/json"]["schema"].clone();
            let response = (!shown.is_null()).then(|| resolve(&doc, &shown).clone());
            assert_fields_agree(
                &doc,
                fields.as_object().expect("fields"),
                resolve(&doc, &body),
                response.as_ref(),
                method == "patch",
                &what,
            );
            compared += 1;
        }
    }
    // Every POST, PUT and PATCH that takes fields: as docs/api.md lists them.
    assert_eq!(compared, 14);
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
    let device = &doc["components"]["schemas"]["Device"];
    assert_eq!(device["required"].as_array().map(Vec::len), Some(18));
    assert_eq!(
        device["properties"]["disk_capacity"]["type"],
        serde_json::json!(["integer", "null"])
    );
    assert_eq!(device["additionalProperties"], false);
}

/// Debian's chromium (or `DEVMGR_TEST_CHROMIUM`). On a machine without it,
/// running as root, it is installed with apt-get once (after refreshing the
/// package lists when they do not know it yet), as the README says.
pub fn chromium() -> &'static Path {
    static CHROMIUM: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    let found = CHROMIUM.get_or_init(|| {
        let find = || {
            std::env::var_os("DEVMGR_TEST_CHROMIUM")
                .map(PathBuf::from)
                .into_iter()
                .chain(["/usr/bin/chromium", "/usr/bin/chromium-browser"].map(PathBuf::from))
                .find(|path| path.is_file())
        };
        if let Some(path) = find() {
            return Ok(path);
        }
        let apt_get = |args: &[&str]| {
            Command::new("apt-get")
                .args(args)
                .env("DEBIAN_FRONTEND", "noninteractive")
                .output()
        };
        let mut installed = apt_get(&["install", "-y", "-q", "chromium"]);
        if find().is_none() {
            let _ = apt_get(&["update", "-q"]);
            installed = apt_get(&["install", "-y", "-q", "chromium"]);
        }
        find().ok_or_else(|| {
            format!(
                "the docs test needs a headless browser: install Debian's chromium \
                 (`apt-get install chromium`) or set DEVMGR_TEST_CHROMIUM; \
                 installing it here failed: {}",
                match installed {
                    Ok(output) => String::from_utf8_lossy(&output.stderr).into_owned(),
                    Err(e) => e.to_string(),
                }
            )
        })
    });
    match found {
        Ok(path) => path,
        Err(problem) => panic!("{problem}"),
    }
}

e2e!(the_docs_render_in_a_headless_browser_with_no_internet);
fn the_docs_render_in_a_headless_browser_with_no_internet() {
    let server = Server::start();
    let profile = tempfile::tempdir().expect("a temporary folder");
    // Every host but the server's is unreachable, so a page that needed the
    // internet would show nothing.
    let output = Command::new(chromium())
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
        ])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .arg("--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1")
        .args(["--enable-logging=stderr", "--v=0"])
        .arg("--virtual-time-budget=15000")
        .arg("--dump-dom")
        .arg(server.url("/docs/"))
        .output()
        .expect("chromium runs");
    let dom = String::from_utf8_lossy(&output.stdout);
    let log = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "chromium failed:\n{log}");
    // Swagger UI rendered the document: its title, and one block per operation.
    assert!(
        dom.contains(r#"class="title">devmgr"#),
        "no title in\n{dom}"
    );
    for (path, methods) in DOCUMENTED_OPERATIONS {
        let blocks = dom.matches(&format!(r#"data-path="{path}""#)).count();
        assert_eq!(blocks, methods.len(), "operations of {path} shown");
    }
    for line in log.lines().filter(|line| line.contains("CONSOLE")) {
        assert!(
            !line.contains("Content Security Policy") && !line.contains("Failed to load"),
            "the page met a problem: {line}"
        );
    }
}
