//! Requests to a [`Server`], and the fixtures tests build on it.

use super::process::device_add;
use super::{Account, Call, Reply, Server, new_token, string};
use reqwest::Method;
use serde_json::{Value, json};
use std::process::Output;

impl Server {
    /// A request to this server.
    pub fn call(&self, method: Method, path: &str) -> Call {
        Call {
            what: format!("{method} {path}"),
            builder: self.client.request(method, self.url(path)),
        }
    }

    /// A GET request.
    pub fn get(&self, path: &str) -> Call {
        self.call(Method::GET, path)
    }

    /// A POST request.
    pub fn post(&self, path: &str) -> Call {
        self.call(Method::POST, path)
    }

    /// A PUT request.
    pub fn put(&self, path: &str) -> Call {
        self.call(Method::PUT, path)
    }

    /// A PATCH request.
    pub fn patch(&self, path: &str) -> Call {
        self.call(Method::PATCH, path)
    }

    /// A DELETE request.
    pub fn delete(&self, path: &str) -> Call {
        self.call(Method::DELETE, path)
    }

    /// A HEAD request.
    pub fn head(&self, path: &str) -> Call {
        self.call(Method::HEAD, path)
    }

    /// An OPTIONS request.
    pub fn options(&self, path: &str) -> Call {
        self.call(Method::OPTIONS, path)
    }

    /// Runs a subcommand (a process) on this server's database; it must
    /// succeed with JSON.
    #[track_caller]
    pub fn cli(&self, args: &[&str]) -> Value {
        self.db.json(args)
    }

    /// Runs a subcommand (a process) on this server's database and returns its output.
    pub fn cli_output(&self, args: &[&str]) -> Output {
        self.db.run(args)
    }

    /// A verified account with [`PASSWORD`], made by the command line's code
    /// in this process.
    #[track_caller]
    pub fn account(&self, email: &str) -> Account {
        self.account_with(email, &["--verified"])
    }

    /// An account with [`PASSWORD`] and extra `user create` options.
    #[track_caller]
    pub fn account_with(&self, email: &str, extra: &[&str]) -> Account {
        self.db.account_with(email, extra)
    }

    /// `devmgr device add --owner <owner> --name <name> <extra…>`, in this
    /// process: the device object it would print.
    #[track_caller]
    pub fn device(&self, owner: &str, name: &str, extra: &[&str]) -> Value {
        self.db.fixture(&device_add(owner, name, extra))
    }

    /// The serial of a new device of `owner`.
    #[track_caller]
    pub fn device_serial(&self, owner: &str) -> String {
        string(&self.device(owner, "Test device", &[]), "serial")
    }

    /// `POST /auth/` with these credentials.
    pub fn login(&self, email: &str, password: &str) -> Reply {
        self.post("/auth/")
            .json(&json!({"email": email, "password": password}))
            .send()
    }

    /// Logs in and returns the new token (asserting the 201 and its shape).
    #[track_caller]
    pub fn login_token(&self, email: &str, password: &str) -> String {
        new_token(&self.login(email, password))
    }

    /// Registers through `POST /register/` and returns the token (asserting the 201).
    #[track_caller]
    pub fn register(&self, email: &str) -> String {
        new_token(
            &self
                .post("/register/")
                .json(&json!({"email": email}))
                .send(),
        )
    }

    /// Sets the first password of an account that has none (no
    /// `old_password` needed); expects 204.
    #[track_caller]
    pub fn set_first_password(&self, token: &str, password: &str) {
        self.post("/change-password/")
            .token(token)
            .json(&json!({ "new_password": password }))
            .send()
            .expect_empty(204);
    }
}
