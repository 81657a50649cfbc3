//! The "Reboot devices" form read into a job request: the fleet view's
//! filters are the selector, the fields are `POST /jobs/`'s, read with the
//! API's field engine and messages, so the console refuses what the API
//! refuses, with the same words beside the same fields.

use super::fleet_filters::FleetFilters;
use super::posted::Posted;
use super::shown::Shown;
use crate::body::{FormValue, typed_values};
use crate::error::{ApiError, NON_FIELD_ERRORS};
use crate::fields::{Field, Form};
use application::use_cases::JobRequest;
use domain::job::{MAX_WAVE_INTERVAL_SECONDS, MAX_WAVE_SIZE};
use domain::{Action, HaltFailureRatio, JobSettings, WaveInterval, WaveSize};
use serde_json::{Map, Value, json};

/// `wave_size`: 1 to 100000, empty for one wave.
const WAVE_SIZE: Field = Field::integer("wave_size", "Wave size")
    .optional()
    .nullable()
    .range(1, MAX_WAVE_SIZE as i64);

/// `wave_interval_seconds`: 0 to 86400.
const WAVE_INTERVAL: Field = Field::integer("wave_interval_seconds", "Wave interval seconds")
    .optional()
    .range(0, MAX_WAVE_INTERVAL_SECONDS as i64);

/// `halt_failure_ratio`: a number from 0 to 1.
const HALT_FAILURE_RATIO: Field = Field::float("halt_failure_ratio", "Halt failure ratio")
    .optional()
    .range(0, 1);

/// `start_time`: a time in the API's form, UTC.
const START_TIME: Field = Field::datetime("start_time", "Start time")
    .optional()
    .nullable();

/// The message of a time in another form (DRF's), as the API says it.
#[cfg(test)]
const WRONG_TIME: &str =
    "Datetime has wrong format. Use one of these formats instead: YYYY-MM-DDThh:mm:ss.";

/// The form's fields, as `POST /jobs/` declares them.
const FIELDS: [Field; 4] = [WAVE_SIZE, WAVE_INTERVAL, HALT_FAILURE_RATIO, START_TIME];

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
        typed_values(pairs, &FIELDS)
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

/// The selector of the view's filters as `POST /jobs/` would take it (its
/// known keys, as the job keeps and shows them): `{"all": true}` without
/// any filter.
pub(crate) fn selector_json(filters: &FleetFilters) -> String {
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
    Value::Object(keys).to_string()
}

/// The job the form asks for, on the selection of `filters`; or every
/// error at once, beside its field.
pub(crate) fn request_of(form: &JobForm, filters: &FleetFilters) -> Result<JobRequest, Shown> {
    let mut read = Form::new(form.values());
    let wave_size = read.optional_nullable_integer::<u64>(&WAVE_SIZE);
    let interval = read.optional_integer::<u64>(&WAVE_INTERVAL);
    let ratio = read.optional_float(&HALT_FAILURE_RATIO);
    let start_time = read.optional_nullable_datetime(&START_TIME);
    let refused = |read: Form| Err(Shown::of(ApiError::from(read)).unwrap_or_default());
    let (Ok(wave_size), Ok(interval), Ok(ratio), Ok(start_time)) =
        (wave_size, interval, ratio, start_time)
    else {
        return refused(read);
    };
    // The fields' bounds are the domain's: within them, each value is one.
    let (Ok(wave_size), Ok(wave_interval), Ok(halt_failure_ratio)) = (
        wave_size.flatten().map(WaveSize::new).transpose(),
        WaveInterval::new(interval.unwrap_or(0)),
        ratio.map_or(Ok(HaltFailureRatio::DEFAULT), HaltFailureRatio::new),
    ) else {
        read.error(NON_FIELD_ERRORS, "The job's settings are out of bounds.");
        return refused(read);
    };
    Ok(JobRequest {
        action: Action::Reboot,
        selector: filters.selector(),
        selector_json: selector_json(filters),
        start_time,
        settings: JobSettings {
            wave_size,
            wave_interval,
            halt_failure_ratio,
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use domain::Selector;

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
