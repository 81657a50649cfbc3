//! The "New webhook" form read into a webhook request by the API's own
//! body type ([`WebhookBody`]): the target URL, the events (a checkbox
//! each, `event_<code>`, every one checked on a new form) and the optional
//! secret, so the console refuses what `POST /webhooks/` refuses, with the
//! same words beside the same fields.

use super::posted::Posted;
use super::shown::Shown;
use crate::error::ApiError;
use crate::fields::{Form, FromForm};
use crate::resources::webhooks::WebhookBody;
use application::use_cases::WebhookRequest;
use domain::WebhookEvent;
use serde_json::{Map, Value};

/// The form's fields as typed (the defaults on a new page).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct WebhookForm {
    pub(crate) target_url: String,
    /// The events checked.
    pub(crate) events: Vec<WebhookEvent>,
    pub(crate) secret: String,
}

impl Default for WebhookForm {
    fn default() -> Self {
        Self {
            target_url: String::new(),
            events: WebhookEvent::SUBSCRIBABLE.to_vec(),
            secret: String::new(),
        }
    }
}

/// One event's checkbox.
pub(crate) struct EventChoice {
    /// `alert.opened`.
    pub(crate) code: &'static str,
    /// The checkbox's name and id: `event_alert_opened`.
    pub(crate) field: String,
    /// "An alert opens".
    pub(crate) label: &'static str,
    pub(crate) checked: bool,
}

/// The words of an event.
pub(crate) fn event_in_words(event: WebhookEvent) -> &'static str {
    match event {
        WebhookEvent::AlertOpened => "An alert opens",
        WebhookEvent::AlertResolved => "An alert resolves",
        WebhookEvent::JobCompleted => "A job completes",
        WebhookEvent::JobHalted => "A job halts",
        WebhookEvent::Ping => "Ping",
    }
}

/// The checkbox name of an event.
fn field_of(event: WebhookEvent) -> String {
    format!("event_{}", event.code().replace('.', "_"))
}

impl WebhookForm {
    /// The fields of a sent form (an unchecked box is not sent).
    pub(crate) fn typed(posted: &Posted) -> Self {
        Self {
            target_url: posted.text("target_url"),
            events: WebhookEvent::SUBSCRIBABLE
                .into_iter()
                .filter(|event| !posted.text(&field_of(*event)).is_empty())
                .collect(),
            secret: posted.text("secret"),
        }
    }

    /// The checkboxes, in the API's order.
    pub(crate) fn choices(&self) -> Vec<EventChoice> {
        WebhookEvent::SUBSCRIBABLE
            .into_iter()
            .map(|event| EventChoice {
                code: event.code(),
                field: field_of(event),
                label: event_in_words(event),
                checked: self.events.contains(&event),
            })
            .collect()
    }
}

/// The webhook the form asks for; or every error at once, beside its field.
pub(crate) fn request_of(form: &WebhookForm) -> Result<WebhookRequest, Shown> {
    let mut values = Map::new();
    values.insert("target_url".to_owned(), form.target_url.trim().into());
    let events: Vec<Value> = form.events.iter().map(|e| e.code().into()).collect();
    values.insert("events".to_owned(), Value::Array(events));
    if !form.secret.is_empty() {
        values.insert("secret".to_owned(), form.secret.as_str().into());
    }
    let mut read = Form::new(values);
    match (WebhookBody::from_form(&mut read), read.has_errors()) {
        (Ok(WebhookBody(request)), false) => Ok(request),
        _ => Err(Shown::of(ApiError::from(read)).unwrap_or_default()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use domain::EventSet;

    fn form(target: &str, events: &[WebhookEvent], secret: &str) -> WebhookForm {
        WebhookForm {
            target_url: target.to_owned(),
            events: events.to_vec(),
            secret: secret.to_owned(),
        }
    }

    #[test]
    fn a_new_form_subscribes_to_every_event() {
        let defaults = WebhookForm::default();
        assert!(defaults.choices().iter().all(|choice| choice.checked));
        assert_eq!(defaults.choices()[0].field, "event_alert_opened");
        let request =
            request_of(&form("https://203.0.113.10/hook", &defaults.events, "")).expect("valid");
        assert_eq!(request.events, EventSet::ALL);
        assert_eq!(request.secret, None);
    }

    #[test]
    fn refusals_are_the_apis() {
        let errors = request_of(&form("ftp://x", &[], "short")).unwrap_err();
        assert_eq!(errors.field("target_url"), ["Enter a valid URL."]);
        assert_eq!(errors.field("events"), ["This list may not be empty."]);
        assert_eq!(
            errors.field("secret"),
            ["Ensure this field has at least 16 characters."]
        );
        let some = request_of(&form(
            "http://hooks.example.com/x",
            &[WebhookEvent::JobHalted],
            "sixteen chars!!!",
        ))
        .unwrap();
        assert_eq!(some.events.events(), [WebhookEvent::JobHalted]);
        assert_eq!(some.secret.as_deref(), Some("sixteen chars!!!"));
    }
}
