//! The messages the sink received, read back from its output folder.

use serde::Deserialize;
use std::path::Path;

/// One message as the SMTP server received it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReceivedMessage {
    /// The envelope sender (`MAIL FROM`).
    pub mail_from: String,
    /// The envelope recipients the server accepted (`RCPT TO`).
    pub rcpt_to: Vec<String>,
    /// The message exactly as sent after `DATA` (CRLF line ends, dot-unstuffed).
    pub raw: String,
    headers: Vec<(String, String)>,
    text: Option<String>,
    html: Option<String>,
}

impl ReceivedMessage {
    /// The first top-level header called `name` (any case), unfolded and
    /// decoded (`=?utf-8?…?=` words become text).
    pub fn header(&self, name: &str) -> Option<String> {
        self.headers
            .iter()
            .find(|(key, _)| key.eq_ignore_ascii_case(name))
            .map(|(_, value)| value.clone())
    }

    /// Every top-level header as (name, decoded value), in message order.
    pub fn headers(&self) -> &[(String, String)] {
        &self.headers
    }

    /// The decoded `text/plain` body (of the message or of its
    /// multipart/alternative part), with `\n` line ends.
    pub fn text(&self) -> Option<&str> {
        self.text.as_deref()
    }

    /// The decoded `text/html` body, with `\n` line ends.
    pub fn html(&self) -> Option<&str> {
        self.html.as_deref()
    }
}

/// The `.json` sidecar the script writes next to each `.eml`.
#[derive(Deserialize)]
struct Summary {
    mail_from: String,
    rcpt_to: Vec<String>,
    headers: Vec<(String, String)>,
    text: Option<String>,
    html: Option<String>,
}

/// Every complete message in `dir`, in arrival order (the files are numbered).
pub(crate) fn read_all(dir: &Path) -> Vec<ReceivedMessage> {
    let mut sidecars: Vec<_> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("smtp-sink: cannot list {}: {e}", dir.display()))
        .map(|entry| entry.expect("smtp-sink: a readable folder entry").path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "json"))
        .collect();
    sidecars.sort();
    sidecars.iter().map(|path| read_one(path)).collect()
}

fn read_one(sidecar: &Path) -> ReceivedMessage {
    let read = |path: &Path| {
        std::fs::read(path)
            .unwrap_or_else(|e| panic!("smtp-sink: cannot read {}: {e}", path.display()))
    };
    let summary: Summary = serde_json::from_slice(&read(sidecar))
        .unwrap_or_else(|e| panic!("smtp-sink: {} is malformed: {e}", sidecar.display()));
    ReceivedMessage {
        mail_from: summary.mail_from,
        rcpt_to: summary.rcpt_to,
        raw: String::from_utf8_lossy(&read(&sidecar.with_extension("eml"))).into_owned(),
        headers: summary.headers,
        text: summary.text,
        html: summary.html,
    }
}
