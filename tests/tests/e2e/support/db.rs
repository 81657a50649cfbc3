//! The database of a test: a fresh SQLite file or PostgreSQL database, the
//! command line on it, and fixtures made by the command line's code.

use super::process::{device_add, wait_with_timeout};
use super::{PASSWORD, assert_refused, devmgr, run, stdout_json, string};
use serde_json::Value;
use std::cell::Cell;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::time::Duration;
use tempfile::TempDir;

impl Default for Db {
    fn default() -> Self {
        Self::new()
    }
}

/// The database a test runs on, chosen at run time: every test of
/// `e2e!` runs once per backend.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    /// A fresh SQLite file per database.
    Sqlite,
    /// A fresh database on the PostgreSQL server of `DEVMGR_TEST_POSTGRES_URL`.
    Postgres,
}

thread_local! {
    static BACKEND: Cell<Option<Backend>> = const { Cell::new(None) };
}

/// Runs `test` with `backend` as the backend of [`Db::new`] on this thread.
/// PostgreSQL tests wait for their turns first: one per server `instances`
/// runs at once on the test's database.
pub fn on_backend(backend: Backend, test: fn(), instances: usize) {
    BACKEND.set(Some(backend));
    let _turns = (backend == Backend::Postgres).then(|| PostgresTurns::take(instances));
    test();
}

/// Turns of PostgreSQL tests at once: one per server they run at a time.
/// Each server holds connections (a pool of up to 16, a listening session
/// and a serving mark; some tests load one until its pool is full), and
/// the test server takes 100 clients in all (PostgreSQL's default). Should
/// the pools together still reach that, servers wait for their own
/// connections rather than fail (see `docs/operations.md`), but a server
/// or command starting then could not connect. Four, not six: with six,
/// the database server itself fell behind often enough under the whole
/// suite (making and dropping databases, browsers and builds on the same
/// two cores) that a lone request now and then waited out its store's
/// time limit and got 503.
const POSTGRES_TURNS: usize = 4;

/// How many turns PostgreSQL tests hold, and the signal that some ended.
static POSTGRES_RUNNING: (Mutex<usize>, Condvar) = (Mutex::new(0), Condvar::new());

/// One PostgreSQL test's turns: taken before it starts, all at once (so two
/// tests each holding some never wait for each other), given back when it
/// ends, even by a panic.
struct PostgresTurns(usize);

impl PostgresTurns {
    fn take(turns: usize) -> Self {
        let turns = turns.clamp(1, POSTGRES_TURNS);
        let (running, ended) = &POSTGRES_RUNNING;
        let mut running = running.lock().unwrap_or_else(PoisonError::into_inner);
        while *running + turns > POSTGRES_TURNS {
            running = ended.wait(running).unwrap_or_else(PoisonError::into_inner);
        }
        *running += turns;
        Self(turns)
    }
}

impl Drop for PostgresTurns {
    fn drop(&mut self) {
        let (running, ended) = &POSTGRES_RUNNING;
        *running.lock().unwrap_or_else(PoisonError::into_inner) -= self.0;
        ended.notify_all();
    }
}

/// The backend of the test running on this thread.
#[track_caller]
pub fn current_backend() -> Backend {
    BACKEND.get().expect(
        "Db::new() on a thread without a backend: declare the test with e2e!, \
         or name the backend with Db::on",
    )
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
    /// A fresh database of the running test's [`Backend`].
    #[track_caller]
    pub fn new() -> Self {
        Self::on(current_backend())
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
    pub fn path(&self) -> &Path {
        match &self.store {
            Store::Sqlite(path) => path,
            Store::Postgres(_) => panic!("a test of SQLite files ran on PostgreSQL"),
        }
    }

    /// The PostgreSQL database, for tests of PostgreSQL alone.
    #[track_caller]
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

    /// Runs a subcommand in this process (`devmgr::run_once`, the code of
    /// the command line without its process): it must succeed; returns the
    /// JSON object it would print. For fixtures; tests of the command line
    /// itself use [`Db::json`].
    #[track_caller]
    pub fn fixture(&self, args: &[&str]) -> Value {
        let url = self.url();
        let argv = ["devmgr", "--database-url", &url]
            .into_iter()
            .chain(args.iter().copied());
        devmgr::run_once(argv).unwrap_or_else(|error| panic!("`{}`: {error}", args.join(" ")))
    }

    /// `devmgr user create --email <email> --password PASSWORD <extra…>`, in
    /// this process.
    #[track_caller]
    pub fn account_with(&self, email: &str, extra: &[&str]) -> Account {
        let mut args = vec!["user", "create", "--email", email, "--password", PASSWORD];
        args.extend_from_slice(extra);
        let created = self.fixture(&args);
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

/// An account made by `devmgr user create`.
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
