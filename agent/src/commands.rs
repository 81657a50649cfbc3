//! Carrying out the server's commands, and the acknowledgements that say how
//! they went.

use crate::escape::Escaped;
use crate::protocol::{Ack, Command, RequestedAction};
use domain::Action;
use domain::CommandStatus;
use std::os::unix::process::ExitStatusExt;
use std::process::{ExitStatus, Stdio};
use std::time::Duration;

/// How long the reboot command may run before it counts as failed.
pub const REBOOT_TIMEOUT: Duration = Duration::from_secs(120);

/// The detail of a successful reboot acknowledgement.
pub const REBOOT_STARTED: &str = "reboot started";

/// The detail of a reboot found unfinished when the agent starts: the reboot
/// happened before the agent could say so.
pub const DEVICE_RESTARTED: &str = "The device restarted.";

/// The detail of another command found unfinished when the agent starts.
pub const AGENT_STOPPED: &str = "The agent stopped before the command finished.";

/// The most characters of an unknown action quoted in the acknowledgement.
const MAX_QUOTED_ACTION_CHARS: usize = 100;

/// Whether this agent can carry out `action`: every action of the server.
pub fn is_known_action(action: &RequestedAction) -> bool {
    matches!(action, RequestedAction::Known(_))
}

/// The acknowledgement of a command whose action this agent does not know:
/// `Unknown action "<action>".`, the action cut to 100 characters and its
/// control characters escaped.
pub fn unknown_action_ack(action: &str) -> Ack {
    let mut quoted: String = action.chars().take(MAX_QUOTED_ACTION_CHARS).collect();
    if quoted.len() < action.len() {
        quoted.push('…');
    }
    Ack::new(
        CommandStatus::Failed,
        &format!("Unknown action \"{}\".", Escaped(&quoted)),
    )
}

/// The acknowledgement of a command that was started but never finished
/// before the agent started again: a reboot did its work (the restart is
/// the reboot), anything else did not.
pub fn interrupted_ack(action: &str) -> Ack {
    if Action::from_code(action) == Some(Action::Reboot) {
        Ack::new(CommandStatus::Done, DEVICE_RESTARTED)
    } else {
        Ack::new(CommandStatus::Failed, AGENT_STOPPED)
    }
}

/// Runs commands: `reboot` through a shell command line.
#[derive(Debug, Clone)]
pub struct CommandRunner {
    reboot_command: String,
    timeout: Duration,
}

impl CommandRunner {
    /// A runner that reboots with `/bin/sh -c <reboot_command>`, giving up after `timeout`.
    pub fn new(reboot_command: impl Into<String>, timeout: Duration) -> Self {
        Self {
            reboot_command: reboot_command.into(),
            timeout,
        }
    }

    /// Carries out `command` and says how it went.
    pub async fn carry_out(&self, command: &Command) -> Ack {
        match &command.action {
            RequestedAction::Known(Action::Reboot) => self.reboot().await,
            RequestedAction::Unknown(other) => unknown_action_ack(other),
        }
    }

    async fn reboot(&self) -> Ack {
        tracing::info!(command = %self.reboot_command, "rebooting");
        let outcome = run_shell(&self.reboot_command, self.timeout).await;
        reboot_ack(&outcome)
    }
}

/// How a shell command ended.
#[derive(Debug)]
pub enum ShellOutcome {
    /// It ran to its end.
    Exited {
        /// Its exit status.
        status: ExitStatus,
        /// What it wrote on stderr.
        stderr: String,
    },
    /// `/bin/sh` could not be started.
    CannotStart(std::io::Error),
    /// It was still running after the timeout, and was killed.
    TimedOut(Duration),
}

/// Runs `/bin/sh -c <command_line>` with no input, collecting its output.
pub async fn run_shell(command_line: &str, timeout: Duration) -> ShellOutcome {
    let child = tokio::process::Command::new("/bin/sh")
        .arg("-c")
        .arg(command_line)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn();
    let child = match child {
        Ok(child) => child,
        Err(error) => return ShellOutcome::CannotStart(error),
    };
    match tokio::time::timeout(timeout, child.wait_with_output()).await {
        Ok(Ok(output)) => {
            let stdout = String::from_utf8_lossy(&output.stdout);
            let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
            tracing::debug!(status = %output.status, %stdout, %stderr, "command finished");
            ShellOutcome::Exited {
                status: output.status,
                stderr,
            }
        }
        Ok(Err(error)) => ShellOutcome::CannotStart(error),
        Err(_elapsed) => ShellOutcome::TimedOut(timeout),
    }
}

/// The acknowledgement of a reboot that ended with `outcome`.
pub fn reboot_ack(outcome: &ShellOutcome) -> Ack {
    match outcome {
        ShellOutcome::Exited { status, .. } if status.success() => {
            Ack::new(CommandStatus::Done, REBOOT_STARTED)
        }
        ShellOutcome::Exited { status, stderr } => {
            let ending = match (status.code(), status.signal()) {
                (Some(code), _) => format!("exited with status {code}"),
                (None, Some(signal)) => format!("was killed by signal {signal}"),
                (None, None) => format!("ended with {status}"),
            };
            let detail = match last_line(stderr) {
                Some(line) => format!("reboot command {ending}: {line}"),
                None => format!("reboot command {ending}"),
            };
            Ack::new(CommandStatus::Failed, &detail)
        }
        ShellOutcome::CannotStart(error) => Ack::new(
            CommandStatus::Failed,
            &format!("cannot start the reboot command: {error}"),
        ),
        ShellOutcome::TimedOut(timeout) => Ack::new(
            CommandStatus::Failed,
            &format!(
                "reboot command did not finish within {} s and was killed",
                timeout.as_secs()
            ),
        ),
    }
}

/// The last line of `text` that is not blank, trimmed.
fn last_line(text: &str) -> Option<&str> {
    text.lines()
        .map(str::trim)
        .rev()
        .find(|line| !line.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn command(action: &str) -> Command {
        Command {
            id: "c1".to_owned(),
            action: RequestedAction::from_code(action),
            issued_time: "2026-11-21T10:00:00".to_owned(),
        }
    }

    async fn reboot_with(command_line: &str) -> Ack {
        CommandRunner::new(command_line, Duration::from_secs(10))
            .carry_out(&command("reboot"))
            .await
    }

    #[tokio::test]
    async fn a_reboot_command_that_succeeds_is_done() {
        let directory = tempfile::tempdir().unwrap();
        let marker = directory.path().join("rebooted");
        let ack = reboot_with(&format!("echo done > '{}'", marker.display())).await;
        assert_eq!(ack, Ack::new(CommandStatus::Done, REBOOT_STARTED));
        assert_eq!(std::fs::read_to_string(marker).unwrap(), "done\n");
    }

    #[tokio::test]
    async fn a_failing_reboot_command_reports_its_status_and_last_stderr_line() {
        let ack = reboot_with("echo first >&2; echo 'no permission' >&2; echo out; exit 3").await;
        assert_eq!(ack.status, CommandStatus::Failed);
        assert_eq!(
            ack.detail,
            "reboot command exited with status 3: no permission"
        );
        let ack = reboot_with("exit 1").await;
        assert_eq!(ack.detail, "reboot command exited with status 1");
    }

    #[tokio::test]
    async fn a_reboot_command_killed_by_a_signal_fails() {
        let ack = reboot_with("kill -KILL $$").await;
        assert_eq!(ack.status, CommandStatus::Failed);
        assert_eq!(ack.detail, "reboot command was killed by signal 9");
    }

    #[tokio::test]
    async fn a_reboot_command_that_hangs_is_killed_and_fails() {
        let started = std::time::Instant::now();
        let ack = CommandRunner::new("sleep 30", Duration::from_millis(200))
            .carry_out(&command("reboot"))
            .await;
        assert!(started.elapsed() < Duration::from_secs(5));
        assert_eq!(ack.status, CommandStatus::Failed);
        assert!(ack.detail.contains("did not finish"), "{}", ack.detail);
    }

    #[tokio::test]
    async fn an_unknown_action_fails_without_running_anything() {
        let ack = CommandRunner::new("exit 0", Duration::from_secs(1))
            .carry_out(&command("selfdestruct"))
            .await;
        assert_eq!(
            ack,
            Ack::new(CommandStatus::Failed, "Unknown action \"selfdestruct\".")
        );
    }

    #[test]
    fn an_unknown_action_is_quoted_escaped_and_cut() {
        let ack = unknown_action_ack("x\ny\u{1b}[2J");
        assert_eq!(ack.detail, r#"Unknown action "x\ny\u{1b}[2J"."#);
        let ack = unknown_action_ack(&"é".repeat(5000));
        assert_eq!(
            ack.detail,
            format!("Unknown action \"{}…\".", "é".repeat(100))
        );
        assert!(!is_known_action(&RequestedAction::from_code("Reboot")));
        assert!(is_known_action(&RequestedAction::from_code("reboot")));
    }

    #[test]
    fn an_interrupted_reboot_is_done_and_anything_else_failed() {
        assert_eq!(
            interrupted_ack("reboot"),
            Ack::new(CommandStatus::Done, "The device restarted.")
        );
        assert_eq!(interrupted_ack("update").status, CommandStatus::Failed);
    }

    #[test]
    fn long_stderr_is_cut_to_the_acks_limit() {
        let outcome = ShellOutcome::Exited {
            status: ExitStatus::from_raw(2 << 8),
            stderr: format!("{}\n", "x".repeat(5000)),
        };
        let ack = reboot_ack(&outcome);
        assert_eq!(ack.status, CommandStatus::Failed);
        assert_eq!(ack.detail.chars().count(), domain::AckDetail::MAX_CHARS);
        assert!(
            ack.detail
                .starts_with("reboot command exited with status 2: xxx")
        );
    }

    #[test]
    fn a_command_that_cannot_start_fails() {
        let outcome =
            ShellOutcome::CannotStart(std::io::Error::from(std::io::ErrorKind::PermissionDenied));
        let ack = reboot_ack(&outcome);
        assert_eq!(ack.status, CommandStatus::Failed);
        assert!(ack.detail.starts_with("cannot start the reboot command: "));
    }
}
