use application::mail::Email;
use application::ports::{MailError, Mailer};
use async_trait::async_trait;

/// Logs each mail's recipient and subject; delivers nothing.
#[derive(Debug, Clone, Copy, Default)]
pub struct LogMailer;

#[async_trait]
impl Mailer for LogMailer {
    async fn send(&self, email: &Email) -> Result<(), MailError> {
        tracing::info!(
            to = %email.to,
            subject = %email.subject,
            "e-mail not delivered (log-only mailer; use --mail-dir or --smtp-url to deliver)"
        );
        Ok(())
    }
}
