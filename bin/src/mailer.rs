//! The mailer that `serve`'s options choose, for the server of `devmgr serve`
//! and the one started inside another process.

use crate::CommandError;
use crate::cli::{ServeArgs, SmtpStartTls};
use adapters_mail::{DirMailer, LogMailer, SmtpMailer, StartTls, smtp_url_has_user};
use application::ports::Mailer;
use lettre::message::Mailbox;
use std::sync::Arc;

/// The mailer of `serve`'s options: SMTP, an `.eml` folder, or the log.
pub fn of_options(args: &ServeArgs) -> Result<Arc<dyn Mailer>, CommandError> {
    if args.mail_dir.is_none() && args.smtp_url.is_none() {
        return Ok(Arc::new(LogMailer));
    }
    let from: Mailbox = args
        .mail_from
        .parse()
        .map_err(|e| CommandError(format!("--mail-from is not a valid address: {e}")))?;
    if let Some(url) = &args.smtp_url {
        let starttls = match (args.smtp_starttls, smtp_url_has_user(url)) {
            (Some(SmtpStartTls::Off), true) => {
                return Err(CommandError(
                    "--smtp-starttls off with a user in --smtp-url would send the SMTP password \
                     in clear: use --smtp-starttls required, or smtps://"
                        .into(),
                ));
            }
            (Some(SmtpStartTls::Off), false) => StartTls::Off,
            (Some(SmtpStartTls::Opportunistic), _) | (None, false) => StartTls::Opportunistic,
            (Some(SmtpStartTls::Required), _) | (None, true) => StartTls::Required,
        };
        let mailer = SmtpMailer::new(url, starttls, from)
            .map_err(|e| CommandError(format!("cannot use --smtp-url: {e}")))?;
        return Ok(Arc::new(mailer));
    }
    let dir = args.mail_dir.clone().unwrap_or_default();
    let mailer = DirMailer::new(dir.clone(), from)
        .map_err(|e| CommandError(format!("cannot use --mail-dir {}: {e}", dir.display())))?;
    Ok(Arc::new(mailer))
}
