//! Who made an audited change.

use crate::{EmailAddress, Serial};

/// The kind of author an entry names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ActorKind {
    /// A signed-in user, through the API or the console.
    User,
    /// A device, with its own token.
    Device,
    /// An operator at the server's command line.
    Cli,
    /// The server itself (a job halting or completing).
    System,
    /// Someone not signed in (a refused login, a password reset).
    Anonymous,
}

impl ActorKind {
    /// The kind's name in entries.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::User => "user",
            Self::Device => "device",
            Self::Cli => "cli",
            Self::System => "system",
            Self::Anonymous => "anonymous",
        }
    }
}

/// An entry's author: a kind and a label (the user's e-mail address, the
/// device's serial, or the kind's own name).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Actor {
    kind: ActorKind,
    label: String,
}

impl Actor {
    /// A user, labelled with their e-mail address.
    pub fn user(email: &EmailAddress) -> Self {
        Self {
            kind: ActorKind::User,
            label: email.as_str().to_owned(),
        }
    }

    /// A device, labelled with its serial.
    pub fn device(serial: &Serial) -> Self {
        Self {
            kind: ActorKind::Device,
            label: serial.as_str().to_owned(),
        }
    }

    /// An operator at the command line.
    pub fn cli() -> Self {
        Self::named(ActorKind::Cli)
    }

    /// The server itself.
    pub fn system() -> Self {
        Self::named(ActorKind::System)
    }

    /// Someone not signed in.
    pub fn anonymous() -> Self {
        Self::named(ActorKind::Anonymous)
    }

    fn named(kind: ActorKind) -> Self {
        Self {
            kind,
            label: kind.as_str().to_owned(),
        }
    }

    /// The kind.
    pub fn kind(&self) -> ActorKind {
        self.kind
    }

    /// The label.
    pub fn label(&self) -> &str {
        &self.label
    }
}
