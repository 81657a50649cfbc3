//! The fleet's bodies: what they read, and in what order their rules apply.

use super::*;
use crate::fields::reads_back;
use serde_json::json;

fn read<T: FromForm>(body: Value) -> Result<T, Value> {
    let Value::Object(map) = body else {
        panic!("an object")
    };
    let mut form = Form::new(map);
    let value = T::from_form(&mut form);
    match (value, ApiError::from(form)) {
        (Ok(value), ApiError::Validation(errors)) if errors.is_empty() => Ok(value),
        (_, ApiError::Validation(errors)) => Err(Value::Object(errors)),
        (_, other) => panic!("{other:?}"),
    }
}

#[test]
fn a_bulk_tagging_needs_a_tag_to_add_or_remove_once_its_fields_are_valid() {
    let give = json!({"non_field_errors": [GIVE_TAGS]});
    for body in [
        json!({"selector": {"all": true}}),
        json!({"selector": {"all": true}, "add": []}),
        json!({"selector": {"all": true}, "add": [], "remove": []}),
    ] {
        assert_eq!(
            read::<Retag>(body.clone()).err(),
            Some(give.clone()),
            "{body}"
        );
    }
    // Field errors come alone.
    assert_eq!(
        read::<Retag>(json!({"selector": {}, "add": [1]})).err(),
        Some(json!({
            "selector": {"non_field_errors": [
                "A selector without criteria needs \"all\": true."
            ]},
            "add": ["Not a valid string."],
        }))
    );
    assert_eq!(
        read::<Retag>(json!({"add": ["lab"]})).err(),
        Some(json!({"selector": ["This field is required."]}))
    );
}

#[test]
fn a_bulk_tagging_reads_its_tags_lowercased_and_distinct() {
    let retag = read::<Retag>(json!({
        "selector": {"tags": ["lab"], "online": "yes"},
        "add": ["B", "a", "b"],
        "remove": ["Old"],
        "unknown": true,
    }))
    .ok()
    .unwrap();
    let names = |tags: &[domain::Tag]| {
        tags.iter()
            .map(|t| t.as_str().to_owned())
            .collect::<Vec<_>>()
    };
    assert_eq!(names(&retag.change.add), ["a", "b"]);
    assert_eq!(names(&retag.change.remove), ["old"]);
    assert_eq!(retag.selector, example_selector());
}

#[test]
fn the_request_examples_read_back() {
    for route in routes() {
        for endpoint in &route.endpoints {
            if let Some(example) = &endpoint.request_example {
                assert!((example.reads_back)(&example.body), "{}", route.pattern);
            }
        }
    }
    assert!(reads_back::<Selection>(&Selection(Selector::All).to_form()));
}

#[test]
fn the_select_and_tags_paths_are_never_taken_for_a_serial() {
    for (path, allow) in [
        ("/devices/select/", "POST, OPTIONS"),
        ("/devices/tags/", "POST, OPTIONS"),
        ("/tags/", "GET, HEAD, OPTIONS"),
    ] {
        let route = crate::route_table::find(path).unwrap();
        assert_eq!(route.pattern, path);
        assert_eq!(route.allow(), allow);
        assert!(route.is_protected());
    }
}
