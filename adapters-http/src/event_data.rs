//! The JSON events carry (being written).

use application::ports::{AlertRecord, EventData, JobRecord, WebhookRecord};

/// Resources as their GETs show them, their `url`s under one base.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpEventData {
    base: String,
}

impl HttpEventData {
    /// URLs under `public_url` when configured (a trailing slash dropped),
    /// else under `http://<listening>`.
    pub fn new(public_url: Option<&str>, listening: &str) -> Self {
        let base = match public_url {
            Some(url) => url.trim_end_matches('/').to_owned(),
            None => format!("http://{listening}"),
        };
        Self { base }
    }
}

impl EventData for HttpEventData {
    fn alert(&self, _alert: &AlertRecord) -> String {
        "null".into()
    }

    fn job(&self, _job: &JobRecord) -> String {
        "null".into()
    }

    fn webhook(&self, _webhook: &WebhookRecord) -> String {
        "null".into()
    }
}
