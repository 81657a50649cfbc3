//! The harness: a running `devmgr serve` on a fresh database (an SQLite file,
//! or a PostgreSQL database in the `e2e_postgres` binary: see
//! [`Backend`]), an HTTP client that never follows redirects, the command
//! line on the same database, and the e-mails the server wrote to its mail
//! directory.

use reqwest::Method;
use reqwest::blocking::{Client, RequestBuilder};
use reqwest::header::HeaderMap;
use reqwest::redirect::Policy;
use serde_json::{Value, json};
use std::fs;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Output, Stdio};
use std::sync::{Arc, mpsc};
use std::thread;
use std::time::{Duration, Instant};
use tempfile::TempDir;

/// The binary under test, built by cargo from the real `main.rs`.
pub const BIN: &str = env!("CARGO_BIN_EXE_devmgr-under-test");

/// A password that passes every rule for the addresses and names used here.
pub const PASSWORD: &str = "Sturdy-Lantern-42";

/// How long a server may take to print its `{"listening": …}` line.
const START_TIMEOUT: Duration = Duration::from_secs(30);

/// A `devmgr` command run in `dir`, with no `DEVMGR_*` variable inherited
/// from the environment that runs the tests.
pub fn devmgr(dir: &Path) -> Command {
    let mut command = Command::new(BIN);
    command.current_dir(dir).stdin(Stdio::null());
    for (name, _) in std::env::vars_os() {
        if name.to_string_lossy().starts_with("DEVMGR_") {
            command.env_remove(name);
        }
    }
    command
}

/// Runs a command to completion.
pub fn run(command: &mut Command) -> Output {
    command.output().expect("the devmgr binary can be started")
}

fn describe(output: &Output) -> String {
    format!(
        "exit status: {}\nstdout: {}\nstderr: {}",
        output.status,
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

/// Asserts that a command succeeded and printed one JSON object on stdout.
#[track_caller]
pub fn stdout_json(output: &Output, what: &str) -> Value {
    assert!(
        output.status.success(),
        "`{what}` failed\n{}",
        describe(output)
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    let value: Value = serde_json::from_str(stdout.trim()).unwrap_or_else(|error| {
        panic!(
            "`{what}` did not print one JSON value ({error})\n{}",
            describe(output)
        )
    });
    assert!(
        value.is_object(),
        "`{what}` printed JSON that is not an object\n{}",
        describe(output)
    );
    value
}

/// Asserts that a command was refused: exit status 1, a message on stderr and
/// nothing on stdout that a program could take for a result.
#[track_caller]
pub fn assert_refused(output: &Output, what: &str) {
    assert_eq!(
        output.status.code(),
        Some(1),
        "`{what}` should exit with 1\n{}",
        describe(output)
    );
    assert!(
        !String::from_utf8_lossy(&output.stderr).trim().is_empty(),
        "`{what}` should explain itself on stderr\n{}",
        describe(output)
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        serde_json::from_str::<Value>(stdout.trim()).is_err(),
        "`{what}` should print no JSON result on stdout\n{}",
        describe(output)
    );
}

fn device_add<'a>(owner: &'a str, name: &'a str, extra: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec!["device", "add", "--owner", owner, "--name", name];
    args.extend_from_slice(extra);
    args
}

impl Default for Db {
    fn default() -> Self {
        Self::new()
    }
}

/// The database the tests of one test binary run on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    /// A fresh SQLite file per database.
    #[allow(dead_code, reason = "the e2e_postgres binary does not use it")]
    Sqlite,
    /// A fresh database per test on the PostgreSQL server of
    /// `DEVMGR_TEST_POSTGRES_URL`.
    #[allow(dead_code, reason = "only the e2e_postgres binary uses it")]
    Postgres,
}

/// A fresh, empty database and a temporary directory (the working directory
/// of every command, and the home of mail and logs). Clones share both, which
/// live as long as one of them.
#[derive(Clone)]
pub struct Db {
    dir: Arc<TempDir>,
    store: Store,
}

#[derive(Clone)]
enum Store {
    /// Not yet created: the first command creates the file.
    Sqlite(PathBuf),
    Postgres(Arc<scratch_postgres::TestDatabase>),
}

impl Db {
    /// A fresh database of this test binary's [`Backend`].
    pub fn new() -> Self {
        Self::on(crate::BACKEND)
    }

    /// A fresh database of the given backend.
    pub fn on(backend: Backend) -> Self {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let store = match backend {
            Backend::Sqlite => Store::Sqlite(dir.path().join("devmgr.db")),
            Backend::Postgres => {
                Store::Postgres(Arc::new(scratch_postgres::TestDatabase::create()))
            }
        };
        Db {
            dir: Arc::new(dir),
            store,
        }
    }

    /// The temporary directory (the working directory of every command).
    pub fn dir(&self) -> &Path {
        self.dir.path()
    }

    /// The database file, for tests of SQLite alone.
    #[track_caller]
    #[allow(dead_code, reason = "the e2e_postgres binary does not use it")]
    pub fn path(&self) -> &Path {
        match &self.store {
            Store::Sqlite(path) => path,
            Store::Postgres(_) => panic!("a test of SQLite files ran on PostgreSQL"),
        }
    }

    /// The PostgreSQL database, for tests of PostgreSQL alone.
    #[track_caller]
    #[allow(dead_code, reason = "only the e2e_postgres binary uses it")]
    pub fn postgres(&self) -> &scratch_postgres::TestDatabase {
        match &self.store {
            Store::Postgres(database) => database,
            Store::Sqlite(_) => panic!("a test of PostgreSQL ran on SQLite"),
        }
    }

    /// `sqlite:///abs/path/devmgr.db`, or the PostgreSQL database's `postgres://` URL.
    pub fn url(&self) -> String {
        match &self.store {
            Store::Sqlite(path) => format!("sqlite://{}", path.display()),
            Store::Postgres(database) => database.url().to_owned(),
        }
    }

    /// `devmgr --database-url <url> <args…>`.
    pub fn command(&self, args: &[&str]) -> Command {
        let mut command = devmgr(self.dir());
        command.arg("--database-url").arg(self.url()).args(args);
        command
    }

    /// Runs `devmgr --database-url <url> <args…>` and returns its output.
    pub fn run(&self, args: &[&str]) -> Output {
        run(&mut self.command(args))
    }

    /// Runs `devmgr --database-url <url> <args…>`, killing it after `timeout`
    /// (for `serve`, which runs until stopped when it accepts its options).
    pub fn run_for(&self, args: &[&str], timeout: Duration) -> Output {
        let mut child = self
            .command(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the devmgr binary can be started");
        if wait_with_timeout(&mut child, timeout).is_none() {
            let _ = child.kill();
        }
        child.wait_with_output().expect("the output of devmgr")
    }

    /// Runs a subcommand that must succeed and print one JSON object.
    #[track_caller]
    pub fn json(&self, args: &[&str]) -> Value {
        stdout_json(&self.run(args), &args.join(" "))
    }

    /// `devmgr user create --email <email> --password PASSWORD <extra…>`.
    #[track_caller]
    pub fn account_with(&self, email: &str, extra: &[&str]) -> Account {
        let mut args = vec!["user", "create", "--email", email, "--password", PASSWORD];
        args.extend_from_slice(extra);
        let created = self.json(&args);
        Account {
            email: string(&created, "email"),
            password: PASSWORD.to_owned(),
            token: string(&created, "token"),
            install_token: string(&created, "install_token"),
        }
    }

    /// `devmgr device add --owner <owner> --name <name> <extra…>`: the device object printed.
    #[track_caller]
    pub fn device(&self, owner: &str, name: &str, extra: &[&str]) -> Value {
        self.json(&device_add(owner, name, extra))
    }

    /// `devmgr device add --owner <owner> --name <name> <extra…>`, which must be refused.
    #[track_caller]
    pub fn refuse_device(&self, owner: &str, name: &str, extra: &[&str]) {
        let args = device_add(owner, name, extra);
        assert_refused(&self.run(&args), &args.join(" "));
    }
}

/// An account made with `devmgr user create`.
#[derive(Debug, Clone)]
pub struct Account {
    /// The e-mail address as printed by the command line.
    pub email: String,
    /// Its password ([`PASSWORD`] unless told otherwise).
    pub password: String,
    /// An auth token of the account.
    pub token: String,
    /// The account's install token.
    pub install_token: String,
}

/// Options of a server to start.
#[derive(Default)]
pub struct ServerBuilder {
    public_url: Option<String>,
    online_window: Option<u64>,
    database_url_at: DatabaseUrlAt,
    env: Vec<(String, String)>,
    args: Vec<String>,
    db: Option<Db>,
    smtp_url: Option<String>,
    bind: Option<String>,
}

/// Where `serve` is told the database URL.
#[derive(Default, Clone, Copy, PartialEq, Eq)]
pub enum DatabaseUrlAt {
    /// `devmgr --database-url URL serve …`
    #[default]
    BeforeSubcommand,
    /// `devmgr serve … --database-url URL`
    AfterSubcommand,
    /// `DEVMGR_DATABASE_URL=URL devmgr serve …`
    Environment,
}

impl ServerBuilder {
    /// `--public-url URL`.
    pub fn public_url(mut self, url: &str) -> Self {
        self.public_url = Some(url.to_owned());
        self
    }

    /// `--online-window SECONDS`.
    pub fn online_window(mut self, seconds: u64) -> Self {
        self.online_window = Some(seconds);
        self
    }

    /// Where the database URL goes on the command line.
    pub fn database_url_at(mut self, at: DatabaseUrlAt) -> Self {
        self.database_url_at = at;
        self
    }

    /// An environment variable for the server.
    pub fn env(mut self, name: &str, value: &str) -> Self {
        self.env.push((name.to_owned(), value.to_owned()));
        self
    }

    /// More options for `serve`, after the others.
    pub fn args(mut self, args: &[&str]) -> Self {
        self.args.extend(args.iter().map(|a| (*a).to_owned()));
        self
    }

    /// Serves this database (of an earlier server, say) instead of a fresh one.
    pub fn db(mut self, db: Db) -> Self {
        self.db = Some(db);
        self
    }

    /// `--smtp-url URL` instead of `--mail-dir`.
    pub fn smtp_url(mut self, url: &str) -> Self {
        self.smtp_url = Some(url.to_owned());
        self
    }

    /// Listens on this address instead of a free port of 127.0.0.1 (to
    /// restart a server where its clients expect it).
    pub fn bind(mut self, address: &str) -> Self {
        self.bind = Some(address.to_owned());
        self
    }

    /// `--throttle off`: for tests that make many unauthenticated writes.
    pub fn throttle_off(self) -> Self {
        self.args(&["--throttle", "off"])
    }

    /// Spawns `devmgr serve --bind 127.0.0.1:0` and waits until it listens.
    pub fn start(self) -> Server {
        let db = self.db.unwrap_or_default();
        let mail_dir = db.dir().join("mail");
        fs::create_dir_all(&mail_dir).expect("the mail directory can be made");
        let stderr_path = db.dir().join(format!(
            "server-{}.stderr",
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos())
        ));
        let stderr = fs::File::create(&stderr_path).expect("the stderr file can be made");

        let mut command = devmgr(db.dir());
        if self.database_url_at == DatabaseUrlAt::BeforeSubcommand {
            command.args(["--database-url", &db.url()]);
        }
        let bind = self.bind.as_deref().unwrap_or("127.0.0.1:0");
        command.args(["serve", "--bind", bind]);
        match &self.smtp_url {
            Some(url) => command.args(["--smtp-url", url]),
            None => command.arg("--mail-dir").arg(&mail_dir),
        };
        match self.database_url_at {
            DatabaseUrlAt::BeforeSubcommand => {}
            DatabaseUrlAt::AfterSubcommand => {
                command.args(["--database-url", &db.url()]);
            }
            DatabaseUrlAt::Environment => {
                command.env("DEVMGR_DATABASE_URL", db.url());
            }
        }
        command.envs(self.env.iter().map(|(name, value)| (name, value)));
        if let Some(url) = &self.public_url {
            command.args(["--public-url", url]);
        }
        if let Some(seconds) = self.online_window {
            command.args(["--online-window", &seconds.to_string()]);
        }
        command.args(&self.args);
        let mut child = command
            .stdout(Stdio::piped())
            .stderr(Stdio::from(stderr))
            .spawn()
            .expect("devmgr serve can be spawned");

        let stdout = child.stdout.take().expect("stdout is piped");
        let (sender, receiver) = mpsc::channel();
        thread::spawn(move || {
            let mut lines = BufReader::new(stdout).lines();
            let mut seen = Vec::new();
            for line in lines.by_ref() {
                let Ok(line) = line else { break };
                if let Some(url) = listening_url(&line) {
                    let _ = sender.send(Ok((url, seen.first().cloned().unwrap_or(line))));
                    // Keep draining so that the server never blocks on a full pipe.
                    for _ in lines.by_ref() {}
                    return;
                }
                seen.push(line);
            }
            let _ = sender.send(Err(seen));
        });

        let started = receiver.recv_timeout(START_TIMEOUT);
        let (base, first_stdout_line) = match started {
            Ok(Ok(found)) => found,
            Ok(Err(lines)) => {
                let status = wait_with_timeout(&mut child, Duration::from_secs(5));
                panic!(
                    "devmgr serve ended its stdout without a {{\"listening\": …}} line \
                     (status {status:?})\nstdout: {lines:?}\nstderr:\n{}",
                    fs::read_to_string(&stderr_path).unwrap_or_default()
                );
            }
            Err(_) => {
                let _ = child.kill();
                let _ = child.wait();
                panic!(
                    "devmgr serve did not print {{\"listening\": …}} within {START_TIMEOUT:?}\nstderr:\n{}",
                    fs::read_to_string(&stderr_path).unwrap_or_default()
                );
            }
        };

        let client = Client::builder()
            .redirect(Policy::none())
            .timeout(Duration::from_secs(30))
            .build()
            .expect("an HTTP client");
        Server {
            db,
            child,
            base,
            first_stdout_line,
            public_url: self.public_url,
            mail_dir,
            stderr_path,
            client,
        }
    }
}

fn listening_url(line: &str) -> Option<String> {
    let value: Value = serde_json::from_str(line).ok()?;
    value.get("listening")?.as_str().map(str::to_owned)
}

fn wait_with_timeout(child: &mut Child, timeout: Duration) -> Option<ExitStatus> {
    let deadline = Instant::now() + timeout;
    loop {
        if let Ok(Some(status)) = child.try_wait() {
            return Some(status);
        }
        if Instant::now() >= deadline {
            return None;
        }
        thread::sleep(Duration::from_millis(50));
    }
}

/// A running `devmgr serve`, killed when dropped.
pub struct Server {
    /// The server's database; the command line can use it meanwhile.
    pub db: Db,
    child: Child,
    base: String,
    first_stdout_line: String,
    public_url: Option<String>,
    mail_dir: PathBuf,
    stderr_path: PathBuf,
    client: Client,
}

impl Server {
    /// A server with default options.
    pub fn start() -> Server {
        ServerBuilder::default().start()
    }

    /// A server with options.
    pub fn builder() -> ServerBuilder {
        ServerBuilder::default()
    }

    /// The server's process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// The address from the `{"listening": …}` line, e.g. `http://127.0.0.1:41234`.
    pub fn base(&self) -> &str {
        &self.base
    }

    /// The first line the server printed on stdout.
    pub fn first_stdout_line(&self) -> &str {
        &self.first_stdout_line
    }

    /// The `<base>` the server must put in URLs: `--public-url` if given,
    /// else `http://` and the Host header that reqwest sends.
    pub fn expected_base(&self) -> String {
        self.public_url.clone().unwrap_or_else(|| self.base.clone())
    }

    /// An absolute address on this server.
    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    /// The `--mail-dir` of this server.
    pub fn mail_dir(&self) -> &Path {
        &self.mail_dir
    }

    /// Everything the server wrote to stderr so far.
    pub fn stderr(&self) -> String {
        fs::read_to_string(&self.stderr_path).unwrap_or_default()
    }

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

    /// Runs a subcommand on this server's database; it must succeed with JSON.
    #[track_caller]
    pub fn cli(&self, args: &[&str]) -> Value {
        self.db.json(args)
    }

    /// Runs a subcommand on this server's database and returns its output.
    pub fn cli_output(&self, args: &[&str]) -> Output {
        self.db.run(args)
    }

    /// A verified account with [`PASSWORD`], made on the command line.
    #[track_caller]
    pub fn account(&self, email: &str) -> Account {
        self.account_with(email, &["--verified"])
    }

    /// An account with [`PASSWORD`] and extra `user create` options.
    #[track_caller]
    pub fn account_with(&self, email: &str, extra: &[&str]) -> Account {
        self.db.account_with(email, extra)
    }

    /// `devmgr device add --owner <owner> --name <name> <extra…>`: the device object printed.
    #[track_caller]
    pub fn device(&self, owner: &str, name: &str, extra: &[&str]) -> Value {
        self.db.device(owner, name, extra)
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

    /// The contents of every `.eml` file in the mail directory, oldest first.
    pub fn mails(&self) -> Vec<String> {
        let mut files: Vec<(std::time::SystemTime, PathBuf)> = fs::read_dir(&self.mail_dir)
            .expect("the mail directory is readable")
            .filter_map(Result::ok)
            .map(|entry| entry.path())
            .filter(|path| path.extension().is_some_and(|ext| ext == "eml"))
            .map(|path| {
                let modified = fs::metadata(&path)
                    .and_then(|meta| meta.modified())
                    .unwrap_or(std::time::UNIX_EPOCH);
                (modified, path)
            })
            .collect();
        files.sort();
        files
            .into_iter()
            .map(|(_, path)| fs::read_to_string(&path).expect("an .eml file is text"))
            .collect()
    }

    /// Waits (up to 10 s) until at least `count` mails were written; returns all of them.
    #[track_caller]
    pub fn wait_for_mails(&self, count: usize) -> Vec<String> {
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            let mails = self.mails();
            if mails.len() >= count {
                return mails;
            }
            assert!(
                Instant::now() < deadline,
                "expected {count} mail(s) in the mail directory, found {}\nstderr:\n{}",
                mails.len(),
                self.stderr()
            );
            thread::sleep(Duration::from_millis(50));
        }
    }

    /// Waits for a mail, then checks that it is the only one and that it goes
    /// to `recipient`; returns it. Call it after a request known to send one
    /// mail to `recipient`, to show that earlier requests sent none.
    #[track_caller]
    pub fn assert_only_mail_to(&self, recipient: &str) -> String {
        let mails = self.wait_for_mails(1);
        // Give a stray mail (sent by an earlier request) time to show up too.
        thread::sleep(Duration::from_millis(300));
        let mails = if mails.len() == 1 {
            self.mails()
        } else {
            mails
        };
        assert_eq!(
            mails.len(),
            1,
            "exactly one mail expected, got:\n{}",
            mails.join("\n-----\n")
        );
        assert!(
            mails[0].contains(recipient),
            "the mail should go to {recipient}:\n{}",
            mails[0]
        );
        mails[0].clone()
    }

    /// Waits (up to 10 s) for a mail that is not among `earlier` (an earlier
    /// result of [`Server::mails`]) and returns it.
    #[track_caller]
    pub fn wait_for_new_mail(&self, earlier: &[String]) -> String {
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            let mails = self.mails();
            if let Some(new) = mails.into_iter().find(|mail| !earlier.contains(mail)) {
                return new;
            }
            assert!(
                Instant::now() < deadline,
                "expected a new mail besides the {} earlier one(s)\nstderr:\n{}",
                earlier.len(),
                self.stderr()
            );
            thread::sleep(Duration::from_millis(50));
        }
    }

    /// Asserts that, after a short wait for stray mail, exactly `count` mails
    /// were written: call it after requests that must send none.
    #[track_caller]
    pub fn assert_mail_count_stays(&self, count: usize) {
        thread::sleep(Duration::from_millis(500));
        let mails = self.mails();
        assert_eq!(
            mails.len(),
            count,
            "{count} mail(s) expected, got:\n{}",
            mails.join("\n-----\n")
        );
    }

    /// Kills the server at once (SIGKILL: no clean-up of any kind) and
    /// returns its database, which outlives it.
    pub fn kill(mut self) -> Db {
        let _ = self.child.kill();
        let _ = self.child.wait();
        self.db.clone()
    }

    /// Sends SIGTERM and waits (up to `timeout`) for the server to end.
    pub fn terminate(&mut self, timeout: Duration) -> Option<ExitStatus> {
        let status = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status()
            .expect("kill can be run");
        assert!(status.success(), "kill -TERM failed");
        wait_with_timeout(&mut self.child, timeout)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A request being built; [`Call::send`] sends it.
pub struct Call {
    what: String,
    builder: RequestBuilder,
}

impl Call {
    /// `Authorization: Token <token>`.
    pub fn token(self, token: &str) -> Self {
        self.authorization(&format!("Token {token}"))
    }

    /// A raw `Authorization` header.
    pub fn authorization(self, value: &str) -> Self {
        self.header("Authorization", value)
    }

    /// Any header.
    pub fn header(mut self, name: &str, value: &str) -> Self {
        self.what = format!("{} [{name}: {value}]", self.what);
        self.builder = self.builder.header(name, value);
        self
    }

    /// A JSON body with `Content-Type: application/json`.
    pub fn json(mut self, body: &Value) -> Self {
        let text = body.to_string();
        let shown: String = text.chars().take(200).collect();
        self.what = format!("{} {shown}", self.what);
        self.builder = self.builder.json(body);
        self
    }

    /// A raw body with the given `Content-Type`.
    pub fn body(mut self, content_type: &str, body: impl Into<Vec<u8>>) -> Self {
        let body = body.into();
        self.what = format!("{} ({content_type}, {} bytes)", self.what, body.len());
        self.builder = self.builder.header("Content-Type", content_type).body(body);
        self
    }

    /// Sends the request and reads the whole response.
    #[track_caller]
    pub fn send(self) -> Reply {
        let what = self.what;
        let response = self
            .builder
            .send()
            .unwrap_or_else(|error| panic!("{what}: {error:?}"));
        let status = response.status().as_u16();
        let headers = response.headers().clone();
        let body = response
            .text()
            .unwrap_or_else(|error| panic!("{what}: body: {error:?}"));
        Reply {
            what,
            status,
            headers,
            body,
        }
    }
}

/// A response, read whole.
pub struct Reply {
    /// The request, for messages.
    pub what: String,
    /// The status code.
    pub status: u16,
    /// The response headers.
    pub headers: HeaderMap,
    /// The body as text.
    pub body: String,
}

impl std::fmt::Display for Reply {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} → {}\n{:?}\n{}",
            self.what, self.status, self.headers, self.body
        )
    }
}

impl Reply {
    /// A header's value, if present and text.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|value| value.to_str().ok())
    }

    /// The body as JSON, with `Content-Type: application/json` asserted.
    #[track_caller]
    pub fn json(&self) -> Value {
        let content_type = self.header("content-type").unwrap_or_default();
        assert!(
            content_type.starts_with("application/json"),
            "Content-Type should be application/json, is {content_type:?}\n{self}"
        );
        serde_json::from_str(&self.body)
            .unwrap_or_else(|error| panic!("the body is not JSON ({error})\n{self}"))
    }

    /// Asserts the status code.
    #[track_caller]
    pub fn expect_status(&self, status: u16) -> &Self {
        assert_eq!(self.status, status, "unexpected status\n{self}");
        self
    }

    /// Asserts the status and the exact JSON body.
    #[track_caller]
    pub fn expect(&self, status: u16, body: Value) -> &Self {
        self.expect_status(status);
        assert_eq!(self.json(), body, "unexpected body\n{self}");
        self
    }

    /// Asserts the status and a body `{"detail": detail}`.
    #[track_caller]
    pub fn expect_detail(&self, status: u16, detail: &str) -> &Self {
        self.expect(status, json!({ "detail": detail }))
    }

    /// Asserts the status and an empty body.
    #[track_caller]
    pub fn expect_empty(&self, status: u16) -> &Self {
        self.expect_status(status);
        assert_eq!(self.body, "", "the body should be empty\n{self}");
        self
    }

    /// Asserts a 401 with `{"detail": detail}` and `WWW-Authenticate: Token`.
    #[track_caller]
    pub fn expect_401(&self, detail: &str) -> &Self {
        self.expect_detail(401, detail);
        assert_eq!(
            self.header("www-authenticate"),
            Some("Token"),
            "WWW-Authenticate\n{self}"
        );
        self
    }

    /// Asserts a 400 whose body maps `field` to exactly these messages.
    #[track_caller]
    pub fn expect_field_errors(&self, field: &str, messages: &[&str]) -> &Self {
        self.expect(400, json!({ field: messages }))
    }

    /// Asserts an `Allow` header.
    #[track_caller]
    pub fn expect_allow(&self, allow: &str) -> &Self {
        assert_eq!(self.header("allow"), Some(allow), "Allow header\n{self}");
        self
    }

    /// Asserts a 429 `{"detail": "Request was throttled. Expected available in
    /// N seconds."}` with `Retry-After: N`, N ≥ 1, and returns N.
    #[track_caller]
    pub fn expect_throttled(&self) -> u64 {
        self.expect_status(429);
        let retry_after = self
            .header("retry-after")
            .unwrap_or_else(|| panic!("a 429 needs Retry-After\n{self}"));
        let seconds: u64 = retry_after
            .parse()
            .unwrap_or_else(|_| panic!("Retry-After should be whole seconds\n{self}"));
        assert!(seconds >= 1, "Retry-After should be at least 1\n{self}");
        self.expect_detail(
            429,
            &format!("Request was throttled. Expected available in {seconds} seconds."),
        );
        seconds
    }
}

/// The 401 detail when no credentials were sent.
pub const NOT_PROVIDED: &str = "Authentication credentials were not provided.";
/// The 401 detail for an unknown or deleted token.
pub const INVALID_TOKEN: &str = "Invalid token.";
/// The 404 detail.
pub const NOT_FOUND: &str = "Not found.";
/// The login failure message.
pub const BAD_CREDENTIALS: &str = "Unable to log in with provided credentials.";
/// The message for a required field.
pub const REQUIRED: &str = "This field is required.";

/// A string field of a JSON object (asserted present and a string).
#[track_caller]
pub fn string(value: &Value, key: &str) -> String {
    value
        .get(key)
        .and_then(Value::as_str)
        .unwrap_or_else(|| panic!("{key:?} should be a string in {value:#}"))
        .to_owned()
}

/// The sorted keys of a JSON object.
#[track_caller]
pub fn keys(value: &Value) -> Vec<String> {
    let object = value
        .as_object()
        .unwrap_or_else(|| panic!("not an object: {value:#}"));
    let mut keys: Vec<String> = object.keys().cloned().collect();
    keys.sort();
    keys
}

/// Asserts a 201 `{"token": <40 lowercase hex>}` and returns the token.
#[track_caller]
pub fn new_token(reply: &Reply) -> String {
    reply.expect_status(201);
    let body = reply.json();
    assert_eq!(keys(&body), ["token"], "{reply}");
    let token = string(&body, "token");
    assert!(
        is_auth_token(&token),
        "a token is 40 lowercase hex characters: {token:?}"
    );
    token
}

/// 40 lowercase hexadecimal characters.
pub fn is_auth_token(text: &str) -> bool {
    text.len() == 40
        && text
            .chars()
            .all(|c| c.is_ascii_digit() || ('a'..='f').contains(&c))
}

/// 32 characters of `[a-z0-9]`.
pub fn is_install_token(text: &str) -> bool {
    text.len() == 32
        && text
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit())
}

/// A lowercase UUID: 8-4-4-4-12 lowercase hexadecimal digits.
pub fn is_lowercase_uuid(text: &str) -> bool {
    let groups: Vec<&str> = text.split('-').collect();
    groups.iter().map(|group| group.len()).eq([8, 4, 4, 4, 12])
        && groups.iter().all(|group| {
            group
                .chars()
                .all(|c| c.is_ascii_digit() || ('a'..='f').contains(&c))
        })
}

/// `YYYY-MM-DDTHH:MM:SS`, nothing more.
pub fn is_timestamp(text: &str) -> bool {
    let pattern = "dddd-dd-ddTdd:dd:dd";
    text.len() == pattern.len()
        && text
            .chars()
            .zip(pattern.chars())
            .all(|(c, p)| if p == 'd' { c.is_ascii_digit() } else { c == p })
}

/// `^[a-z0-9-]{1,40}$`.
pub fn is_slug(text: &str) -> bool {
    (1..=40).contains(&text.len())
        && text
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
}

/// The first link in `mail` that contains `marker`: from its `http` to the
/// first white space, quote or angle bracket.
#[track_caller]
pub fn link_in(mail: &str, marker: &str) -> String {
    let at = mail
        .find(marker)
        .unwrap_or_else(|| panic!("no {marker:?} in the mail:\n{mail}"));
    let start = mail[..at]
        .rfind("http")
        .unwrap_or_else(|| panic!("no http… before {marker:?} in the mail:\n{mail}"));
    let end = mail[at..]
        .find(|c: char| c.is_whitespace() || matches!(c, '"' | '\'' | '<' | '>'))
        .map_or(mail.len(), |offset| at + offset);
    mail[start..end].to_owned()
}

/// `GET /profile/` with `token`; asserts a 200 and returns the profile.
#[track_caller]
pub fn profile(server: &Server, token: &str) -> Value {
    let reply = server.get("/profile/").token(token).send();
    reply.expect_status(200);
    reply.json()
}

/// Characters allowed in an e-mailed key: URL-safe, at least 32 of them.
pub fn is_mail_key(key: &str) -> bool {
    key.len() >= 32
        && key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}

/// The key of the verification link in `mail`, `<base>/verify-email/<key>/`,
/// checked to be 32+ URL-safe characters.
#[track_caller]
pub fn verification_key(mail: &str) -> String {
    let link = link_in(mail, "/verify-email/");
    let (_, rest) = link
        .split_once("/verify-email/")
        .expect("the marker is in the link");
    let key = rest
        .strip_suffix('/')
        .unwrap_or_else(|| panic!("link {link:?} should end in <key>/ in\n{mail}"));
    assert!(
        is_mail_key(key),
        "key {key:?} should be 32+ URL-safe characters"
    );
    key.to_owned()
}

/// The key of the reset link in `mail`, `<base>/reset-password/confirm/?key=<key>`,
/// checked to be 32+ URL-safe characters.
#[track_caller]
pub fn reset_key(mail: &str) -> String {
    let link = link_in(mail, "/reset-password/confirm/?key=");
    let (_, key) = link
        .split_once("/reset-password/confirm/?key=")
        .expect("the marker is in the link");
    assert!(
        is_mail_key(key),
        "key {key:?} should be 32+ URL-safe characters"
    );
    key.to_owned()
}

/// `'sha256-…'`: how a Content-Security-Policy names an inline element by
/// the SHA-256 of its text.
pub fn csp_hash(text: &str) -> String {
    use base64::Engine;
    use sha2::Digest;
    let digest = sha2::Sha256::digest(text.as_bytes());
    format!(
        "'sha256-{}'",
        base64::engine::general_purpose::STANDARD.encode(digest)
    )
}
