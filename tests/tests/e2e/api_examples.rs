//! The examples of the OpenAPI document are true: every request body,
//! answer and parameter has one, each is valid against its schema (checked
//! by openapi-schema-validator, with formats), and the request examples,
//! sent to a live server with only the secrets a reader would substitute
//! (keys, tokens, serials, ids), get the documented success. The examples of
//! the common failures are the server's own answers, word for word.

use crate::api_description::contract_python;
use crate::support::*;
use serde_json::{Value, json};
use std::collections::BTreeMap;

/// Walks the document and checks every example against its schema.
const CHECK_EXAMPLES: &str = include_str!("../../python/check_examples.py");

e2e!(every_example_is_valid_against_its_schema: sqlite);
fn every_example_is_valid_against_its_schema() {
    let server = Server::start();
    let reply = server.get("/openapi.json").send();
    reply.expect_status(200);
    let mut child = contract_python()
        .command()
        .args(["-c", CHECK_EXAMPLES])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("python3 runs");
    use std::io::Write;
    child
        .stdin
        .take()
        .expect("a stdin")
        .write_all(reply.body.as_bytes())
        .expect("the document is sent");
    let output = child.wait_with_output().expect("python3 ends");
    let log = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "examples that are missing or wrong:\n{}{log}",
        String::from_utf8_lossy(&output.stdout),
    );
    // Every operation's request and answers: far more than a handful.
    let checked: u32 = log
        .trim()
        .strip_prefix("checked ")
        .and_then(|rest| rest.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no count in {log}"));
    assert!(checked > 150, "{log}");
}

/// Each operation of the document by id: its method, path and success status.
fn operations(doc: &Value) -> BTreeMap<String, (String, String, u16)> {
    let mut found = BTreeMap::new();
    for (path, item) in doc["paths"].as_object().expect("paths") {
        for (method, op) in item.as_object().expect("a path item") {
            let success = op["responses"]
                .as_object()
                .expect("responses")
                .keys()
                .find(|status| status.starts_with('2'))
                .expect("a success")
                .parse()
                .expect("a status");
            let id = op["operationId"].as_str().expect("an id").to_owned();
            found.insert(id, (method.to_uppercase(), path.clone(), success));
        }
    }
    found
}

/// Sends an operation's request example, with `changes` made to it, to
/// `path` (the document's with its parameters filled in), and checks the
/// documented success status.
struct Examples<'a> {
    server: &'a Server,
    doc: Value,
    operations: BTreeMap<String, (String, String, u16)>,
    sent: usize,
}

impl Examples<'_> {
    fn body(&self, id: &str) -> Value {
        let (method, path, _) = &self.operations[id];
        self.doc["paths"][path][method.to_lowercase()]["requestBody"]["content"]["application/json"]
            ["example"]
            .clone()
    }

    #[track_caller]
    fn send(
        &mut self,
        id: &str,
        credentials: Option<&str>,
        params: &[&str],
        changes: Value,
    ) -> Reply {
        let (method, pattern, status) = self.operations[id].clone();
        let mut path = pattern.clone();
        for value in params {
            let start = path.find('{').expect("a parameter to fill");
            let end = path[start..].find('}').expect("its end") + start;
            path.replace_range(start..=end, value);
        }
        let mut body = self.body(id);
        for (name, value) in changes.as_object().into_iter().flatten() {
            body[name] = value.clone();
        }
        let mut call = self
            .server
            .call(method.parse().expect("a method"), &path)
            .json(&body);
        if let Some(credentials) = credentials {
            call = call.authorization(credentials);
        }
        let reply = call.send();
        assert_eq!(
            reply.status, status,
            "{id} with its example {body}: {reply}"
        );
        self.sent += 1;
        reply
    }
}

e2e!(the_request_examples_succeed_on_a_live_server: sqlite);
fn the_request_examples_succeed_on_a_live_server() {
    let server = Server::builder().throttle_off().start();
    let doc = server.get("/openapi.json").send().json();
    let mut examples = Examples {
        server: &server,
        operations: operations(&doc),
        doc,
        sent: 0,
    };
    let login = examples.body("login");
    assert_eq!(
        login["password"], PASSWORD,
        "the examples' account has the tests' password"
    );
    let account = server.account(login["email"].as_str().expect("an e-mail"));
    let user = format!("Token {}", account.token);
    let user = Some(user.as_str());

    examples.send("login", None, &[], json!({}));
    examples.send("replaceProfile", user, &[], json!({}));
    examples.send("updateProfile", user, &[], json!({}));

    let token = json!(account.install_token);
    let enrolment = examples.send("installDevice", None, &[], json!({"install_token": token}));
    let serial = string(&enrolment.json(), "serial");
    let device_auth = format!("Device {}", string(&enrolment.json(), "device_token"));
    let device = Some(device_auth.as_str());
    examples.send("replaceDevice", user, &[&serial], json!({}));
    examples.send("updateDevice", user, &[&serial], json!({}));
    server
        .post(&format!("/devices/{serial}/reboot/"))
        .token(&account.token)
        .send()
        .expect_status(202);
    let beat = examples.send("sendHeartbeat", device, &[], json!({}));
    let command = string(&beat.json()["commands"][0], "id");
    examples.send("acknowledgeCommand", device, &[&command], json!({}));
    examples.send("selectDevices", user, &[], json!({}));
    examples.send("retagDevices", user, &[], json!({}));
    let job = examples.send("createJob", user, &[], json!({}));
    let job = string(&job.json(), "id");
    examples.send("cancelJob", user, &[&job], json!({}));
    // A job that halts: two waves of one device, the first failing.
    let spare = server
        .post("/install/")
        .json(&json!({"install_token": account.install_token, "name": "Spare Pi"}))
        .send();
    spare.expect_status(201);
    let tokens = [
        (serial.clone(), device_auth.clone()),
        (
            string(&spare.json(), "serial"),
            format!("Device {}", string(&spare.json(), "device_token")),
        ),
    ];
    let halting = json!({"selector": {"all": true}, "wave_size": 1, "halt_failure_ratio": 0});
    let halted = examples.send("createJob", user, &[], halting);
    let halted = string(&halted.json(), "id");
    halt(&server, &account.token, &tokens, &halted);
    examples.send("resumeJob", user, &[&halted], json!({}));

    examples.send("changePassword", user, &[], json!({}));
    let earlier = server.mails();
    examples.send("requestPasswordReset", None, &[], json!({}));
    let key = reset_key(&server.wait_for_new_mail(&earlier));
    examples.send("confirmPasswordReset", None, &[], json!({"key": key}));

    let earlier = server.mails();
    examples.send("register", None, &[], json!({}));
    let key = verification_key(&server.wait_for_new_mail(&earlier));
    examples.send("resendVerificationEmail", None, &[], json!({}));
    examples.send("verifyEmail", None, &[], json!({"key": key}));
    // Every operation that takes a body, as docs/api.md lists them.
    assert_eq!(examples.sent, 20);
}

/// Fails the first wave of job `id` of `token`'s account with the device
/// token of its target (`tokens`: serial → `Device …`), and waits until the
/// job halts.
#[track_caller]
fn halt(server: &Server, token: &str, tokens: &[(String, String)], id: &str) {
    let reply = server
        .get(&format!("/jobs/{id}/targets/"))
        .token(token)
        .send();
    reply.expect_status(200);
    let first = reply.json()["results"][0].clone();
    let command = string(&first, "command_id");
    let (_, device) = tokens
        .iter()
        .find(|(serial, _)| first["serial"] == serial.as_str())
        .expect("a target of the account's devices");
    for status in ["received", "failed"] {
        server
            .post(&format!("/agent/commands/{command}/ack/"))
            .authorization(device)
            .json(&json!({"status": status, "detail": "disk full"}))
            .send()
            .expect_empty(204);
    }
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(3);
    loop {
        let job = server
            .get(&format!("/jobs/{id}/"))
            .token(token)
            .send()
            .json();
        if job["status"] == "halted" {
            return;
        }
        assert!(std::time::Instant::now() < deadline, "not halted: {job}");
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

e2e!(the_examples_of_common_failures_are_the_servers_own_words: sqlite);
fn the_examples_of_common_failures_are_the_servers_own_words() {
    let server = Server::start();
    let doc = server.get("/openapi.json").send().json();
    let example = |name: &str| {
        doc["components"]["responses"][name]["content"]["application/json"]["example"].clone()
    };
    let account = server.account("failures@example.com");
    let unknown = doc["paths"]["/devices/{serial}/"]["get"]["parameters"][0]["example"]
        .as_str()
        .expect("a serial example")
        .to_owned();
    let cases = [
        ("Unauthorized", server.get("/devices/").send()),
        (
            "NotFound",
            server
                .get(&format!("/devices/{unknown}/"))
                .token(&account.token)
                .send(),
        ),
        ("BadRequest", server.post("/auth/").json(&json!([])).send()),
        (
            "UnsupportedMediaType",
            server.post("/auth/").body("text/plain", "hello").send(),
        ),
        (
            "Forbidden",
            server
                .post("/reset-password/")
                .token(&account.token)
                .json(&json!({"email": account.email}))
                .send(),
        ),
    ];
    for (name, reply) in cases {
        assert_eq!(reply.json(), example(name), "{name}: {reply}");
    }
}
