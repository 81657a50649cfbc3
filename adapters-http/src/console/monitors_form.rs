//! The "New monitor" form read into a monitor request: the fleet view's
//! filters are the selector, the fields are `POST /monitors/`'s, and the
//! whole is read by the API's own body type ([`MonitorBody`]), with the
//! server's online window as the least wait, so the console refuses what
//! the API refuses, with the same words beside the same fields. The fleet
//! ratio is typed as a percentage (20 for 0.2).

use super::fleet_filters::FleetFilters;
use super::posted::Posted;
use super::shown::Shown;
use crate::body::{FormValue, typed_values};
use crate::error::ApiError;
use crate::fields::selector::selector_json;
use crate::fields::{Form, FromForm};
use crate::resources::monitors::MonitorBody;
use application::use_cases::MonitorRequest;
use domain::MonitorKindCode;
use serde_json::Value;

/// The waits the form offers, in seconds: 2, 5, 10, 30 and 60 minutes.
pub(crate) const WAITS: [u32; 5] = [120, 300, 600, 1800, 3600];
/// The longest name a monitor takes.
const NAME_CHARS: usize = 100;

/// The form's fields as typed (the defaults on a new page).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct MonitorForm {
    pub(crate) name: String,
    /// `device_offline` or `fleet_offline_ratio`.
    pub(crate) kind: String,
    /// Seconds, as the select sends them.
    pub(crate) after_seconds: String,
    /// The fleet ratio as a percentage.
    pub(crate) percent: String,
}

impl MonitorForm {
    /// The defaults for the devices `filters` select: a name from the
    /// filters, any device offline for 10 minutes (20 % for a fleet ratio).
    pub(crate) fn for_filters(filters: &FleetFilters) -> Self {
        let words = filters.in_words();
        let name = if words.is_empty() {
            "Any device offline".to_owned()
        } else {
            format!("Offline: {}", words.join(", "))
        };
        Self {
            name: name.chars().take(NAME_CHARS).collect(),
            kind: MonitorKindCode::DeviceOffline.code().to_owned(),
            after_seconds: "600".to_owned(),
            percent: "20".to_owned(),
        }
    }

    /// The fields of a sent form.
    pub(crate) fn typed(posted: &Posted) -> Self {
        Self {
            name: posted.text("name"),
            kind: posted.text("kind"),
            after_seconds: posted.text("after_seconds"),
            percent: posted.text("percent"),
        }
    }

    /// Whether the fleet ratio kind is chosen.
    pub(crate) fn is_fleet(&self) -> bool {
        self.kind == MonitorKindCode::FleetOfflineRatio.code()
    }

    /// The ratio as `POST /monitors/` takes it: the percentage over 100
    /// when it is a number, the text as typed otherwise (the API names it).
    fn ratio(&self) -> String {
        let typed = self.percent.trim();
        match typed.parse::<f64>() {
            Ok(percent) if percent.is_finite() => format!("{}", percent / 100.0),
            _ => typed.to_owned(),
        }
    }
}

/// The API's messages about the ratio, in the percentage's terms.
fn in_percent(message: &str) -> String {
    match message {
        "Ensure this value is less than or equal to 1." => {
            "Ensure this value is less than or equal to 100.".to_owned()
        }
        other => other.to_owned(),
    }
}

/// The monitor the form asks for over the selection of `filters`, with
/// `least_after` the server's online window; or every error at once,
/// beside its field (the ratio's beside `percent`).
pub(crate) fn request_of(
    form: &MonitorForm,
    filters: &FleetFilters,
    least_after: u32,
) -> Result<MonitorRequest, Shown> {
    let mut pairs = vec![
        ("name", form.name.clone()),
        ("kind", form.kind.trim().to_owned()),
        ("after_seconds", form.after_seconds.trim().to_owned()),
    ];
    if form.is_fleet() && !form.percent.trim().is_empty() {
        pairs.push(("ratio", form.ratio()));
    }
    let pairs = pairs
        .into_iter()
        .map(|(name, text)| (name.to_owned(), FormValue::Text(text)));
    let mut values = typed_values(pairs, MonitorBody::FIELDS);
    values.insert("selector".to_owned(), selector_json(&filters.selector()));
    let mut read = Form::new(values);
    match (MonitorBody::read(&mut read, least_after), read.has_errors()) {
        (Ok(MonitorBody(request)), false) => Ok(request),
        _ => Err(Shown::of(ratio_as_percent(ApiError::from(read))).unwrap_or_default()),
    }
}

/// The errors with the ratio's moved beside the percentage.
fn ratio_as_percent(error: ApiError) -> ApiError {
    let ApiError::Validation(mut errors) = error else {
        return error;
    };
    if let Some(Value::Array(messages)) = errors.remove("ratio") {
        let messages = messages
            .iter()
            .map(|message| Value::String(in_percent(message.as_str().unwrap_or_default())))
            .collect();
        errors.insert("percent".to_owned(), Value::Array(messages));
    }
    ApiError::Validation(errors)
}

/// The selector a monitor of `filters` keeps, as JSON text.
#[cfg(test)]
fn shown_selector(filters: &FleetFilters) -> Value {
    selector_json(&filters.selector())
}

#[cfg(test)]
mod tests {
    use super::*;
    use domain::MonitorKind;

    fn form(kind: &str, after: &str, percent: &str) -> MonitorForm {
        MonitorForm {
            name: "Lab down".to_owned(),
            kind: kind.to_owned(),
            after_seconds: after.to_owned(),
            percent: percent.to_owned(),
        }
    }

    #[test]
    fn the_defaults_watch_the_views_devices_for_ten_minutes() {
        let filters = FleetFilters::from_query("tag=lab&status=online");
        let defaults = MonitorForm::for_filters(&filters);
        assert_eq!(defaults.name, "Offline: online, tagged lab");
        let request = request_of(&defaults, &filters, 60).expect("valid");
        assert_eq!(request.kind, MonitorKind::DeviceOffline);
        assert_eq!(request.after.seconds(), 600);
        assert_eq!(request.selector, filters.selector());
        assert_eq!(
            serde_json::from_str::<Value>(&request.selector_json).unwrap(),
            shown_selector(&filters)
        );
        let every = FleetFilters::from_query("");
        assert_eq!(MonitorForm::for_filters(&every).name, "Any device offline");
    }

    #[test]
    fn a_fleet_ratio_is_typed_as_a_percentage() {
        let filters = FleetFilters::from_query("");
        let request = request_of(&form("fleet_offline_ratio", "300", "20"), &filters, 60).unwrap();
        assert_eq!(request.kind.ratio().map(|r| r.get()), Some(0.2));
        let errors =
            request_of(&form("fleet_offline_ratio", "30", "120"), &filters, 60).unwrap_err();
        assert_eq!(
            errors.field("percent"),
            ["Ensure this value is less than or equal to 100."]
        );
        assert_eq!(
            errors.field("after_seconds"),
            ["Ensure this value is greater than or equal to 60."]
        );
        let missing = request_of(&form("fleet_offline_ratio", "300", ""), &filters, 60);
        assert_eq!(
            missing.unwrap_err().field("percent"),
            ["This field is required."]
        );
        let words = request_of(&form("fleet_offline_ratio", "300", "half"), &filters, 60);
        assert_eq!(
            words.unwrap_err().field("percent"),
            ["A valid number is required."]
        );
    }

    #[test]
    fn other_refusals_are_the_apis() {
        let filters = FleetFilters::from_query("");
        let mut blank = form("toaster", "x", "");
        blank.name = "  ".to_owned();
        let errors = request_of(&blank, &filters, 60).unwrap_err();
        assert_eq!(errors.field("name"), ["This field may not be blank."]);
        assert_eq!(errors.field("kind"), ["\"toaster\" is not a valid choice."]);
        assert_eq!(
            errors.field("after_seconds"),
            ["A valid integer is required."]
        );
    }
}
