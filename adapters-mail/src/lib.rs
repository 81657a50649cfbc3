//! Mailers: implementations of the [`Mailer`](application::ports::Mailer) port.
//!
//! - [`LogMailer`] (the default) logs that a mail was sent: recipient and
//!   subject, never the body, which holds secret links.
//! - [`DirMailer`] writes each mail as an RFC 5322 `.eml` file into a folder.
//! - [`MemoryMailer`] keeps each mail in memory, for tests that run the
//!   application in their own process and read its mail back.
//! - [`SmtpMailer`] delivers each mail to an SMTP server (`smtp://` with
//!   [`StartTls`] as configured, or `smtps://`), reporting refusals that are
//!   worth retrying as [`MailError::Transient`](application::ports::MailError).
//!
//! Every mailer builds the same message ([`build_message`]), whose
//! `Message-ID` comes from the mail's id and so survives retries.

mod dir;
mod log;
mod memory;
mod message;
mod smtp;

pub use dir::DirMailer;
pub use log::LogMailer;
pub use memory::{MemoryMailer, SentMail};
pub use message::{MessageError, build_message};
pub use smtp::{SmtpConfigError, SmtpMailer, StartTls, smtp_url_has_user};
