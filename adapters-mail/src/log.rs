use application::StoreError;
use application::mail::Email;
use application::ports::Mailer;
use async_trait::async_trait;

/// Logs each mail's recipient and subject; delivers nothing.
#[derive(Debug, Clone, Copy, Default)]
pub struct LogMailer;

#[async_trait]
impl Mailer for LogMailer {
    async fn send(&self, email: &Email) -> Result<(), StoreError> {
        tracing::info!(
            to = %email.to,
            subject = %email.subject,
            "e-mail not delivered (log-only mailer; use --mail-dir to keep messages)"
        );
        Ok(())
    }
}
