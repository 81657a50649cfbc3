//! A monitor as the API shows it (`docs/api.md`, "Monitors and alerts"),
//! with its description and example.

use super::body::{AFTER_SECONDS, KIND, NAME, RATIO, SELECTOR};
use crate::answer::Locates;
use crate::description::examples::{self as ex, BASE_URL};
use crate::description::{Described, Location, ObjectSchema};
use crate::fields::{Field, FieldType};
use crate::resources::lists::{Page, page_fields};
use application::ports::MonitorRecord;
use domain::MonitorKindCode;
use domain::time::format_api;
use serde::Serialize;
use serde_json::{Value, json};

/// A body field as an answer shows it: the same type and bounds, read-only.
pub(crate) const fn echoed(field: Field) -> Field {
    Field {
        required: false,
        read_only: true,
        ..field
    }
}

/// The example monitor's id.
pub(crate) const EXAMPLE_MONITOR_ID: &str = "5b1e7c3a-2d4f-4a8b-9e6c-1f0a3b5d7e92";

/// A monitor's fields as answers show them.
pub const MONITOR_FIELDS: &[Field] = &[
    Field::read_only("id", "Id", FieldType::String).format("uuid"),
    Field::read_only("url", "Url", FieldType::Url),
    echoed(NAME),
    echoed(KIND),
    echoed(SELECTOR),
    echoed(AFTER_SECONDS),
    echoed(RATIO).nullable(),
    Field::read_only("snoozed_until", "Snoozed until", FieldType::Datetime).nullable(),
    Field::read_only("created_time", "Created time", FieldType::Datetime),
];

/// A monitor.
pub const MONITOR_SCHEMA: ObjectSchema = ObjectSchema {
    name: "Monitor",
    description: "A monitor: what it watches for (`device_offline`: each selected device silent for more than `after_seconds`; `fleet_offline_ratio`: the share of selected devices offline above `ratio` for `after_seconds`), over the devices its selector matches at each evaluation. `selector` is the selector as sent (its known keys); `ratio` is null for `device_offline`; `snoozed_until` the end of its snooze (null: not snoozed), while which its alerts are not notified.",
    fields: MONITOR_FIELDS,
};

/// A page of monitors.
pub const MONITOR_PAGE_SCHEMA: ObjectSchema = ObjectSchema {
    name: "MonitorPage",
    description: "A page of the account's monitors, newest first: how many monitors there are in all, the URLs of the next and the previous page (null at either end), and the page's monitors.",
    fields: page_fields!(MONITOR_FIELDS),
};

/// A monitor as the API shows it.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct MonitorJson {
    id: String,
    url: String,
    name: String,
    kind: &'static str,
    selector: Value,
    after_seconds: u32,
    ratio: Option<f64>,
    snoozed_until: Option<String>,
    created_time: String,
}

impl MonitorJson {
    /// Renders a monitor with its absolute URL under `base_url`.
    pub fn new(monitor: &MonitorRecord, base_url: &str) -> Self {
        let selector = serde_json::from_str(&monitor.selector_json).unwrap_or_else(|error| {
            tracing::error!(monitor = %monitor.id, %error, "a monitor's selector is no JSON");
            Value::Object(serde_json::Map::new())
        });
        Self {
            id: monitor.id.to_string(),
            url: monitor_url(base_url, monitor.id.as_str()),
            name: monitor.name.as_str().to_owned(),
            kind: monitor.kind.code().code(),
            selector,
            after_seconds: monitor.after.seconds(),
            ratio: monitor.kind.ratio().map(|ratio| ratio.get()),
            snoozed_until: monitor.snoozed_until.map(format_api),
            created_time: format_api(monitor.created_time),
        }
    }

    /// Its absolute URL.
    pub fn url(&self) -> &str {
        &self.url
    }
}

/// `<base>/monitors/<id>/`.
pub fn monitor_url(base_url: &str, id: &str) -> String {
    format!("{base_url}/monitors/{id}/")
}

impl Described for MonitorJson {
    const SCHEMA: &'static ObjectSchema = &MONITOR_SCHEMA;

    fn example() -> Self {
        Self {
            id: EXAMPLE_MONITOR_ID.to_owned(),
            url: monitor_url(BASE_URL, EXAMPLE_MONITOR_ID),
            name: "Berlin mostly offline".to_owned(),
            kind: MonitorKindCode::FleetOfflineRatio.code(),
            selector: json!({"tags": [ex::TAGS[1]]}),
            after_seconds: 300,
            ratio: Some(0.25),
            snoozed_until: None,
            created_time: format_api(ex::at(ex::ISSUED)),
        }
    }
}

impl Locates for MonitorJson {
    const LOCATION: Location = Location {
        description: "The new monitor's URL (its `url`).",
        example: || monitor_url(BASE_URL, EXAMPLE_MONITOR_ID),
    };
}

impl Described for Page<MonitorJson> {
    const SCHEMA: &'static ObjectSchema = &MONITOR_PAGE_SCHEMA;

    fn example() -> Self {
        Page::sample("/monitors/", MonitorJson::example())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::description::assert_described;

    #[test]
    fn the_answers_write_their_described_fields() {
        assert_described(&MonitorJson::example());
        assert_described(&Page::<MonitorJson>::example());
    }
}
