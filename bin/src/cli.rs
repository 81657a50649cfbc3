//! The command line (README, docs/operations.md).

use adapters_http::Rate;
use clap::{Args, Parser, Subcommand, ValueEnum};
use domain::{
    AgentVersion, Amount, DeviceDescription, DeviceName, OperatingSystem, ProfileName, Uname,
};
use std::path::PathBuf;

mod audit_args;
mod store_args;

pub use audit_args::{AuditCommand, AuditExportArgs, retention_days};
pub use store_args::{BackupArgs, CopyStoreArgs, RestoreArgs};

/// The address `serve` binds by default.
pub const DEFAULT_BIND: &str = "127.0.0.1:8000";

/// devmgr: a self-hosted device-management server.
#[derive(Debug, Parser)]
#[command(name = "devmgr", version, about, propagate_version = true)]
pub struct Cli {
    /// Read options from this TOML file: its keys are the options' long
    /// names with underscores (`bind`, `database_url`, `public_url`, …).
    /// Flags beat the environment, which beats the file.
    #[arg(long, global = true, env = "DEVMGR_CONFIG", value_name = "FILE")]
    pub config: Option<PathBuf>,

    /// Database to use: `sqlite://relative/path.db`, `sqlite:///absolute/path.db`, or
    /// `postgres://user[:password]@host[:port]/database` (shared by several instances).
    #[arg(
        long,
        global = true,
        env = "DEVMGR_DATABASE_URL",
        default_value = "sqlite://devmgr.db"
    )]
    pub database_url: String,

    /// Base of the absolute URLs the server shows (for example https://devmgr.example.com).
    /// By default, `http://` and the request's Host header.
    #[arg(long, global = true, env = "DEVMGR_PUBLIC_URL")]
    pub public_url: Option<String>,

    /// Address and port `serve` listens on (port 0 picks a free one). Other
    /// commands print links to it when --public-url is not set.
    #[arg(long, global = true, env = "DEVMGR_BIND", default_value = DEFAULT_BIND)]
    pub bind: String,

    /// How log lines are written on stderr: `text` for people, `json` (one
    /// object a line) for log collectors.
    #[arg(long, global = true, env = "DEVMGR_LOG_FORMAT", value_enum, default_value_t = LogFormat::Text)]
    pub log_format: LogFormat,

    /// What is logged, in tracing's filter syntax (`warn`, `debug`,
    /// `info,adapters_http::observe=debug`). Also read from DEVMGR_LOG (its
    /// older name), then RUST_LOG. Default: `info` for `serve`, `warn` for
    /// other commands.
    #[arg(long, global = true, env = "DEVMGR_LOG_LEVEL")]
    pub log_level: Option<String>,

    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

impl Cli {
    /// Parses a command line: `devmgr` and its arguments (options missing
    /// from it are read from the environment, then from the configuration
    /// file, as for the binary).
    pub fn from_args<I, T>(args: I) -> Result<Self, crate::CommandError>
    where
        I: IntoIterator<Item = T>,
        T: Into<std::ffi::OsString> + Clone,
    {
        crate::config_file::parse(args).map_err(|error| crate::CommandError(error.to_string()))
    }
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run the HTTP server (migrates the database first).
    Serve(ServeArgs),
    /// Create or upgrade the database schema.
    Migrate,
    /// Manage accounts.
    #[command(subcommand)]
    User(UserCommand),
    /// Manage devices.
    #[command(subcommand)]
    Device(DeviceCommand),
    /// Create a verified demo account with a few devices, and print how to use it.
    Demo,
    /// Write a consistent copy of the SQLite database to a new file, even while a server runs.
    Backup(BackupArgs),
    /// Replace the SQLite database with a backup (refused while a server uses it).
    Restore(RestoreArgs),
    /// Copy every row of one database into an empty other one (SQLite or PostgreSQL).
    CopyStore(CopyStoreArgs),
    /// Check or export the audit log (docs/audit.md); works while a server runs.
    #[command(subcommand)]
    Audit(AuditCommand),
}

/// Options of `serve`.
#[derive(Debug, Args)]
pub struct ServeArgs {
    /// Who may create an account: `open` (anyone, with POST /register/ or
    /// the console) or `closed` (accounts come from `devmgr user create`).
    #[arg(long, env = "DEVMGR_REGISTRATION", value_enum, default_value_t = RegistrationArg::Open)]
    pub registration: RegistrationArg,
    /// Write each outgoing e-mail as an .eml file in this folder instead of logging it.
    #[arg(long, env = "DEVMGR_MAIL_DIR", conflicts_with = "smtp_url")]
    pub mail_dir: Option<PathBuf>,
    /// Deliver e-mail through this SMTP server: smtp://[user:password@]host[:port]
    /// (port 25 by default) or smtps://… (TLS from the start, port 465 by default).
    #[arg(long, env = "DEVMGR_SMTP_URL")]
    pub smtp_url: Option<String>,
    /// STARTTLS on an smtp:// connection (default: `required` when the URL
    /// has a user, so credentials never travel in clear; else `opportunistic`).
    /// `off` together with credentials is refused.
    #[arg(long, env = "DEVMGR_SMTP_STARTTLS", value_enum)]
    pub smtp_starttls: Option<SmtpStartTls>,
    /// The From address of outgoing e-mail.
    #[arg(
        long,
        env = "DEVMGR_MAIL_FROM",
        default_value = "devmgr <devmgr@localhost>"
    )]
    pub mail_from: String,
    /// Rate limiting of unauthenticated write routes and locking of accounts
    /// after failed logins.
    #[arg(long, env = "DEVMGR_THROTTLE", value_enum, default_value_t = Throttle::On)]
    pub throttle: Throttle,
    /// Requests each client address may make to the unauthenticated write
    /// routes, as N/second, N/minute, N/hour or N/day (a burst of N, refilled evenly).
    #[arg(long, env = "DEVMGR_THROTTLE_RATE", default_value = "20/minute")]
    pub throttle_rate: Rate,
    /// Failed logins to one account within the lockout period that lock it.
    #[arg(long, env = "DEVMGR_LOGIN_MAX_FAILURES", default_value_t = 5, value_parser = clap::value_parser!(u32).range(1..))]
    pub login_max_failures: u32,
    /// Seconds an account stays locked after too many failed logins (also how
    /// long a failure is remembered).
    #[arg(long, env = "DEVMGR_LOGIN_LOCKOUT", default_value_t = 900, value_parser = clap::value_parser!(u32).range(1..))]
    pub login_lockout: u32,
    /// Take the client address from the last X-Forwarded-For entry. Only for
    /// a server reachable solely through a reverse proxy that sets that header.
    #[arg(long, env = "DEVMGR_TRUST_PROXY")]
    pub trust_proxy: bool,
    /// A device is online while its last heartbeat is younger than this many seconds.
    #[arg(long, env = "DEVMGR_ONLINE_WINDOW", default_value_t = 90, value_parser = clap::value_parser!(u32).range(1..))]
    pub online_window: u32,
    /// Seconds an account's alert mail window lasts: its first ten alert
    /// notifications are mailed one by one, the rest in one digest when it ends.
    #[arg(long, env = "DEVMGR_ALERT_MAIL_WINDOW", default_value_t = 60, value_parser = clap::value_parser!(u32).range(1..))]
    pub alert_mail_window: u32,
    /// Let webhooks target loopback, private and link-local addresses (for a
    /// receiver on the same machine or network; off by default against SSRF).
    #[arg(long, env = "DEVMGR_ALLOW_PRIVATE_WEBHOOKS")]
    pub allow_private_webhooks: bool,
    /// Days audit entries are kept: older ones are deleted at start and
    /// hourly, the newest deleted entry kept as the checkpoint where
    /// verification starts (docs/audit.md). A whole number from 1 to 36500.
    #[arg(long, env = "DEVMGR_AUDIT_RETENTION_DAYS", default_value_t = 365, value_name = "DAYS", value_parser = retention_days)]
    pub audit_retention_days: u32,
    /// HTTP worker threads (default: one per CPU core).
    #[arg(long, env = "DEVMGR_WORKERS")]
    pub workers: Option<usize>,
    /// Connections served at once; more wait in the listen backlog (default:
    /// 90 % of the open-file limit, which `serve` raises to the hard limit).
    #[arg(long, env = "DEVMGR_MAX_CONNECTIONS", value_parser = clap::value_parser!(u64).range(1..))]
    pub max_connections: Option<u64>,
    /// Password hashes that may wait for a free core; a request needing one
    /// more gets 503 at once instead of waiting.
    #[arg(long, env = "DEVMGR_MAX_HASH_QUEUE", default_value_t = 32)]
    pub max_hash_queue: usize,
    /// Password hashes computed at once, each on a thread of its own that
    /// keeps 19 MiB of memory (default: one fewer than the CPU cores, at
    /// least one).
    #[arg(long, env = "DEVMGR_HASH_THREADS", value_parser = clap::value_parser!(u16).range(1..))]
    pub hash_threads: Option<u16>,
    /// Password changes each account may make, as N/second, N/minute, N/hour
    /// or N/day (every request counts; off with `--throttle off`).
    #[arg(long, env = "DEVMGR_PASSWORD_CHANGE_RATE", default_value = "10/hour")]
    pub password_change_rate: Rate,
    /// Serve Prometheus metrics at http://ADDR/metrics on a listener of
    /// their own (off by default). It has no authentication: bind a private
    /// address.
    #[arg(long, env = "DEVMGR_METRICS_BIND")]
    pub metrics_bind: Option<String>,
}

/// How log lines are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum LogFormat {
    /// One line of text per event, for people.
    Text,
    /// One JSON object per line, for log collectors.
    Json,
}

/// Who may create an account.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum RegistrationArg {
    /// Anyone may register.
    Open,
    /// Only an operator makes accounts (`devmgr user create`).
    Closed,
}

impl From<RegistrationArg> for application::Registration {
    fn from(arg: RegistrationArg) -> Self {
        match arg {
            RegistrationArg::Open => Self::Open,
            RegistrationArg::Closed => Self::Closed,
        }
    }
}

/// Whether throttling is on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Throttle {
    /// Rate limits and login lockout enforced.
    On,
    /// No rate limits, no lockout.
    Off,
}

/// STARTTLS on smtp:// connections.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SmtpStartTls {
    /// Plain text throughout.
    Off,
    /// Upgrade when the server offers it.
    Opportunistic,
    /// Refuse to send unless the connection is upgraded.
    Required,
}

/// `user` subcommands.
#[derive(Debug, Subcommand)]
pub enum UserCommand {
    /// Create an account; prints its e-mail, a token and its install token.
    Create(UserCreateArgs),
}

/// Options of `user create`.
#[derive(Debug, Args)]
pub struct UserCreateArgs {
    /// Login e-mail address.
    #[arg(long)]
    pub email: String,
    /// Password (must pass the password policy); without it the account has no usable password.
    #[arg(long)]
    pub password: Option<String>,
    /// Display name.
    #[arg(long, default_value = "")]
    pub name: ProfileName,
    /// Mark the e-mail address as verified.
    #[arg(long)]
    pub verified: bool,
}

/// `device` subcommands.
#[derive(Debug, Subcommand)]
pub enum DeviceCommand {
    /// Add a device to an account; prints the device object.
    Add(DeviceAddArgs),
}

/// Options of `device add`.
#[derive(Debug, Args)]
pub struct DeviceAddArgs {
    /// E-mail address of the owning account.
    #[arg(long)]
    pub owner: String,
    /// Device name.
    #[arg(long)]
    pub name: DeviceName,
    /// Serial (a UUID); random by default.
    #[arg(long)]
    pub serial: Option<String>,
    /// Description.
    #[arg(long, default_value = "")]
    pub description: DeviceDescription,
    /// Machine type code, e.g. rpi_4b.
    #[arg(long, default_value = "unknown")]
    pub machine_type: String,
    /// Record a heartbeat now, so the device shows online.
    #[arg(long)]
    pub online: bool,
    /// Agent version.
    #[arg(long, default_value = "")]
    pub agent_version: AgentVersion,
    /// Operating system.
    #[arg(long, default_value = "")]
    pub operating_system: OperatingSystem,
    /// uname string.
    #[arg(long, default_value = "")]
    pub uname: Uname,
    /// Disk capacity in bytes.
    #[arg(long)]
    pub disk_capacity: Option<Amount>,
    /// Disk used in bytes.
    #[arg(long)]
    pub disk_used: Option<Amount>,
    /// RAM in MiB.
    #[arg(long, default_value_t = Amount::ZERO)]
    pub ram_capacity: Amount,
    /// Processor speed in MHz.
    #[arg(long, default_value_t = Amount::ZERO)]
    pub processor_speed: Amount,
    /// A tag to put on the device (repeat it for more; taken lowercased).
    #[arg(long = "tag", value_name = "TAG")]
    pub tags: Vec<String>,
}

#[cfg(test)]
mod tests;
