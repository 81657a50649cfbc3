//! The query of `GET /alerts/`: a page (`limit`, `offset`) and two filters,
//! `monitor` (a hyphenated UUID in either letter case: anything else, an
//! empty value too, is 400; one the account lacks gives an empty page) and
//! `state` (`open` or `resolved`, else 400), as the document states them (a
//! `uuid` and a choice).

use crate::description::Parameter;
use crate::fields::messages::INVALID_UUID;
use crate::fields::{Field, FieldType, Form, FromForm, Rejected};
use crate::resources::lists::PageQuery;
use crate::resources::monitors::EXAMPLE_MONITOR_ID;
use application::ports::{AlertFilter, Window};
use domain::{AlertState, MonitorId};

/// The states of an alert, as the API writes them.
pub(crate) const STATES: [&str; 2] = [AlertState::Open.code(), AlertState::Resolved.code()];

/// `monitor`: only this monitor's alerts.
const MONITOR: Field = Field::text("monitor", "Monitor").optional().format("uuid");
/// `state`: only alerts in this state.
const STATE: Field = Field {
    kind: FieldType::Choice,
    ..Field::text("state", "State").optional().choices(&STATES)
};

/// The filters, as the OpenAPI document shows them.
pub(super) const FILTERS: [Parameter; 2] = [
    Parameter {
        name: "monitor",
        description: "Only the alerts of this monitor (its id; one the account does not have matches nothing).",
        format: Some("uuid"),
        example: || EXAMPLE_MONITOR_ID.into(),
    },
    Parameter {
        name: "state",
        description: "Only the alerts in this state: `open` or `resolved`.",
        format: None,
        example: || AlertState::Open.code().into(),
    },
];

/// What `GET /alerts/` asks for.
pub struct AlertQuery {
    /// The page.
    pub window: Window,
    /// The filters.
    pub filter: AlertFilter,
}

impl FromForm for AlertQuery {
    const FIELDS: &'static [Field] = &[PageQuery::FIELDS[0], PageQuery::FIELDS[1], MONITOR, STATE];

    fn from_form(form: &mut Form) -> Result<Self, Rejected> {
        let window = PageQuery::from_form(form);
        let monitor = read_monitor(form);
        let state = form.optional_choice(&STATE, AlertState::parse);
        Ok(Self {
            window: window?.0,
            filter: AlertFilter {
                monitor: monitor?,
                state: state?,
            },
        })
    }
}

/// `monitor`: absent, no filter; else a hyphenated UUID in either letter
/// case (the document's `uuid` format), else 400.
fn read_monitor(form: &mut Form) -> Result<Option<MonitorId>, Rejected> {
    let text = match form.raw(&MONITOR) {
        None => return Ok(None),
        Some(serde_json::Value::String(text)) => text,
        Some(other) => other.to_string(),
    };
    let hyphenated = text.len() == 36
        && text.char_indices().all(|(at, c)| match at {
            8 | 13 | 18 | 23 => c == '-',
            _ => c.is_ascii_hexdigit(),
        });
    let id = hyphenated
        .then(|| MonitorId::parse(&text.to_ascii_lowercase()).ok())
        .flatten();
    id.map(Some)
        .ok_or_else(|| form.error(MONITOR.name, INVALID_UUID))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ApiError;
    use serde_json::{Value, json};

    fn read(query: Value) -> Result<AlertQuery, Value> {
        let mut form = Form::new(query.as_object().cloned().unwrap());
        let value = AlertQuery::from_form(&mut form);
        match (value, ApiError::from(form)) {
            (Ok(query), ApiError::Validation(errors)) if errors.is_empty() => Ok(query),
            (_, ApiError::Validation(errors)) => Err(Value::Object(errors)),
            (_, other) => panic!("{other}"),
        }
    }

    #[test]
    fn filters_are_read_in_any_spelling_of_a_uuid() {
        let query = read(json!({})).unwrap();
        assert_eq!(query.filter, AlertFilter::default());
        assert_eq!(
            query.window,
            Window {
                limit: 100,
                offset: 0
            }
        );
        let upper = EXAMPLE_MONITOR_ID.to_uppercase();
        let query = read(json!({"monitor": upper, "state": "resolved", "limit": 5})).unwrap();
        assert_eq!(
            query.filter.monitor.as_ref().map(MonitorId::as_str),
            Some(EXAMPLE_MONITOR_ID)
        );
        assert_eq!(query.filter.state, Some(AlertState::Resolved));
        assert_eq!(query.window.limit, 5);
    }

    #[test]
    fn bad_filters_are_400_all_at_once() {
        assert_eq!(
            read(json!({"monitor": "", "state": ""})).err(),
            Some(json!({
                "monitor": ["Must be a valid UUID."],
                "state": ["\"\" is not a valid choice."],
            }))
        );
        let id = EXAMPLE_MONITOR_ID;
        for spelled in [format!(" {id}"), id.replace('-', ""), format!("{{{id}}}")] {
            assert_eq!(
                read(json!({ "monitor": spelled })).err(),
                Some(json!({"monitor": ["Must be a valid UUID."]})),
                "{spelled}"
            );
        }
        assert_eq!(
            read(json!({"monitor": "x", "state": ""})).err(),
            Some(json!({
                "monitor": ["Must be a valid UUID."],
                "state": ["\"\" is not a valid choice."],
            }))
        );
        assert_eq!(
            read(json!({"monitor": "nope", "state": "x", "offset": -1})).err(),
            Some(json!({
                "monitor": ["Must be a valid UUID."],
                "state": ["\"x\" is not a valid choice."],
                "offset": ["Ensure this value is greater than or equal to 0."],
            }))
        );
    }
}
