//! Mailers: implementations of the [`Mailer`](application::ports::Mailer) port.
//!
//! - [`LogMailer`] (the default) logs that a mail was sent: recipient and
//!   subject, never the body, which holds secret links.
//! - [`DirMailer`] writes each mail as an RFC 5322 `.eml` file into a folder.

mod dir;
mod log;
mod message;

pub use dir::DirMailer;
pub use log::LogMailer;
pub use message::{MessageError, build_message};
