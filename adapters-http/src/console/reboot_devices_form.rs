//! The "Reboot devices" form read into a job request: the fleet view's
//! filters are the selector, the fields are `POST /jobs/`'s, and the whole
//! is read by the API's own body type ([`JobBody`]), so the console refuses
//! what the API refuses, with the same words beside the same fields, and
//! keeps the same selector and settings.

use super::fleet_filters::FleetFilters;
use super::posted::Posted;
use super::shown::Shown;
use crate::body::{FormValue, typed_values};
use crate::error::ApiError;
use crate::fields::{Form, FromForm};
use crate::resources::jobs::JobBody;
use application::use_cases::JobRequest;
use domain::Action;
use serde_json::{Map, Value, json};

/// The message of a time in another form (DRF's), as the API says it.
#[cfg(test)]
const WRONG_TIME: &str =
    "Datetime has wrong format. Use one of these formats instead: YYYY-MM-DDThh:mm:ss.";

/// The form's fields as typed (the defaults on a new page).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct JobForm {
    pub(crate) wave_size: String,
    pub(crate) wave_interval_seconds: String,
    pub(crate) halt_failure_ratio: String,
    /// As a `datetime-local` input gives it: `YYYY-MM-DDThh:mm[:ss]`, UTC.
    pub(crate) start_time: String,
}

impl Default for JobForm {
    fn default() -> Self {
        Self {
            wave_size: String::new(),
            wave_interval_seconds: "0".to_owned(),
            halt_failure_ratio: "0.5".to_owned(),
            start_time: String::new(),
        }
    }
}

impl JobForm {
    /// The fields of a sent form.
    pub(crate) fn typed(posted: &Posted) -> Self {
        Self {
            wave_size: posted.text("wave_size"),
            wave_interval_seconds: posted.text("wave_interval_seconds"),
            halt_failure_ratio: posted.text("halt_failure_ratio"),
            start_time: posted.text("start_time"),
        }
    }

    /// The fields as `POST /jobs/` reads a form: an empty field is not sent
    /// (its default applies), a `datetime-local` time gets its seconds, and
    /// text that spells a number becomes one.
    fn values(&self) -> Map<String, Value> {
        let start_time = with_seconds(self.start_time.trim());
        let pairs = [
            ("wave_size", self.wave_size.as_str()),
            ("wave_interval_seconds", &self.wave_interval_seconds),
            ("halt_failure_ratio", &self.halt_failure_ratio),
            ("start_time", &start_time),
        ]
        .into_iter()
        .map(|(name, text)| (name, text.trim()))
        .filter(|(_, text)| !text.is_empty())
        .map(|(name, text)| (name.to_owned(), FormValue::Text(text.to_owned())));
        typed_values(pairs, JobBody::FIELDS)
    }
}

/// A `datetime-local` value without seconds (`2026-11-26T14:30`) with them.
fn with_seconds(time: &str) -> String {
    if time.len() == 16 && time.as_bytes().get(13) == Some(&b':') {
        format!("{time}:00")
    } else {
        time.to_owned()
    }
}

/// The selector of the view's filters as `POST /jobs/` takes it:
/// `{"all": true}` without any filter.
fn selector_of(filters: &FleetFilters) -> Value {
    let mut keys = Map::new();
    if let Some(tag) = &filters.tag {
        keys.insert("tags".to_owned(), json!([tag.as_str()]));
    }
    if let Some(online) = filters.online {
        keys.insert("online".to_owned(), Value::Bool(online));
    }
    if let Some(kind) = filters.machine_type {
        keys.insert("machine_type".to_owned(), json!(kind.code()));
    }
    if !filters.search.is_empty() {
        keys.insert("search".to_owned(), json!(filters.search));
    }
    if keys.is_empty() {
        keys.insert("all".to_owned(), Value::Bool(true));
    }
    Value::Object(keys)
}

/// The job the form asks for, a reboot of the selection of `filters`; or
/// every error at once, beside its field.
pub(crate) fn request_of(form: &JobForm, filters: &FleetFilters) -> Result<JobRequest, Shown> {
    let mut values = form.values();
    values.insert("action".to_owned(), json!(Action::Reboot.code()));
    values.insert("selector".to_owned(), selector_of(filters));
    let mut read = Form::new(values);
    match (JobBody::from_form(&mut read), read.has_errors()) {
        (Ok(JobBody(request)), false) => Ok(request),
        _ => Err(Shown::of(ApiError::from(read)).unwrap_or_default()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use domain::{JobSettings, Selector, WaveSize};

    fn form(wave_size: &str, interval: &str, ratio: &str, start: &str) -> JobForm {
        JobForm {
            wave_size: wave_size.to_owned(),
            wave_interval_seconds: interval.to_owned(),
            halt_failure_ratio: ratio.to_owned(),
            start_time: start.to_owned(),
        }
    }

    #[test]
    fn the_defaults_make_one_wave_now_on_the_views_selection() {
        let filters = FleetFilters::from_query("tag=lab&status=online");
        let request = request_of(&JobForm::default(), &filters).expect("valid");
        assert_eq!(request.action, Action::Reboot);
        assert_eq!(request.selector, filters.selector());
        assert_eq!(request.selector_json, r#"{"online":true,"tags":["lab"]}"#);
        assert_eq!(request.start_time, None);
        assert_eq!(request.settings, JobSettings::default());
        let every = request_of(&JobForm::default(), &FleetFilters::from_query("")).unwrap();
        assert_eq!(every.selector, Selector::All);
        assert_eq!(every.selector_json, r#"{"all":true}"#);
    }

    #[test]
    fn typed_settings_are_read_as_the_api_reads_them() {
        let filters = FleetFilters::from_query("search=kit&machine_type=rpi_4b");
        let request =
            request_of(&form(" 2 ", "30", "0.25", "2030-01-02T03:04"), &filters).expect("valid");
        assert_eq!(request.settings.wave_size.map(WaveSize::get), Some(2));
        assert_eq!(request.settings.wave_interval.seconds(), 30);
        assert_eq!(request.settings.halt_failure_ratio.get(), 0.25);
        let start = request.start_time.expect("a start time");
        assert_eq!(domain::time::format_api(start), "2030-01-02T03:04:00");
        assert_eq!(
            request.selector_json,
            r#"{"machine_type":"rpi_4b","search":"kit"}"#
        );
        let seconds = request_of(&form("", "", "", "2030-01-02T03:04:05"), &filters).unwrap();
        assert_eq!(
            seconds.start_time.map(domain::time::format_api).as_deref(),
            Some("2030-01-02T03:04:05")
        );
    }

    #[test]
    fn every_refusal_is_shown_at_once_with_the_apis_messages() {
        let filters = FleetFilters::from_query("");
        let errors = request_of(&form("0", "86401", "2", "tomorrow"), &filters).unwrap_err();
        assert_eq!(
            errors.field("wave_size"),
            ["Ensure this value is greater than or equal to 1."]
        );
        assert_eq!(
            errors.field("wave_interval_seconds"),
            ["Ensure this value is less than or equal to 86400."]
        );
        assert_eq!(
            errors.field("halt_failure_ratio"),
            ["Ensure this value is less than or equal to 1."]
        );
        assert_eq!(errors.field("start_time"), [WRONG_TIME]);
        let words = request_of(&form("two", "1.5", "half", ""), &filters).unwrap_err();
        assert_eq!(words.field("wave_size"), ["A valid integer is required."]);
        assert_eq!(
            words.field("wave_interval_seconds"),
            ["A valid integer is required."]
        );
        assert_eq!(
            words.field("halt_failure_ratio"),
            ["A valid number is required."]
        );
        assert!(!words.has("start_time"));
    }
}
