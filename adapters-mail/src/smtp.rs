//! Delivery to an SMTP server (a relay or a submission service).

mod endpoint;

use crate::message::build_message;
use application::mail::Email;
use application::ports::{MailError, Mailer};
use async_trait::async_trait;
use endpoint::{Endpoint, Security};
use lettre::message::Mailbox;
use lettre::transport::smtp::authentication::Credentials;
use lettre::transport::smtp::client::{Tls, TlsParameters};
use lettre::{AsyncSmtpTransport, AsyncTransport, Tokio1Executor};
use std::fmt;
use std::time::Duration;

/// How long one SMTP command (connecting included) may take.
const TIMEOUT: Duration = Duration::from_secs(30);

/// How an `smtp://` connection uses STARTTLS (ignored for `smtps://`, which
/// is TLS from the start).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum StartTls {
    /// Never upgrade: everything, credentials included, travels in clear.
    /// Only for a relay on the same host or a trusted network.
    Off,
    /// Upgrade when the server offers STARTTLS, else carry on in clear.
    /// Protects against eavesdroppers, not against an active attacker.
    #[default]
    Opportunistic,
    /// Refuse to send anything, credentials included, unless the
    /// connection is upgraded.
    Required,
}

/// The SMTP settings are unusable. The message never contains the password.
#[derive(Debug, thiserror::Error)]
#[error("SMTP mailer: {0}")]
pub struct SmtpConfigError(String);

/// Delivers each mail to an SMTP server, one connection per mail.
///
/// Certificates are checked against the Mozilla roots built in (webpki-roots).
/// Only a 5xx reply (a refused recipient, rejected credentials) is
/// [`MailError::Permanent`]; everything else is [`MailError::Transient`],
/// including the two setup mistakes lettre reports as client errors:
/// [`StartTls::Required`] against a server without STARTTLS, and credentials
/// for a server that offers no AUTH.
pub struct SmtpMailer {
    transport: AsyncSmtpTransport<Tokio1Executor>,
    from: Mailbox,
    /// The URL without the password.
    endpoint: String,
    security: Security,
    /// Kept to scrub it from error messages, should a server echo it.
    password: Option<String>,
}

/// Whether an SMTP URL carries a user (and so credentials). A URL that does
/// not parse has none; [`SmtpMailer::new`] reports what is wrong with it.
pub fn smtp_url_has_user(url: &str) -> bool {
    url::Url::parse(url).is_ok_and(|url| !url.username().is_empty())
}

impl SmtpMailer {
    /// `url`: `smtp://[user[:pass]@]host[:port]` (default port 25) or
    /// `smtps://[user[:pass]@]host[:port]` (default 465); user and password
    /// are percent-decoded. `from` is the sender of every mail.
    pub fn new(url: &str, starttls: StartTls, from: Mailbox) -> Result<Self, SmtpConfigError> {
        let endpoint = Endpoint::parse(url, starttls)?;
        let tls_parameters = || {
            TlsParameters::new(endpoint.host.clone())
                .map_err(|e| SmtpConfigError(format!("cannot set up TLS: {e}")))
        };
        let tls = match endpoint.security {
            Security::Wrapper => Tls::Wrapper(tls_parameters()?),
            Security::StartTls(StartTls::Off) => Tls::None,
            Security::StartTls(StartTls::Opportunistic) => Tls::Opportunistic(tls_parameters()?),
            Security::StartTls(StartTls::Required) => Tls::Required(tls_parameters()?),
        };
        let mut builder =
            AsyncSmtpTransport::<Tokio1Executor>::builder_dangerous(endpoint.host.clone())
                .port(endpoint.port)
                .tls(tls)
                .timeout(Some(TIMEOUT));
        if let Some((user, password)) = &endpoint.credentials {
            builder = builder.credentials(Credentials::new(user.clone(), password.clone()));
        }
        Ok(Self {
            transport: builder.build(),
            from,
            endpoint: endpoint.display,
            security: endpoint.security,
            password: endpoint.credentials.map(|(_, password)| password),
        })
    }

    /// Turns lettre's error into the port's: only a 5xx reply is permanent;
    /// refused connections, timeouts, TLS failures and 4xx replies may pass.
    fn classify(&self, error: &lettre::transport::smtp::Error) -> MailError {
        let mut text = format!("delivery to {} failed: {error}", self.endpoint);
        if let Some(password) = self.password.as_deref().filter(|p| !p.is_empty()) {
            text = text.replace(password, "***");
        }
        if error.is_permanent() {
            MailError::Permanent(text)
        } else {
            MailError::Transient(text)
        }
    }
}

impl fmt::Debug for SmtpMailer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SmtpMailer")
            .field("endpoint", &self.endpoint)
            .field("security", &self.security)
            .field("from", &self.from.to_string())
            .finish_non_exhaustive()
    }
}

#[async_trait]
impl Mailer for SmtpMailer {
    async fn send(&self, email: &Email) -> Result<(), MailError> {
        let message =
            build_message(&self.from, email).map_err(|e| MailError::Permanent(e.to_string()))?;
        self.transport
            .send(message)
            .await
            .map_err(|e| self.classify(&e))?;
        tracing::debug!(id = %email.id, to = %email.to, endpoint = %self.endpoint, "e-mail delivered");
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn from() -> Mailbox {
        "devmgr <noreply@devmgr.test>".parse().unwrap()
    }

    fn error(url: &str) -> String {
        SmtpMailer::new(url, StartTls::default(), from())
            .unwrap_err()
            .to_string()
    }

    #[test]
    fn debug_shows_where_mail_goes_but_not_the_password() {
        let mailer = SmtpMailer::new(
            "smtps://mailer:s3cr%40t-pw@smtp.example.com",
            StartTls::Required,
            from(),
        )
        .unwrap();
        let debug = format!("{mailer:?}");
        assert!(
            debug.contains("smtps://mailer@smtp.example.com:465"),
            "{debug}"
        );
        assert!(debug.contains("Wrapper"), "{debug}");
        assert!(!debug.contains("s3cr"), "{debug}");
    }

    #[test]
    fn every_starttls_mode_builds_a_mailer() {
        for mode in [StartTls::Off, StartTls::Opportunistic, StartTls::Required] {
            let mailer = SmtpMailer::new("smtp://relay.example.com", mode, from()).unwrap();
            assert!(format!("{mailer:?}").contains(&format!("StartTls({mode:?})")));
        }
    }

    #[test]
    fn the_default_is_opportunistic_starttls() {
        assert_eq!(StartTls::default(), StartTls::Opportunistic);
    }

    #[test]
    fn other_schemes_are_refused() {
        for url in [
            "http://smtp.example.com",
            "smtp+tls://x",
            "mailto:me@example.com",
        ] {
            assert!(error(url).contains("smtp:// or smtps://"), "{url}");
        }
    }

    #[test]
    fn malformed_urls_are_refused_without_repeating_the_password() {
        for url in [
            "smtp://mailer:hunter2pw@",
            "smtp://mailer:hunter2pw@smtp.example.com/path",
            "smtp://mailer:hunter2pw@smtp.example.com?tls=required",
            "smtp://mailer:hunter2pw@smtp.example.com#x",
            // An unencoded '/' or '?' cuts the URL in the middle of the password.
            "smtp://mailer:hunter2pw/x@smtp.example.com",
            "smtp://mailer:1234?hunter2pw@smtp.example.com",
            "smtp://mailer:hunter2pw@smtp.example.com:99999",
            "smtp://:hunter2pw@smtp.example.com",
            "not a url hunter2pw",
        ] {
            let message = error(url);
            assert!(message.starts_with("SMTP mailer: "), "{url}: {message}");
            assert!(!message.contains("hunter2pw"), "{url}: {message}");
        }
    }

    #[test]
    fn a_user_without_a_password_is_refused() {
        assert!(error("smtp://mailer@smtp.example.com").contains("no password"));
    }
}
