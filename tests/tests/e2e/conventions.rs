//! Conventions of every route (docs/api.md): trailing slashes, 404, Allow, OPTIONS metadata, 405.

use crate::support::*;
use reqwest::Method;
use serde_json::{Value, json};

/// A server with one verified account owning one device.
pub fn setup() -> (Server, Account, String) {
    let server = Server::start();
    let alice = server.account("alice@example.com");
    let serial = server.device_serial(&alice.email);
    (server, alice, serial)
}

/// Every user route of the seed and of the device extensions, with its exact `Allow` header (the documented order).
fn routes(serial: &str) -> Vec<(String, &'static str)> {
    vec![
        ("/auth/".to_owned(), "POST, DELETE, OPTIONS"),
        ("/change-password/".to_owned(), "POST, OPTIONS"),
        ("/devices/".to_owned(), "GET, HEAD, OPTIONS"),
        (
            format!("/devices/{serial}/"),
            "GET, PUT, PATCH, DELETE, HEAD, OPTIONS",
        ),
        (format!("/devices/{serial}/ports/"), "GET, HEAD, OPTIONS"),
        (format!("/devices/{serial}/reboot/"), "POST, OPTIONS"),
        ("/profile/".to_owned(), "GET, PUT, PATCH, HEAD, OPTIONS"),
        ("/register/".to_owned(), "POST, OPTIONS"),
        ("/reset-password/".to_owned(), "POST, OPTIONS"),
    ]
}

const ALL_METHODS: [Method; 7] = [
    Method::GET,
    Method::POST,
    Method::PUT,
    Method::PATCH,
    Method::DELETE,
    Method::HEAD,
    Method::OPTIONS,
];

e2e!(serve_prints_exactly_the_listening_line_first);
fn serve_prints_exactly_the_listening_line_first() {
    let server = Server::builder().process().start();
    let line: Value = serde_json::from_str(server.first_stdout_line()).unwrap_or_else(|error| {
        panic!(
            "first stdout line {:?}: {error}",
            server.first_stdout_line()
        )
    });
    assert_eq!(keys(&line), ["listening"], "{line}");
    let url = string(&line, "listening");
    let port = url
        .strip_prefix("http://127.0.0.1:")
        .unwrap_or_else(|| panic!("listening URL {url:?}"));
    assert!(
        port.parse::<u16>().is_ok_and(|port| port != 0),
        "port of {url:?}"
    );
}

e2e!(a_missing_trailing_slash_redirects_whatever_the_method_and_before_authentication);
fn a_missing_trailing_slash_redirects_whatever_the_method_and_before_authentication() {
    let (server, alice, serial) = setup();
    for (route, _) in routes(&serial) {
        let bare = route.trim_end_matches('/');
        for method in ALL_METHODS {
            let reply = server.call(method.clone(), bare).send();
            reply.expect_status(301);
            assert_eq!(reply.header("location"), Some(route.as_str()), "{reply}");
        }
        // The query string is kept.
        for method in [Method::GET, Method::POST, Method::DELETE] {
            let reply = server
                .call(method, &format!("{bare}?page=2&q=a%20b"))
                .send();
            reply.expect_status(301);
            assert_eq!(
                reply.header("location"),
                Some(format!("{route}?page=2&q=a%20b").as_str()),
                "{reply}"
            );
        }
        // Credentials change nothing: neither a bad token nor a good one.
        let reply = server
            .call(Method::PATCH, bare)
            .token("0123456789abcdef0123456789abcdef01234567")
            .send();
        reply.expect_status(301);
        let reply = server
            .call(Method::PUT, bare)
            .token(&alice.token)
            .json(&json!({"name": "x"}))
            .send();
        reply.expect_status(301);
        assert_eq!(reply.header("location"), Some(route.as_str()), "{reply}");
    }
    // A device path that is a route whether or not the device exists.
    let other = "0f2c3d4e-5a6b-4c7d-8e9f-a0b1c2d3e4f5";
    let reply = server.get(&format!("/devices/{other}")).send();
    reply.expect_status(301);
    assert_eq!(
        reply.header("location"),
        Some(format!("/devices/{other}/").as_str())
    );

    // DELETE /auth without the slash was only redirected: the token still works.
    server
        .delete("/auth")
        .token(&alice.token)
        .send()
        .expect_status(301);
    server
        .get("/profile/")
        .token(&alice.token)
        .send()
        .expect_status(200);
}

e2e!(unknown_paths_are_404);
fn unknown_paths_are_404() {
    let (server, alice, serial) = setup();
    let paths = [
        "/nope/".to_owned(),
        "/nope".to_owned(),
        "/api/devices/".to_owned(),
        "/profile/extra/".to_owned(),
        "/auth/x/".to_owned(),
        format!("/devices/{serial}/reboot/now/"),
        "/devices/a/b/c/d/".to_owned(),
    ];
    for path in &paths {
        for method in [Method::GET, Method::POST, Method::DELETE] {
            server
                .call(method.clone(), path)
                .send()
                .expect_detail(404, NOT_FOUND);
            server
                .call(method, path)
                .token(&alice.token)
                .send()
                .expect_detail(404, NOT_FOUND);
        }
    }
}

e2e!(options_answers_every_route_without_credentials);
fn options_answers_every_route_without_credentials() {
    let (server, _alice, serial) = setup();
    for (route, allow) in routes(&serial) {
        let reply = server.options(&route).send();
        reply.expect_status(200).expect_allow(allow);
        let body = reply.json();
        assert_eq!(
            keys(&body),
            ["actions", "description", "name", "parses", "renders"],
            "{reply}"
        );
        assert!(body["name"].is_string(), "{reply}");
        assert!(body["description"].is_string(), "{reply}");
        assert_eq!(body["renders"], json!(["application/json"]), "{reply}");
        assert_eq!(
            body["parses"],
            json!([
                "application/json",
                "application/x-www-form-urlencoded",
                "multipart/form-data"
            ]),
            "{reply}"
        );
        assert!(body["actions"].is_object(), "{reply}");
    }
}

/// `actions[method][field]` of `OPTIONS path`, with an optional `max_length` checked and removed.
fn field_metadata(server: &Server, path: &str, method: &str, field: &str) -> Value {
    let reply = server.options(path).send();
    reply.expect_status(200);
    let mut meta = reply.json()["actions"][method][field].clone();
    assert!(meta.is_object(), "no actions.{method}.{field}\n{reply}");
    if let Some(max) = meta
        .as_object_mut()
        .and_then(|meta| meta.remove("max_length"))
    {
        assert!(max.is_u64(), "max_length should be an integer\n{reply}");
    }
    meta
}

e2e!(options_describes_the_body_of_each_write_method);
fn options_describes_the_body_of_each_write_method() {
    let (server, _alice, serial) = setup();
    let email = json!({"type": "email", "required": true, "read_only": false, "label": "Email"});
    assert_eq!(field_metadata(&server, "/auth/", "POST", "email"), email);
    assert_eq!(
        field_metadata(&server, "/register/", "POST", "email"),
        email
    );
    assert_eq!(
        field_metadata(&server, "/reset-password/", "POST", "email"),
        email
    );

    let password = field_metadata(&server, "/auth/", "POST", "password");
    assert_eq!(password["type"], "string");
    assert_eq!(password["required"], true);
    assert_eq!(password["read_only"], false);
    assert!(password["label"].is_string());
    for field in ["old_password", "new_password"] {
        let meta = field_metadata(&server, "/change-password/", "POST", field);
        assert_eq!(meta["type"], "string", "{field}: {meta}");
        assert_eq!(meta["read_only"], false, "{field}: {meta}");
        assert!(meta["required"].is_boolean(), "{field}: {meta}");
        assert!(meta["label"].is_string(), "{field}: {meta}");
    }
    assert_eq!(
        field_metadata(&server, "/change-password/", "POST", "new_password")["required"],
        true
    );

    let reply = server.options("/profile/").send();
    let actions = &reply.json()["actions"];
    let name = json!({"type": "string", "required": false, "read_only": false, "label": "Name", "max_length": 150});
    assert_eq!(actions["PUT"]["name"], name, "{reply}");
    assert_eq!(actions["PATCH"]["name"], name, "{reply}");

    // One action per POST/PUT/PATCH method that takes body fields, no more.
    for (path, methods) in [
        ("/auth/", &["POST"][..]),
        ("/register/", &["POST"]),
        ("/reset-password/", &["POST"]),
        ("/change-password/", &["POST"]),
        ("/profile/", &["PATCH", "PUT"]),
    ] {
        let reply = server.options(path).send();
        assert_eq!(keys(&reply.json()["actions"]), methods, "{reply}");
    }

    // No body-taking write method: no action.
    let reply = server.options(&format!("/devices/{serial}/reboot/")).send();
    assert_eq!(reply.json()["actions"], json!({}), "{reply}");
    let reply = server.options("/devices/").send();
    assert_eq!(reply.json()["actions"], json!({}), "{reply}");
}

e2e!(options_with_an_invalid_token_is_401_and_with_a_valid_one_200);
fn options_with_an_invalid_token_is_401_and_with_a_valid_one_200() {
    let (server, alice, serial) = setup();
    for (route, allow) in routes(&serial) {
        server
            .options(&route)
            .token("not-a-token")
            .send()
            .expect_401(INVALID_TOKEN);
        server
            .options(&route)
            .token(&alice.token)
            .send()
            .expect_status(200)
            .expect_allow(allow);
    }
}

e2e!(a_wrong_method_is_405_with_allow);
fn a_wrong_method_is_405_with_allow() {
    let (server, alice, serial) = setup();
    let public = [
        (Method::PATCH, "/register/", "POST, OPTIONS"),
        (Method::GET, "/register/", "POST, OPTIONS"),
        (Method::PUT, "/reset-password/", "POST, OPTIONS"),
        (Method::GET, "/reset-password/", "POST, OPTIONS"),
    ];
    for (method, path, allow) in public {
        let reply = server.call(method.clone(), path).send();
        reply
            .expect_detail(405, &format!("Method \"{method}\" not allowed."))
            .expect_allow(allow);
    }
    let reboot = format!("/devices/{serial}/reboot/");
    let authenticated = [
        (Method::GET, "/auth/", "POST, DELETE, OPTIONS"),
        (Method::PUT, "/auth/", "POST, DELETE, OPTIONS"),
        (Method::GET, "/change-password/", "POST, OPTIONS"),
        (Method::POST, "/devices/", "GET, HEAD, OPTIONS"),
        (Method::DELETE, "/devices/", "GET, HEAD, OPTIONS"),
        (Method::GET, reboot.as_str(), "POST, OPTIONS"),
        (Method::POST, "/profile/", "GET, PUT, PATCH, HEAD, OPTIONS"),
        (
            Method::DELETE,
            "/profile/",
            "GET, PUT, PATCH, HEAD, OPTIONS",
        ),
    ];
    for (method, path, allow) in authenticated {
        let reply = server.call(method.clone(), path).token(&alice.token).send();
        reply
            .expect_detail(405, &format!("Method \"{method}\" not allowed."))
            .expect_allow(allow);
    }
}

e2e!(a_wrong_method_on_a_protected_route_without_credentials_is_401);
fn a_wrong_method_on_a_protected_route_without_credentials_is_401() {
    let (server, _alice, serial) = setup();
    let reboot = format!("/devices/{serial}/reboot/");
    for (method, path) in [
        (Method::GET, "/change-password/"),
        (Method::POST, "/devices/"),
        (Method::DELETE, "/devices/"),
        (Method::GET, reboot.as_str()),
        (Method::POST, "/profile/"),
        (Method::DELETE, "/profile/"),
    ] {
        server.call(method, path).send().expect_401(NOT_PROVIDED);
    }
}
