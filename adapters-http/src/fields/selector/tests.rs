//! The selector field: every key's messages, nested under the field.

use super::*;
use serde_json::json;

const SELECTOR: Field = Field::selector("selector", "Selector");

/// Reads `body`'s selector: the selector, or the body's errors.
fn read(body: Value) -> Result<Selector, Value> {
    let Value::Object(map) = body else {
        panic!("an object")
    };
    let mut form = Form::new(map);
    let selector = form.selector(&SELECTOR);
    match (selector, ApiError::from(form)) {
        (Ok(selector), ApiError::Validation(errors)) if errors.is_empty() => Ok(selector),
        (_, ApiError::Validation(errors)) => Err(Value::Object(errors)),
        (_, other) => panic!("{other:?}"),
    }
}

fn tag(name: &str) -> Tag {
    Tag::parse(name).unwrap()
}

#[test]
fn each_criterion_given_is_read() {
    let selector = read(json!({"selector": {
        "serials": ["a", "b"],
        "tags": ["Lab", "lab"],
        "any_tags": ["x", "y"],
        "online": "yes",
        "machine_type": "rpi_4b",
        "search": " Kitchen ",
        "all": false,
        "colour": "ignored",
    }}))
    .unwrap();
    let expected = Criteria {
        serials: Some(vec!["a".into(), "b".into()]),
        tags: vec![tag("lab")],
        any_tags: vec![tag("x"), tag("y")],
        online: Some(true),
        machine_type: MachineType::from_code("rpi_4b"),
        search: Search::new("kitchen"),
    };
    assert_eq!(selector, Selector::Matching(expected));
    assert_eq!(read(json!({"selector": {"all": 1}})), Ok(Selector::All));
}

#[test]
fn the_field_itself_is_required_not_null_and_an_object() {
    assert_eq!(
        read(json!({})),
        Err(json!({"selector": ["This field is required."]}))
    );
    assert_eq!(
        read(json!({"selector": null})),
        Err(json!({"selector": ["This field may not be null."]}))
    );
    for (value, name) in [
        (json!("x"), "str"),
        (json!(1), "int"),
        (json!(1.5), "float"),
        (json!(true), "bool"),
        (json!([]), "list"),
    ] {
        let message = format!("Invalid data. Expected a dictionary, but got {name}.");
        assert_eq!(
            read(json!({ "selector": value })),
            Err(json!({"selector": {"non_field_errors": [message]}}))
        );
    }
}

#[test]
fn every_failing_key_is_reported_at_once_under_the_field() {
    let errors = read(json!({"selector": {
        "serials": [],
        "tags": [],
        "any_tags": "lab",
        "online": "maybe",
        "machine_type": "toaster",
        "search": "  ",
        "all": null,
    }}))
    .unwrap_err();
    assert_eq!(
        errors,
        json!({"selector": {
            "serials": ["This list may not be empty."],
            "tags": ["This list may not be empty."],
            "any_tags": ["Expected a list of items but got type \"str\"."],
            "online": ["Must be a valid boolean."],
            "machine_type": ["\"toaster\" is not a valid choice."],
            "search": ["This field may not be blank."],
            "all": ["This field may not be null."],
        }})
    );
}

#[test]
fn serials_are_at_most_a_thousand_strings() {
    let many: Vec<String> = (0..1001).map(|n| n.to_string()).collect();
    assert_eq!(
        read(json!({"selector": {"serials": many}})),
        Err(json!({"selector": {"serials": [
            "Ensure this field has no more than 1000 elements."
        ]}}))
    );
    assert_eq!(
        read(json!({"selector": {"serials": ["a", 1, null, "b\u{0}"]}})),
        Err(json!({"selector": {"serials": [
            "Not a valid string.",
            "Null characters are not allowed."
        ]}}))
    );
    assert_eq!(
        read(json!({"selector": {"serials": null}})),
        Err(json!({"selector": {"serials": ["This field may not be null."]}}))
    );
    let thousand: Vec<String> = (0..1000).map(|n| n.to_string()).collect();
    assert!(read(json!({"selector": {"serials": thousand}})).is_ok());
}

#[test]
fn booleans_take_drfs_spellings_only() {
    for yes in [
        json!(true),
        json!("true"),
        json!("True"),
        json!("on"),
        json!(1),
        json!("1"),
    ] {
        let selector = read(json!({"selector": {"online": yes}})).unwrap();
        assert_eq!(selector.criteria().unwrap().online, Some(true), "{yes}");
    }
    for no in [
        json!(false),
        json!("false"),
        json!("No"),
        json!("off"),
        json!(0),
        json!(0.0),
    ] {
        let selector = read(json!({"selector": {"online": no}})).unwrap();
        assert_eq!(selector.criteria().unwrap().online, Some(false), "{no}");
    }
    for bad in [
        json!("maybe"),
        json!(2),
        json!([]),
        json!({}),
        json!("tRUE"),
    ] {
        assert_eq!(
            read(json!({"selector": {"online": bad}})),
            Err(json!({"selector": {"online": ["Must be a valid boolean."]}})),
            "{bad}"
        );
    }
}

#[test]
fn all_comes_alone_once_every_key_is_valid() {
    let no_criteria = json!({"selector": {"non_field_errors": [
        "A selector without criteria needs \"all\": true."
    ]}});
    assert_eq!(read(json!({"selector": {}})), Err(no_criteria.clone()));
    assert_eq!(
        read(json!({"selector": {"all": false, "x": 1}})),
        Err(no_criteria)
    );
    assert_eq!(
        read(json!({"selector": {"all": true, "online": false}})),
        Err(json!({"selector": {"non_field_errors": [
            "\"all\": true cannot be combined with other criteria."
        ]}}))
    );
    // A key's own error comes first, and alone.
    assert_eq!(
        read(json!({"selector": {"all": true, "online": "x"}})),
        Err(json!({"selector": {"online": ["Must be a valid boolean."]}}))
    );
}

#[test]
fn a_selector_is_written_back_as_it_is_read() {
    for body in [
        json!({"all": true}),
        json!({"serials": ["a"], "tags": ["lab"], "any_tags": ["x", "y"], "online": false,
               "machine_type": "x86_64", "search": "pi"}),
    ] {
        let selector = read(json!({ "selector": body })).unwrap();
        assert_eq!(selector_json(&selector), body);
    }
}

#[test]
fn options_show_a_nested_object_with_its_keys() {
    let meta = SELECTOR.metadata();
    assert_eq!(meta["type"], "nested object");
    assert_eq!(meta["required"], true);
    let children = meta["children"].as_object().unwrap();
    let keys: Vec<&str> = children.keys().map(String::as_str).collect();
    assert_eq!(
        keys,
        [
            "all",
            "any_tags",
            "machine_type",
            "online",
            "search",
            "serials",
            "tags"
        ]
    );
    assert_eq!(children["serials"]["type"], "list");
    assert_eq!(children["serials"]["child"]["type"], "string");
    assert_eq!(children["online"]["type"], "boolean");
    assert_eq!(children["machine_type"]["type"], "choice");
    let choices = children["machine_type"]["choices"].as_array().unwrap();
    assert_eq!(choices.len(), MachineType::CODES.len());
    assert!(choices.contains(&json!({"value": "rpi_4b", "display_name": "rpi_4b"})));
    assert!(children.values().all(|c| c["required"] == false));
}

#[test]
fn a_form_spells_the_keys_with_the_fields_name_and_repeats_a_lists() {
    use crate::body::{FormValue, typed_values};
    let pairs = [
        ("selector.online", "true"),
        ("selector.all", "no"),
        ("selector.tags", "Lab"),
        ("selector.tags", "ci"),
        ("selector.serials", "a"),
        ("selector", "ignored"),
        ("other", "kept"),
    ]
    .map(|(name, value)| (name.to_owned(), FormValue::Text(value.to_owned())));
    let body = typed_values(pairs, &[SELECTOR]);
    assert_eq!(
        Value::Object(body.clone()),
        json!({
            "selector": {"online": true, "all": "no", "tags": ["Lab", "ci"], "serials": ["a"]},
            "other": "kept",
        })
    );
    let selector = read(Value::Object(body)).unwrap();
    let criteria = selector.criteria().unwrap();
    assert_eq!(criteria.tags, [tag("ci"), tag("lab")]);
    assert_eq!(criteria.serials, Some(vec!["a".to_owned()]));
}
