//! Lists of tags: each failing rule's message once, all at once.

use super::*;
use crate::body::{FormValue, typed_values};
use crate::error::ApiError;
use serde_json::{Value, json};

const TAGS: Field = Field::tags("tags", "Tags");

fn read(body: Value) -> (Result<Option<TagSet>, Rejected>, Value) {
    let Value::Object(map) = body else {
        panic!("object expected")
    };
    let mut form = Form::new(map);
    let value = form.optional_tags(&TAGS);
    let ApiError::Validation(errors) = ApiError::from(form) else {
        panic!("validation errors expected")
    };
    (value, Value::Object(errors))
}

fn names(set: &TagSet) -> Vec<&str> {
    set.as_slice().iter().map(Tag::as_str).collect()
}

#[test]
fn tags_are_lowercased_distinct_and_ascending() {
    let (value, errors) = read(json!({"tags": ["Lab", "site:berlin", "lab", "0-x_y.z"]}));
    let set = value.expect("valid").expect("given");
    assert_eq!(names(&set), ["0-x_y.z", "lab", "site:berlin"]);
    assert_eq!(errors, json!({}));
    let (value, _) = read(json!({"tags": []}));
    assert!(value.expect("valid").expect("given").is_empty());
}

#[test]
fn an_absent_list_is_none_and_no_error() {
    let (value, errors) = read(json!({"name": "x"}));
    assert_eq!(value, Ok(None));
    assert_eq!(errors, json!({}));
}

#[test]
fn anything_but_a_list_is_refused_with_its_python_type() {
    for (value, kind) in [
        (json!("lab"), "str"),
        (json!(3), "int"),
        (json!(1.5), "float"),
        (json!(true), "bool"),
        (json!({"a": 1}), "dict"),
    ] {
        let (value, errors) = read(json!({ "tags": value }));
        assert!(value.is_err());
        assert_eq!(
            errors,
            json!({"tags": [format!("Expected a list of items but got type \"{kind}\".")]})
        );
    }
    let (value, errors) = read(json!({"tags": null}));
    assert!(value.is_err());
    assert_eq!(errors, json!({"tags": ["This field may not be null."]}));
}

#[test]
fn every_failing_rule_is_reported_once() {
    let mut items: Vec<Value> = (0..21).map(|i| json!(format!("t{i}"))).collect();
    items.extend([
        json!(1),
        json!(null),
        json!("-bad"),
        json!(""),
        json!("x".repeat(41)),
    ]);
    let (value, errors) = read(json!({ "tags": items }));
    assert!(value.is_err());
    assert_eq!(
        errors,
        json!({"tags": [
            "Not a valid string.",
            INVALID_TAG,
            "Ensure this field has no more than 20 elements.",
        ]})
    );
}

#[test]
fn twenty_distinct_tags_are_enough_duplicates_count_once() {
    let mut items: Vec<String> = (0..20).map(|i| format!("t{i}")).collect();
    items.extend(items.clone().iter().map(|t| t.to_uppercase()));
    let (value, errors) = read(json!({ "tags": items }));
    assert_eq!(value.expect("valid").expect("given").len(), 20);
    assert_eq!(errors, json!({}));
    let (value, _) = read(json!({"tags": ["a".repeat(40)]}));
    assert!(value.is_ok());
}

#[test]
fn a_form_repeats_the_key_and_a_file_is_not_text() {
    let pairs = [
        ("tags", FormValue::Text("Lab".into())),
        ("name", FormValue::Text("Pi".into())),
        ("tags", FormValue::Text("ci".into())),
    ]
    .map(|(name, value)| (name.to_owned(), value));
    let values = typed_values(pairs, &[TAGS]);
    assert_eq!(values["tags"], json!(["Lab", "ci"]));
    let values = typed_values([("tags".to_owned(), FormValue::File)], &[TAGS]);
    let (value, errors) = read(Value::Object(values));
    assert!(value.is_err());
    assert_eq!(errors, json!({"tags": ["Not a valid string."]}));
}

#[test]
fn options_show_a_list_of_strings_as_drf_does() {
    assert_eq!(
        TAGS.metadata(),
        json!({
            "type": "list",
            "required": false,
            "read_only": false,
            "label": "Tags",
            "max_length": 20,
            "child": {"type": "string", "required": true, "read_only": false, "max_length": 40},
        })
    );
}

#[test]
fn a_filter_never_refuses_and_a_tag_that_cannot_be_matches_nothing() {
    let filter = |body: Value| {
        let Value::Object(map) = body else {
            panic!("object expected")
        };
        let mut form = Form::new(map);
        let tags = form.filter_tags(&Field::tags("tag", "Tag"));
        assert!(!form.has_errors());
        tags.map(|tags| {
            tags.iter()
                .map(|t| t.as_str().to_owned())
                .collect::<Vec<_>>()
        })
    };
    assert_eq!(filter(json!({})), Some(vec![]));
    assert_eq!(
        filter(json!({"tag": ["CI", "", "lab", "ci"]})),
        Some(vec!["ci".to_owned(), "lab".to_owned()])
    );
    assert_eq!(filter(json!({"tag": "Lab"})), Some(vec!["lab".to_owned()]));
    assert_eq!(filter(json!({"tag": ["lab", "no tag"]})), None);
}
