//! A mail as the mailers write it (7-bit parts), read back as its
//! recipient, subject and text part.

/// A mail's recipient, subject and text part.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MailParts {
    /// `To`.
    pub to: String,
    /// `Subject`, unfolded.
    pub subject: String,
    /// The text/plain part, with `\n` line ends.
    pub text: String,
}

/// Reads the headers and text part of a 7-bit message as the mailers write it.
#[track_caller]
pub fn read_mail(message: &str) -> MailParts {
    let (head, _) = message.split_once("\r\n\r\n").expect("headers and a body");
    let unfolded = head.replace("\r\n ", " ").replace("\r\n\t", " ");
    let header = |name: &str| {
        unfolded
            .lines()
            .find_map(|line| line.strip_prefix(&format!("{name}: ")))
            .unwrap_or_else(|| panic!("no {name} in:\n{message}"))
            .to_owned()
    };
    let part = message
        .find("Content-Type: text/plain")
        .unwrap_or_else(|| panic!("no text part in:\n{message}"));
    let start = part + message[part..].find("\r\n\r\n").expect("the part's body") + 4;
    let end = start + message[start..].find("\r\n--").expect("the part's end");
    MailParts {
        to: header("To"),
        subject: header("Subject"),
        text: message[start..end].replace("\r\n", "\n"),
    }
}
