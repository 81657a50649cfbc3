//! A running server for a test: by default the real app inside the test's
//! own process ([`devmgr::server::InProcessServer`]) on a port of 127.0.0.1,
//! on a [`TestClock`] the test advances and with its mail kept by a
//! [`MemoryMailer`] the test reads; a real `devmgr serve` process where the
//! process is the subject (see [`ServerBuilder::process`]), with its mail in
//! a mail directory.

use super::Db;
use super::clock::TestClock;
use super::mail::Mail;
use super::process::{devmgr, spawn_serve, wait_with_timeout};
use adapters_mail::MemoryMailer;
use devmgr::cli::Cli;
use devmgr::server::InProcessServer;
use reqwest::blocking::Client;
use reqwest::redirect::Policy;
use std::fs;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus};
use std::sync::Arc;
use std::time::Duration;

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
    process: bool,
    mail_dir: bool,
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

    /// A `devmgr serve` process instead of the app in this process: for tests
    /// of what only a process shows (its output and log, signals, limits of
    /// the operating system, several instances). Implied by
    /// [`ServerBuilder::env`] and a database URL not before the subcommand.
    pub fn process(mut self) -> Self {
        self.process = true;
        self
    }

    /// An environment variable for the server (a process, then).
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

    /// Mail written as `.eml` files into the mail directory
    /// (`--mail-dir`), also by a server in this process: for tests of that
    /// directory, or of programs that read it. A process always does so.
    pub fn mail_dir(mut self) -> Self {
        self.mail_dir = true;
        self
    }

    /// `--smtp-url URL`: mail goes to that SMTP server.
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

    /// Starts the server and waits until it listens: `devmgr serve --bind
    /// 127.0.0.1:0` and the options given, in this process unless a process
    /// was asked for. Mail goes to a [`MemoryMailer`] in this process, else
    /// to `--mail-dir <dir>/mail` (unless an SMTP server was given).
    pub fn start(self) -> Server {
        let db = self.db.clone().unwrap_or_default();
        let bind = self
            .bind
            .clone()
            .unwrap_or_else(|| "127.0.0.1:0".to_owned());
        let in_process = !self.process
            && self.env.is_empty()
            && self.database_url_at == DatabaseUrlAt::BeforeSubcommand;
        let mail = if in_process && !self.mail_dir && self.smtp_url.is_none() {
            Mail::Memory(Arc::new(MemoryMailer::new(
                "devmgr <devmgr@localhost>".parse().expect("an address"),
            )))
        } else {
            let mail_dir = db.dir().join("mail");
            fs::create_dir_all(&mail_dir).expect("the mail directory can be made");
            Mail::Dir(mail_dir)
        };
        let args = self.serve_args(&db, &bind, &mail);
        let clock = Arc::new(TestClock::default());
        let (running, base) = if in_process {
            let listener = TcpListener::bind(&bind).expect("the test can bind its address");
            let cli = Cli::from_args(std::iter::once("devmgr".to_owned()).chain(args))
                .unwrap_or_else(|error| panic!("the serve options: {error}"));
            let server = match &mail {
                Mail::Memory(mailer) => {
                    InProcessServer::start_with_mailer(cli, listener, clock.clone(), mailer.clone())
                }
                Mail::Dir(_) => InProcessServer::start(cli, listener, clock.clone()),
            }
            .unwrap_or_else(|error| panic!("the in-process server did not start: {error}"));
            let base = format!("http://{}", server.address());
            (Running::InProcess(Some(server)), base)
        } else {
            let mut command = devmgr(db.dir());
            command.args(args);
            if self.database_url_at == DatabaseUrlAt::Environment {
                command.env("DEVMGR_DATABASE_URL", db.url());
            }
            command.envs(self.env.iter().map(|(name, value)| (name, value)));
            let stderr_path = db.dir().join(format!(
                "server-{}.stderr",
                std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map_or(0, |d| d.as_nanos())
            ));
            let (child, base, first_line) = spawn_serve(command, &stderr_path);
            let process = Process {
                child,
                first_stdout_line: first_line,
                stderr_path,
            };
            (Running::Process(process), base)
        };
        // A kept-alive connection idle for 3 s is not reused: the server
        // closes one after 5 s, and a request sent as it closes fails
        // before it arrives (CI, once, after a slow run of logins).
        let client = Client::builder()
            .redirect(Policy::none())
            .timeout(Duration::from_secs(30))
            .pool_idle_timeout(Duration::from_secs(3))
            .build()
            .expect("an HTTP client");
        Server {
            db,
            running,
            base,
            public_url: self.public_url,
            mail,
            client,
            clock,
        }
    }

    /// The arguments of `devmgr` (without its name) for these options.
    fn serve_args(&self, db: &Db, bind: &str, mail: &Mail) -> Vec<String> {
        let mut args: Vec<String> = Vec::new();
        if self.database_url_at == DatabaseUrlAt::BeforeSubcommand {
            args.extend(["--database-url".to_owned(), db.url()]);
        }
        args.extend(["serve", "--bind", bind].map(str::to_owned));
        match (&self.smtp_url, mail) {
            (Some(url), _) => args.extend(["--smtp-url".to_owned(), url.clone()]),
            (None, Mail::Dir(dir)) => {
                args.extend(["--mail-dir".to_owned(), dir.display().to_string()]);
            }
            (None, Mail::Memory(_)) => {}
        }
        if self.database_url_at == DatabaseUrlAt::AfterSubcommand {
            args.extend(["--database-url".to_owned(), db.url()]);
        }
        if let Some(url) = &self.public_url {
            args.extend(["--public-url".to_owned(), url.clone()]);
        }
        if let Some(seconds) = self.online_window {
            args.extend(["--online-window".to_owned(), seconds.to_string()]);
        }
        args.extend(self.args.iter().cloned());
        args
    }
}

/// How the server runs.
enum Running {
    /// In this process; `None` once stopped.
    InProcess(Option<InProcessServer>),
    /// A `devmgr serve` process.
    Process(Process),
}

/// A `devmgr serve` process and what it printed.
struct Process {
    child: Child,
    first_stdout_line: String,
    stderr_path: PathBuf,
}

/// A running server, stopped (or its process killed) when dropped.
pub struct Server {
    /// The server's database; the command line can use it meanwhile.
    pub db: Db,
    running: Running,
    base: String,
    public_url: Option<String>,
    pub(super) mail: Mail,
    pub(super) client: Client,
    clock: Arc<TestClock>,
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

    /// The address it listens on, e.g. `http://127.0.0.1:41234`.
    pub fn base(&self) -> &str {
        &self.base
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

    /// The `--mail-dir` of this server (a process, or one started with
    /// [`ServerBuilder::mail_dir`]).
    #[track_caller]
    pub fn mail_dir(&self) -> &Path {
        match &self.mail {
            Mail::Dir(dir) => dir,
            Mail::Memory(_) => {
                panic!("this server keeps its mail in memory: start it with .mail_dir()")
            }
        }
    }

    /// Moves the server's clock forward, as if `by` had passed (windows,
    /// lockouts, expiries, re-deliveries); timers of the HTTP layer and the
    /// rate limiters keep real time.
    #[track_caller]
    pub fn advance(&self, by: Duration) {
        assert!(
            matches!(self.running, Running::InProcess(_)),
            "a devmgr serve process runs on the system clock"
        );
        self.clock.advance(by);
    }

    #[track_caller]
    fn process(&self) -> &Process {
        match &self.running {
            Running::Process(process) => process,
            Running::InProcess(_) => {
                panic!("only a devmgr serve process has this: start it with .process()")
            }
        }
    }

    #[track_caller]
    fn process_mut(&mut self) -> &mut Process {
        match &mut self.running {
            Running::Process(process) => process,
            Running::InProcess(_) => {
                panic!("only a devmgr serve process has this: start it with .process()")
            }
        }
    }

    /// The server's process id (of a process server).
    #[track_caller]
    pub fn pid(&self) -> u32 {
        self.process().child.id()
    }

    /// The first line the server printed on stdout (a process server).
    #[track_caller]
    pub fn first_stdout_line(&self) -> &str {
        &self.process().first_stdout_line
    }

    /// Everything the server wrote to stderr so far (a process server).
    #[track_caller]
    pub fn stderr(&self) -> String {
        fs::read_to_string(&self.process().stderr_path).unwrap_or_default()
    }

    /// What the server logged, for failure messages: its stderr, if a process.
    pub fn log(&self) -> String {
        match &self.running {
            Running::Process(process) => {
                fs::read_to_string(&process.stderr_path).unwrap_or_default()
            }
            Running::InProcess(_) => "(in-process server: no log)".to_owned(),
        }
    }

    /// Stops the server at once (a process: SIGKILL, no clean-up of any
    /// kind) and returns its database, which outlives it.
    pub fn kill(mut self) -> Db {
        self.stop();
        self.db.clone()
    }

    fn stop(&mut self) {
        match &mut self.running {
            Running::InProcess(server) => {
                if let Some(server) = server.take() {
                    server.stop();
                }
            }
            Running::Process(process) => {
                let _ = process.child.kill();
                let _ = process.child.wait();
            }
        }
    }

    /// Sends SIGTERM to a process server and waits (up to `timeout`) for it to end.
    #[track_caller]
    pub fn terminate(&mut self, timeout: Duration) -> Option<ExitStatus> {
        let child = &mut self.process_mut().child;
        let status = Command::new("kill")
            .args(["-TERM", &child.id().to_string()])
            .status()
            .expect("kill can be run");
        assert!(status.success(), "kill -TERM failed");
        wait_with_timeout(child, timeout)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.stop();
    }
}
