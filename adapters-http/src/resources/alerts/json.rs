//! An alert as the API shows it (`docs/api.md`, "Monitors and alerts"),
//! with its description and example.

use super::query::STATES;
use crate::description::examples::{self as ex, BASE_URL};
use crate::description::{Described, ObjectSchema};
use crate::fields::{Field, FieldType};
use crate::resources::lists::{Page, page_fields};
use crate::resources::monitors::EXAMPLE_MONITOR_ID;
use application::ports::AlertRecord;
use domain::AlertState;
use domain::time::format_api;
use serde::Serialize;

/// The example alert's id.
pub(crate) const EXAMPLE_ALERT_ID: &str = "c4d2e8f1-7a3b-4c5d-8e9f-2a1b3c4d5e6f";

/// An alert's fields as answers show them.
pub const ALERT_FIELDS: &[Field] = &[
    Field::read_only("id", "Id", FieldType::String).format("uuid"),
    Field::read_only("url", "Url", FieldType::Url),
    Field::read_only("monitor", "Monitor", FieldType::String).format("uuid"),
    Field::read_only("serial", "Serial", FieldType::String)
        .format("uuid")
        .nullable(),
    Field::read_only("state", "State", FieldType::String).choices(&STATES),
    Field::read_only("started_time", "Started time", FieldType::Datetime),
    Field::read_only("resolved_time", "Resolved time", FieldType::Datetime).nullable(),
    Field::read_only("reason", "Reason", FieldType::String),
];

/// An alert.
pub const ALERT_SCHEMA: ObjectSchema = ObjectSchema {
    name: "Alert",
    description: "An alert a monitor opened: its monitor's id, the device's serial (null for a fleet alert), `open` or `resolved`, when it opened and resolved (null while open), and why it opened, in words written at opening.",
    fields: ALERT_FIELDS,
};

/// A page of alerts.
pub const ALERT_PAGE_SCHEMA: ObjectSchema = ObjectSchema {
    name: "AlertPage",
    description: "A page of the account's alerts that match the filters, newest first: how many match in all, the URLs of the next and the previous page (null at either end), and the page's alerts.",
    fields: page_fields!(ALERT_FIELDS),
};

/// An alert as the API shows it.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct AlertJson {
    id: String,
    url: String,
    monitor: String,
    serial: Option<String>,
    state: &'static str,
    started_time: String,
    resolved_time: Option<String>,
    reason: String,
}

impl AlertJson {
    /// Renders an alert with its absolute URL under `base_url`.
    pub fn new(alert: &AlertRecord, base_url: &str) -> Self {
        Self {
            id: alert.id.to_string(),
            url: alert_url(base_url, alert.id.as_str()),
            monitor: alert.monitor.to_string(),
            serial: alert.serial.as_ref().map(ToString::to_string),
            state: alert.state.code(),
            started_time: format_api(alert.started_time),
            resolved_time: alert.resolved_time.map(format_api),
            reason: alert.reason.clone(),
        }
    }
}

/// `<base>/alerts/<id>/`.
pub fn alert_url(base_url: &str, id: &str) -> String {
    format!("{base_url}/alerts/{id}/")
}

impl Described for AlertJson {
    const SCHEMA: &'static ObjectSchema = &ALERT_SCHEMA;

    fn example() -> Self {
        Self {
            id: EXAMPLE_ALERT_ID.to_owned(),
            url: alert_url(BASE_URL, EXAMPLE_ALERT_ID),
            monitor: EXAMPLE_MONITOR_ID.to_owned(),
            serial: None,
            state: AlertState::Open.code(),
            started_time: format_api(ex::at(ex::DELIVERED)),
            resolved_time: None,
            reason: "3 of 10 selected devices offline (30 %), above 25 % for 300 s.".to_owned(),
        }
    }
}

impl Described for Page<AlertJson> {
    const SCHEMA: &'static ObjectSchema = &ALERT_PAGE_SCHEMA;

    fn example() -> Self {
        Page::sample("/alerts/", AlertJson::example())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::description::assert_described;

    #[test]
    fn the_answers_write_their_described_fields() {
        assert_described(&AlertJson::example());
        assert_described(&Page::<AlertJson>::example());
    }
}
