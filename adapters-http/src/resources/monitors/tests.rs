//! A monitor's body: what it reads, every failing field at once, the
//! server's least `after_seconds`, and the selector it shows back.

use super::*;
use crate::fields::{Form, ToForm, reads_back};
use serde_json::{Value, json};

/// The online window of the servers of these tests.
const LEAST: u32 = 90;

fn read(body: Value) -> Result<MonitorRequest, Value> {
    let Value::Object(map) = body else {
        panic!("an object")
    };
    let mut form = Form::new(map);
    let value = MonitorBody::read(&mut form, LEAST);
    match (value, ApiError::from(form)) {
        (Ok(MonitorBody(request)), ApiError::Validation(errors)) if errors.is_empty() => {
            Ok(request)
        }
        (_, ApiError::Validation(errors)) => Err(Value::Object(errors)),
        (_, other) => panic!("{other:?}"),
    }
}

#[test]
fn a_device_monitor_ignores_a_ratio() {
    let request = read(json!({
        "name": " Lab offline ",
        "kind": "device_offline",
        "selector": {"tags": ["Lab"], "all": false, "colour": "red"},
        "after_seconds": 90,
        "ratio": "anything",
    }))
    .unwrap();
    assert_eq!(request.name.as_str(), " Lab offline ");
    assert_eq!(request.kind, MonitorKind::DeviceOffline);
    assert_eq!(request.after.seconds(), 90);
    let shown: Value = serde_json::from_str(&request.selector_json).unwrap();
    assert_eq!(shown, json!({"tags": ["lab"], "all": false}));
}

#[test]
fn a_fleet_monitor_needs_its_ratio() {
    let request = read(json!({
        "name": "Fleet",
        "kind": "fleet_offline_ratio",
        "selector": {"all": true},
        "after_seconds": 604_800,
        "ratio": 0,
    }))
    .unwrap();
    assert_eq!(request.kind.ratio().map(OfflineRatio::get), Some(0.0));
    assert_eq!(request.selector, Selector::All);
    let base = json!({"name": "F", "kind": "fleet_offline_ratio", "selector": {"all": true}, "after_seconds": 90});
    let with = |ratio: Value| {
        let mut body = base.clone();
        body["ratio"] = ratio;
        read(body).unwrap_err()
    };
    assert_eq!(
        read(base.clone()).unwrap_err(),
        json!({"ratio": ["This field is required."]})
    );
    assert_eq!(
        with(json!(null)),
        json!({"ratio": ["This field may not be null."]})
    );
    assert_eq!(
        with(json!("half")),
        json!({"ratio": ["A valid number is required."]})
    );
    assert_eq!(
        with(json!(1.5)),
        json!({"ratio": ["Ensure this value is less than or equal to 1."]})
    );
}

#[test]
fn every_failing_field_is_reported_at_once() {
    assert_eq!(
        read(json!({})).unwrap_err(),
        json!({
            "name": ["This field is required."],
            "kind": ["This field is required."],
            "selector": ["This field is required."],
            "after_seconds": ["This field is required."],
        })
    );
    assert_eq!(
        read(json!({
            "name": " ",
            "kind": "disk_full",
            "selector": {"online": "maybe"},
            "after_seconds": 89,
            "ratio": -1,
        }))
        .unwrap_err(),
        json!({
            "name": ["This field may not be blank."],
            "kind": ["\"disk_full\" is not a valid choice."],
            "selector": {"online": ["Must be a valid boolean."]},
            "after_seconds": ["Ensure this value is greater than or equal to 90."],
            "ratio": ["Ensure this value is greater than or equal to 0."],
        })
    );
    assert_eq!(
        read(json!({
            "name": "x".repeat(101),
            "kind": 1,
            "selector": [],
            "after_seconds": 604_801,
        }))
        .unwrap_err(),
        json!({
            "name": ["Ensure this field has no more than 100 characters."],
            "kind": ["\"1\" is not a valid choice."],
            "selector": {"non_field_errors": ["Invalid data. Expected a dictionary, but got list."]},
            "after_seconds": ["Ensure this value is less than or equal to 604800."],
        })
    );
    assert_eq!(
        read(json!({"name": "n", "kind": "device_offline", "selector": {"all": true}, "after_seconds": "90"}))
            .unwrap_err(),
        json!({"after_seconds": ["A valid integer is required."]})
    );
}

#[test]
fn the_request_examples_read_back() {
    let example = example_body();
    assert!(reads_back::<MonitorBody>(&example.to_form()));
    assert_eq!(
        Value::Object(example.to_form()),
        json!({
            "name": "Berlin mostly offline",
            "kind": "fleet_offline_ratio",
            "selector": {"tags": ["site:berlin"]},
            "after_seconds": 300,
            "ratio": 0.25,
        })
    );
    let snooze = SnoozeBody(Some(ex::at("2026-11-24T17:30:00Z")));
    assert!(reads_back::<SnoozeBody>(&snooze.to_form()));
    assert!(reads_back::<SnoozeBody>(&SnoozeBody(None).to_form()));
    assert!(!reads_back::<SnoozeBody>(&serde_json::Map::new()));
}
