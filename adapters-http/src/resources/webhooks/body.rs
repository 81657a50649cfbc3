//! What `POST /webhooks/` reads (`docs/api.md`, "Webhooks"): where to post,
//! which events, the signing secret, every failing field at once. The
//! target's address is judged after, once every field is valid.

use crate::fields::{Field, FieldType, Form, FromForm, Rejected, ToForm};
use application::use_cases::WebhookRequest;
use domain::webhook::{MAX_SECRET_CHARS, MIN_SECRET_CHARS};
use domain::{EventSet, TargetUrl, WebhookEvent};
use serde_json::{Map, Value};

/// The events a webhook may subscribe to, in the order they are shown.
pub(crate) const EVENT_CODES: [&str; 4] = [
    WebhookEvent::SUBSCRIBABLE[0].code(),
    WebhookEvent::SUBSCRIBABLE[1].code(),
    WebhookEvent::SUBSCRIBABLE[2].code(),
    WebhookEvent::SUBSCRIBABLE[3].code(),
];

/// Django's `URLValidator` message, for a target that is no URL it takes.
pub(crate) const INVALID_URL: &str = "Enter a valid URL.";

/// `target_url`: an absolute `http://` or `https://` URL.
pub(crate) const TARGET_URL: Field = Field {
    kind: FieldType::Url,
    ..Field::text("target_url", "Target url")
};
/// One event of `events`.
const EVENT: Field = Field::choice_item("event", &EVENT_CODES);
/// `events`: the events it is sent (default: all).
pub(crate) const EVENTS: Field = Field::choice_list("events", "Events", &EVENT);
/// `secret`: the key of its signatures, kept as sent (default: 40 random
/// lowercase hex digits).
pub(crate) const SECRET: Field = Field {
    trim: false,
    minimum: Some(MIN_SECRET_CHARS as i64),
    max_length: Some(MAX_SECRET_CHARS),
    ..Field::text("secret", "Secret").optional()
};

/// A new webhook's body.
pub struct WebhookBody(pub WebhookRequest);

impl FromForm for WebhookBody {
    const FIELDS: &'static [Field] = &[TARGET_URL, EVENTS, SECRET];

    fn from_form(form: &mut Form) -> Result<Self, Rejected> {
        let target = form.text(&TARGET_URL).and_then(|raw| {
            TargetUrl::parse(&raw).map_err(|_| form.error(TARGET_URL.name, INVALID_URL))
        });
        let events = form
            .optional_choice_list(&EVENTS, |code| {
                WebhookEvent::parse(code).filter(|event| *event != WebhookEvent::Ping)
            })
            .map(|events| events.and_then(EventSet::new).unwrap_or(EventSet::ALL));
        let secret = form.optional_text(&SECRET);
        Ok(Self(WebhookRequest {
            target: target?,
            events: events?,
            secret: secret?,
        }))
    }
}

impl ToForm for WebhookBody {
    fn to_form(&self) -> Map<String, Value> {
        let request = &self.0;
        let events: Vec<Value> = request
            .events
            .events()
            .iter()
            .map(|event| event.code().into())
            .collect();
        let mut form = crate::fields::form_of([
            (&TARGET_URL, request.target.as_str().into()),
            (&EVENTS, events.into()),
        ]);
        if let Some(secret) = &request.secret {
            form.insert(SECRET.name.to_owned(), secret.as_str().into());
        }
        form
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ApiError;
    use serde_json::json;

    fn read(body: Value) -> Result<WebhookRequest, Value> {
        let mut form = Form::new(body.as_object().cloned().unwrap());
        let value = WebhookBody::from_form(&mut form);
        match (value, ApiError::from(form)) {
            (Ok(WebhookBody(request)), ApiError::Validation(e)) if e.is_empty() => Ok(request),
            (_, ApiError::Validation(errors)) => Err(Value::Object(errors)),
            (_, other) => panic!("{other}"),
        }
    }

    #[test]
    fn a_target_alone_takes_every_event_and_no_secret() {
        let request = read(json!({"target_url": "https://203.0.113.10/hook"})).unwrap();
        assert_eq!(request.target.as_str(), "https://203.0.113.10/hook");
        assert_eq!(request.events, EventSet::ALL);
        assert_eq!(request.secret, None);
    }

    #[test]
    fn events_are_a_set_and_the_secret_is_kept_as_sent() {
        let request = read(json!({
            "target_url": "http://hooks.example.com:8080/x",
            "events": ["job.halted", "alert.opened", "job.halted"],
            "secret": " sixteen chars!!",
        }))
        .unwrap();
        let codes: Vec<&str> = request.events.events().iter().map(|e| e.code()).collect();
        assert_eq!(codes, ["alert.opened", "job.halted"]);
        assert_eq!(request.secret.as_deref(), Some(" sixteen chars!!"));
    }

    #[test]
    fn every_failing_field_is_reported_at_once() {
        assert_eq!(
            read(json!({"target_url": "ftp://example.com/", "events": ["ping", "alert.opened", 3], "secret": "short"})).err(),
            Some(json!({
                "target_url": [INVALID_URL],
                "events": {"0": ["\"ping\" is not a valid choice."], "2": ["\"3\" is not a valid choice."]},
                "secret": ["Ensure this field has at least 16 characters."],
            }))
        );
        assert_eq!(
            read(json!({"events": [], "secret": "x".repeat(201)})).err(),
            Some(json!({
                "target_url": ["This field is required."],
                "events": ["This list may not be empty."],
                "secret": ["Ensure this field has no more than 200 characters."],
            }))
        );
        assert_eq!(
            read(json!({"target_url": "", "events": "alert.opened", "secret": ""})).err(),
            Some(json!({
                "target_url": ["This field may not be blank."],
                "events": ["Expected a list of items but got type \"str\"."],
                "secret": ["This field may not be blank."],
            }))
        );
    }

    #[test]
    fn options_show_the_secrets_bounds() {
        let meta = SECRET.metadata();
        assert_eq!(meta["min_length"], 16);
        assert_eq!(meta["max_length"], 200);
        assert_eq!(TARGET_URL.metadata()["type"], "url");
        assert_eq!(
            EVENTS.metadata()["child"]["choices"][3]["value"],
            "job.halted"
        );
    }
}
