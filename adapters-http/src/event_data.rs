//! The JSON events carry (`docs/webhooks.md`): the alert, the job or the
//! webhook exactly as its GET shows it, its `url` under the server's public
//! base.

use crate::resources::alerts::AlertJson;
use crate::resources::jobs::JobJson;
use crate::resources::webhooks::WebhookJson;
use application::ports::{AlertRecord, EventData, JobRecord, WebhookRecord};
use serde::Serialize;

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

/// `value` as JSON text (the answer types always serialize).
fn text(value: &impl Serialize) -> String {
    serde_json::to_string(value).unwrap_or_else(|error| {
        tracing::error!(%error, "an event's data did not serialize");
        "null".to_owned()
    })
}

impl EventData for HttpEventData {
    fn alert(&self, alert: &AlertRecord) -> String {
        text(&AlertJson::new(alert, &self.base))
    }

    fn job(&self, job: &JobRecord) -> String {
        text(&JobJson::new(job, &self.base))
    }

    fn webhook(&self, webhook: &WebhookRecord) -> String {
        text(&WebhookJson::new(webhook, &self.base))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::description::examples as ex;
    use domain::{AlertId, AlertState, EventSet, MonitorId, WebhookEvent, WebhookId};
    use serde_json::{Value, json};

    fn data() -> HttpEventData {
        HttpEventData::new(Some("https://devmgr.example.com/"), "0.0.0.0:8000")
    }

    #[test]
    fn an_alert_is_its_get() {
        let alert = AlertRecord {
            id: AlertId::parse("c4d2e8f1-7a3b-4c5d-8e9f-2a1b3c4d5e6f").unwrap(),
            monitor: MonitorId::parse("5b1e7c3a-2d4f-4a8b-9e6c-1f0a3b5d7e92").unwrap(),
            serial: Some(ex::serial()),
            state: AlertState::Resolved,
            started_time: ex::at(ex::ISSUED),
            resolved_time: Some(ex::at(ex::ACKNOWLEDGED)),
            reason: "No heartbeat.".to_owned(),
        };
        let json: Value = serde_json::from_str(&data().alert(&alert)).unwrap();
        assert_eq!(
            json,
            json!({
                "id": "c4d2e8f1-7a3b-4c5d-8e9f-2a1b3c4d5e6f",
                "url": "https://devmgr.example.com/alerts/c4d2e8f1-7a3b-4c5d-8e9f-2a1b3c4d5e6f/",
                "monitor": "5b1e7c3a-2d4f-4a8b-9e6c-1f0a3b5d7e92",
                "serial": ex::SERIAL,
                "state": "resolved",
                "started_time": "2026-11-24T09:30:00",
                "resolved_time": "2026-11-24T09:30:02",
                "reason": "No heartbeat.",
            })
        );
    }

    #[test]
    fn a_webhook_is_its_get_without_its_secret() {
        let webhook = WebhookRecord {
            id: WebhookId::parse("9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d").unwrap(),
            target_url: "https://203.0.113.10/hook".to_owned(),
            events: EventSet::new([WebhookEvent::JobHalted, WebhookEvent::AlertOpened]).unwrap(),
            created_time: ex::at(ex::ISSUED),
        };
        let listening = HttpEventData::new(None, "127.0.0.1:8000");
        let json: Value = serde_json::from_str(&listening.webhook(&webhook)).unwrap();
        assert_eq!(
            json,
            json!({
                "id": "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d",
                "url": "http://127.0.0.1:8000/webhooks/9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d/",
                "target_url": "https://203.0.113.10/hook",
                "events": ["alert.opened", "job.halted"],
                "created_time": "2026-11-24T09:30:00",
            })
        );
    }

    #[test]
    fn a_job_is_its_get() {
        use domain::{Action, JobId, JobSettings, JobStatus, TargetCounts, TargetStatus};
        let id = "3f6c2a9e-8b1d-4e7a-9c5f-0d2b4a6e8f10";
        let job = JobRecord {
            id: JobId::parse(id).unwrap(),
            action: Action::Reboot,
            selector_json: r#"{"tags":["lab"]}"#.to_owned(),
            settings: JobSettings::default(),
            status: JobStatus::Completed,
            start_time: ex::at(ex::ISSUED),
            created_time: ex::at(ex::ISSUED),
            finished_time: Some(ex::at(ex::ACKNOWLEDGED)),
            counts: TargetCounts::default().with(TargetStatus::Done, 2),
        };
        let json: Value = serde_json::from_str(&data().job(&job)).unwrap();
        assert_eq!(
            json["url"],
            format!("https://devmgr.example.com/jobs/{id}/")
        );
        assert_eq!(json["selector"], json!({"tags": ["lab"]}));
        assert_eq!(json["status"], "completed");
        assert_eq!(json["finished_time"], "2026-11-24T09:30:02");
        assert_eq!(json["counts"]["done"], 2);
        let keys: Vec<&String> = json.as_object().unwrap().keys().collect();
        assert_eq!(keys.len(), 12, "{json}");
    }
}
