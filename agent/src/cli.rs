//! The command line of `devmgr-agent`.

use clap::{Args, Parser, Subcommand};
use std::path::PathBuf;

/// Where the configuration lives unless `--config` or `DEVMGR_AGENT_CONFIG` says otherwise.
pub const DEFAULT_CONFIG_PATH: &str = "/etc/devmgr-agent/config.json";

/// The command that reboots the machine unless `--reboot-command` says otherwise.
pub const DEFAULT_REBOOT_COMMAND: &str = "/sbin/reboot";

/// How long `install` keeps trying unless `--retry-for` says otherwise: an hour.
pub const DEFAULT_RETRY_FOR: u64 = 3600;

/// devmgr-agent: enrols this machine with a devmgr server, reports its facts
/// and carries out the reboots the server asks for.
#[derive(Debug, Parser)]
#[command(name = "devmgr-agent", version, about, propagate_version = true)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Enrol this machine with a server (or re-key it) and write the configuration file.
    Install(InstallArgs),
    /// Send heartbeats and carry out commands until SIGTERM or SIGINT.
    Run(RunArgs),
    /// Print the heartbeat body this machine would send, as one JSON object.
    Facts,
}

/// The `--config` option shared by `install` and `run`.
#[derive(Debug, Args)]
pub struct ConfigArg {
    /// The agent's configuration file (server, serial and the secret device token).
    #[arg(long = "config", env = "DEVMGR_AGENT_CONFIG", default_value = DEFAULT_CONFIG_PATH)]
    pub path: PathBuf,
}

/// Options of `install`.
#[derive(Debug, Args)]
pub struct InstallArgs {
    /// Base URL of the devmgr server, e.g. https://devmgr.example.com.
    #[arg(long)]
    pub server: String,
    /// The account's install token (shown by the server's profile); `-`
    /// reads it from standard input. Without --token or --token-file it
    /// comes from DEVMGR_AGENT_INSTALL_TOKEN; give exactly one of the three.
    #[arg(long, value_name = "TOKEN", conflicts_with = "token_file")]
    pub token: Option<String>,
    /// A file holding the install token (its trailing newline is ignored).
    #[arg(long, value_name = "FILE")]
    pub token_file: Option<PathBuf>,
    /// The device's name; by default the host name.
    #[arg(long)]
    pub name: Option<String>,
    /// The device's serial (a UUID); by default the one already configured for
    /// this server, else the server makes one.
    #[arg(long)]
    pub serial: Option<String>,
    /// The machine-type code (rpi_4b, x86_64, …); by default the detected one.
    #[arg(long)]
    pub machine_type: Option<String>,
    /// How long, in seconds, to keep trying while the server is busy (429),
    /// failing (5xx) or out of reach, waiting longer each time (and as long
    /// as its Retry-After says); then exit 1 with the last error. 0 tries once.
    #[arg(
        long,
        value_name = "SECONDS",
        env = "DEVMGR_AGENT_RETRY_FOR",
        default_value_t = DEFAULT_RETRY_FOR
    )]
    pub retry_for: u64,
    /// Where to write the configuration.
    #[command(flatten)]
    pub config: ConfigArg,
}

/// Options of `run`.
#[derive(Debug, Args)]
pub struct RunArgs {
    /// Where to read the configuration.
    #[command(flatten)]
    pub config: ConfigArg,
    /// Shell command that reboots the machine, run with `/bin/sh -c`.
    #[arg(long, env = "DEVMGR_AGENT_REBOOT_COMMAND", default_value = DEFAULT_REBOOT_COMMAND)]
    pub reboot_command: String,
    /// Longest wait, in seconds, between attempts while the server cannot be reached.
    #[arg(
        long,
        env = "DEVMGR_AGENT_MAX_BACKOFF",
        default_value_t = 60,
        value_parser = clap::value_parser!(u64).range(1..=86_400)
    )]
    pub max_backoff: u64,
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn the_command_line_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn the_servers_install_command_parses() {
        let cli = Cli::try_parse_from([
            "devmgr-agent",
            "install",
            "--server",
            "http://127.0.0.1:8000",
            "--token",
            "k3x9",
        ])
        .unwrap();
        let Command::Install(args) = cli.command else {
            panic!("not install: {cli:?}");
        };
        assert_eq!(args.server, "http://127.0.0.1:8000");
        assert_eq!(args.token.as_deref(), Some("k3x9"));
        assert_eq!(args.token_file, None);
        assert_eq!(args.name, None);
        assert_eq!(args.serial, None);
        assert_eq!(args.machine_type, None);
        assert_eq!(args.retry_for, 3600);
    }

    #[test]
    fn install_takes_a_retry_limit() {
        let cli = Cli::try_parse_from([
            "devmgr-agent",
            "install",
            "--server",
            "http://127.0.0.1:8000",
            "--retry-for",
            "0",
        ])
        .unwrap();
        let Command::Install(args) = cli.command else {
            panic!("not install: {cli:?}");
        };
        assert_eq!(args.retry_for, 0);
    }

    #[test]
    fn the_token_options_conflict() {
        let parsed = Cli::try_parse_from([
            "devmgr-agent",
            "install",
            "--server",
            "http://127.0.0.1:8000",
            "--token",
            "k3x9",
            "--token-file",
            "/run/token",
        ]);
        assert!(parsed.is_err());
        let cli = Cli::try_parse_from([
            "devmgr-agent",
            "install",
            "--server",
            "http://127.0.0.1:8000",
            "--token-file",
            "/run/token",
        ])
        .unwrap();
        let Command::Install(args) = cli.command else {
            panic!("not install: {cli:?}");
        };
        assert_eq!(args.token, None);
        assert_eq!(args.token_file, Some(PathBuf::from("/run/token")));
    }

    #[test]
    fn run_rejects_a_zero_backoff() {
        let parsed = Cli::try_parse_from(["devmgr-agent", "run", "--max-backoff", "0"]);
        assert!(parsed.is_err());
    }
}
