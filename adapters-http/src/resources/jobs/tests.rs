//! A job's body: what it reads, every failing field at once, and the
//! selector it shows back.

use super::*;
use crate::fields::{Form, FromForm, reads_back};
use serde_json::{Value, json};

fn read(body: Value) -> Result<JobRequest, Value> {
    let Value::Object(map) = body else {
        panic!("an object")
    };
    let mut form = Form::new(map);
    let value = JobBody::from_form(&mut form);
    match (value, ApiError::from(form)) {
        (Ok(JobBody(request)), ApiError::Validation(errors)) if errors.is_empty() => Ok(request),
        (_, ApiError::Validation(errors)) => Err(Value::Object(errors)),
        (_, other) => panic!("{other:?}"),
    }
}

fn shown_selector(request: &JobRequest) -> Value {
    serde_json::from_str(&request.selector_json).unwrap()
}

#[test]
fn a_minimal_job_takes_the_defaults() {
    let request = read(json!({"action": "reboot", "selector": {"all": true}})).unwrap();
    assert_eq!(request.action, Action::Reboot);
    assert_eq!(request.selector, Selector::All);
    assert_eq!(shown_selector(&request), json!({"all": true}));
    assert_eq!(request.start_time, None);
    assert_eq!(request.settings, JobSettings::default());
    assert_eq!(request.settings.halt_failure_ratio.get(), 0.5);
}

#[test]
fn every_setting_is_read_as_sent() {
    let request = read(json!({
        "action": "reboot",
        "selector": {"tags": ["Lab"], "online": "no", "all": false, "colour": "red"},
        "start_time": "2026-11-24T09:30:00",
        "wave_size": 2.0,
        "wave_interval_seconds": 86400,
        "halt_failure_ratio": 1,
        "unknown": [1, 2],
    }))
    .unwrap();
    assert_eq!(
        shown_selector(&request),
        json!({"tags": ["lab"], "online": false, "all": false})
    );
    assert_eq!(request.start_time, Some(ex::at("2026-11-24T09:30:00Z")));
    let settings = request.settings;
    assert_eq!(settings.wave_size.map(WaveSize::get), Some(2));
    assert_eq!(settings.wave_interval.seconds(), 86_400);
    assert_eq!(settings.halt_failure_ratio.get(), 1.0);
    // null where it means "not given".
    let request = read(json!({
        "action": "reboot",
        "selector": {"serials": ["a"]},
        "start_time": null,
        "wave_size": null,
    }))
    .unwrap();
    assert_eq!(request.start_time, None);
    assert_eq!(request.settings.wave_size, None);
}

#[test]
fn every_failing_field_is_reported_at_once() {
    let errors = read(json!({
        "action": "shutdown",
        "selector": {"tags": [], "machine_type": "toaster"},
        "start_time": "2026-11-24 09:30",
        "wave_size": 0,
        "wave_interval_seconds": null,
        "halt_failure_ratio": "half",
    }))
    .unwrap_err();
    assert_eq!(
        errors,
        json!({
            "action": ["\"shutdown\" is not a valid choice."],
            "selector": {
                "tags": ["This list may not be empty."],
                "machine_type": ["\"toaster\" is not a valid choice."],
            },
            "start_time": ["Datetime has wrong format. Use one of these formats instead: YYYY-MM-DDThh:mm:ss."],
            "wave_size": ["Ensure this value is greater than or equal to 1."],
            "wave_interval_seconds": ["This field may not be null."],
            "halt_failure_ratio": ["A valid number is required."],
        })
    );
    assert_eq!(
        read(json!({})).unwrap_err(),
        json!({"action": ["This field is required."], "selector": ["This field is required."]})
    );
    let bounds = read(json!({
        "action": "reboot",
        "selector": {"all": true},
        "wave_size": 100_001,
        "wave_interval_seconds": 86_401,
        "halt_failure_ratio": 1.01,
    }))
    .unwrap_err();
    assert_eq!(
        bounds,
        json!({
            "wave_size": ["Ensure this value is less than or equal to 100000."],
            "wave_interval_seconds": ["Ensure this value is less than or equal to 86400."],
            "halt_failure_ratio": ["Ensure this value is less than or equal to 1."],
        })
    );
    let kinds = read(json!({
        "action": "reboot",
        "selector": "all",
        "wave_size": "2",
        "wave_interval_seconds": 1.5,
        "halt_failure_ratio": null,
        "start_time": 1_700_000_000,
    }))
    .unwrap_err();
    assert_eq!(
        kinds,
        json!({
            "selector": {"non_field_errors": ["Invalid data. Expected a dictionary, but got str."]},
            "wave_size": ["A valid integer is required."],
            "wave_interval_seconds": ["A valid integer is required."],
            "halt_failure_ratio": ["This field may not be null."],
            "start_time": ["Datetime has wrong format. Use one of these formats instead: YYYY-MM-DDThh:mm:ss."],
        })
    );
}

#[test]
fn the_request_example_reads_back_and_empty_bodies_read_as_nothing() {
    let example = example_body();
    assert!(reads_back::<JobBody>(&crate::fields::ToForm::to_form(
        &example
    )));
    assert_eq!(
        Value::Object(crate::fields::ToForm::to_form(&example)),
        json!({
            "action": "reboot",
            "selector": {"tags": ["kitchen"], "online": true},
            "wave_size": 4,
            "wave_interval_seconds": 300,
            "halt_failure_ratio": 0.25,
        })
    );
    assert!(reads_back::<NoBody>(&serde_json::Map::new()));
}

#[test]
fn refusals_are_404_and_409_with_the_documented_words() {
    use actix_web::ResponseError;
    assert_eq!(refusal(JobActionError::NotFound).status_code(), 404);
    for (error, words) in [
        (JobActionError::AlreadyFinished, ALREADY_FINISHED),
        (JobActionError::NotHalted, NOT_HALTED),
    ] {
        let error = refusal(error);
        assert_eq!(error.status_code(), 409);
        assert_eq!(error.message(), words);
    }
}
