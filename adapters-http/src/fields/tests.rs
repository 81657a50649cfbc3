//! The field engine: DRF's messages for each kind of bad value.

use super::*;
use crate::error::ApiError;
use serde_json::{Value, json};

fn form(body: Value) -> Form {
    let Value::Object(map) = body else {
        panic!("object expected")
    };
    Form::new(map)
}

fn errors(form: Form) -> Value {
    match ApiError::from(form) {
        ApiError::Validation(errors) => Value::Object(errors),
        other => panic!("expected validation errors, got {other:?}"),
    }
}

fn finish(form: Form) -> Result<(), Value> {
    match errors(form) {
        Value::Object(map) if map.is_empty() => Ok(()),
        errors => Err(errors),
    }
}

const NAME: Field = Field::text("name", "Name").max(3);

#[test]
fn drf_messages_for_each_kind_of_bad_value() {
    let mut f = form(json!({"a": null, "b": [], "c": "  ", "name": "long"}));
    f.text(&Field::text("a", "A")).ok();
    f.text(&Field::text("b", "B")).ok();
    f.text(&Field::text("c", "C")).ok();
    f.text(&NAME).ok();
    f.text(&Field::text("missing", "Missing")).ok();
    assert_eq!(
        errors(f),
        json!({
            "a": ["This field may not be null."],
            "b": ["Not a valid string."],
            "c": ["This field may not be blank."],
            "name": ["Ensure this field has no more than 3 characters."],
            "missing": ["This field is required."],
        })
    );
}

#[test]
fn null_characters_are_refused_besides_other_errors() {
    let mut f = form(json!({"name": "a\0", "long": "ab\0", "p": "\0"}));
    assert_eq!(f.text(&NAME).ok(), None);
    assert_eq!(f.text(&Field::text("long", "Long").max(2)).ok(), None);
    assert_eq!(f.text(&Field::password("p", "P")).ok(), None);
    assert_eq!(
        errors(f),
        json!({
            "name": ["Null characters are not allowed."],
            "long": [
                "Ensure this field has no more than 2 characters.",
                "Null characters are not allowed.",
            ],
            "p": ["Null characters are not allowed."],
        })
    );
}

#[test]
fn only_strings_are_text_and_passwords_keep_white_space() {
    let mut f = form(json!({"p": "   "}));
    assert_eq!(
        f.text(&Field::password("p", "P")).ok().as_deref(),
        Some("   ")
    );
    assert!(finish(f).is_ok());
    let mut f = form(json!({"n": 42}));
    assert_eq!(f.text(&Field::text("n", "N")).ok(), None);
    assert_eq!(errors(f), json!({"n": ["Not a valid string."]}));
}

#[test]
fn invisible_text_is_blank_except_in_passwords() {
    let mut f = form(json!({"zw": "\u{200B}\u{200B}", "filler": "\u{3164}", "p": "\u{200B}"}));
    assert_eq!(f.text(&Field::text("zw", "Zw")).ok(), None);
    assert_eq!(f.text(&Field::text("filler", "Filler")).ok(), None);
    assert_eq!(
        f.text(&Field::password("p", "P")).ok().as_deref(),
        Some("\u{200B}")
    );
    assert_eq!(
        errors(f),
        json!({
            "zw": ["This field may not be blank."],
            "filler": ["This field may not be blank."],
        })
    );
    let mut f = form(json!({"d": "\u{200B}", "n": "👩\u{200D}💻 lab"}));
    assert_eq!(
        f.text(&Field::text("d", "D").blank_ok()).ok().as_deref(),
        Some("\u{200B}")
    );
    assert_eq!(
        f.text(&Field::text("n", "N")).ok().as_deref(),
        Some("👩\u{200D}💻 lab")
    );
    assert!(finish(f).is_ok());
}

#[test]
fn bidirectional_controls_are_refused_in_every_text_field() {
    const BIDI: &str = "Bidirectional control characters are not allowed.";
    let mut f = form(json!({
        "name": "a\u{202E}",
        "long": "abc\u{2066}",
        "d": "\u{2069}",
        "p": "secret\u{202A}word",
    }));
    assert_eq!(f.text(&NAME).ok(), None);
    assert_eq!(f.text(&Field::text("long", "Long").max(2)).ok(), None);
    assert_eq!(f.text(&Field::text("d", "D").blank_ok()).ok(), None);
    assert_eq!(f.text(&Field::password("p", "P")).ok(), None);
    assert_eq!(
        errors(f),
        json!({
            "name": [BIDI],
            "long": ["Ensure this field has no more than 2 characters.", BIDI],
            "d": [BIDI],
            "p": [BIDI],
        })
    );
    let mut f = form(json!({"name": "\u{05E9}\u{200F}1"}));
    assert!(f.text(&NAME).is_ok());
}

#[test]
fn passwords_are_bounded_before_any_rule() {
    let longest = "x".repeat(domain::password::MAX_LENGTH);
    let mut f = form(json!({"p": longest, "q": format!("{longest}x")}));
    assert_eq!(f.text(&Field::password("p", "P")).ok(), Some(longest));
    assert_eq!(f.text(&Field::password("q", "Q")).ok(), None);
    assert_eq!(
        errors(f),
        json!({"q": ["Ensure this field has no more than 4096 characters."]})
    );
}

#[test]
fn emails_are_parsed() {
    let mut f = form(json!({"email": "nope"}));
    assert!(f.email(&Field::email("email", "Email")).is_err());
    assert_eq!(
        errors(f),
        json!({"email": ["Enter a valid email address."]})
    );
}

#[test]
fn integers_are_json_integers_within_the_range() {
    let field = Field::integer("n", "N").range(0, 100);
    let mut f = form(json!({"n": 12}));
    assert_eq!(f.integer::<i64>(&field), Ok(12));
    let mut f = form(json!({"n": 7.0}));
    assert_eq!(f.integer::<i64>(&field), Ok(7));
    let mut f = form(json!({"n": null}));
    assert_eq!(
        f.optional_nullable_integer::<i64>(&field.nullable()),
        Ok(Some(None))
    );
    for (value, message) in [
        (json!(true), "A valid integer is required."),
        (json!(1.5), "A valid integer is required."),
        (json!("12"), "A valid integer is required."),
        (json!(1e300), "A valid integer is required."),
        (
            json!(-1),
            "Ensure this value is greater than or equal to 0.",
        ),
        (
            json!(101),
            "Ensure this value is less than or equal to 100.",
        ),
        (json!(null), "This field may not be null."),
    ] {
        let mut f = form(json!({ "n": value }));
        assert!(f.integer::<i64>(&field).is_err());
        assert_eq!(errors(f), json!({ "n": [message] }));
    }
}

#[test]
fn choices_name_the_refused_value() {
    let field = Field::text("p", "P").choices(&["tcp", "udp"]);
    let mut f = form(json!({"p": "tcp"}));
    assert_eq!(
        f.choice(&field, |code| Some(code.to_owned())),
        Ok("tcp".to_owned())
    );
    let mut f = form(json!({"p": 5}));
    assert!(f.choice(&field, |code| Some(code.to_owned())).is_err());
    assert_eq!(errors(f), json!({"p": ["\"5\" is not a valid choice."]}));
}

#[test]
fn serials_accept_any_uuid_spelling() {
    let field = Field::text("serial", "Serial");
    let mut f = form(json!({"serial": "0F8FAD5BD9CB469FA16570867728950E"}));
    assert_eq!(
        f.optional_serial(&field).unwrap().unwrap().as_str(),
        "0f8fad5b-d9cb-469f-a165-70867728950e"
    );
    let mut f = form(json!({"serial": 42}));
    assert!(f.optional_serial(&field).is_err());
    assert_eq!(errors(f), json!({"serial": ["Must be a valid UUID."]}));
}

#[test]
fn list_errors_line_up_with_the_items() {
    const CHILDREN: &[Field] = &[Field::integer("port", "Port").range(1, 65535)];
    let field = Field::list("ports", "Ports", CHILDREN);
    let read = |f: &mut Form| f.integer::<i64>(&CHILDREN[0]);
    let mut f = form(json!({"ports": [{"port": 22}, {"port": 0}, "x"]}));
    assert!(f.optional_objects(&field, read).is_err());
    assert_eq!(
        errors(f),
        json!({"ports": [
            {},
            {"port": ["Ensure this value is greater than or equal to 1."]},
            {"non_field_errors": ["Invalid data. Expected a dictionary, but got str."]},
        ]})
    );
    let mut f = form(json!({"ports": {"port": 22}}));
    assert!(f.optional_objects(&field, read).is_err());
    assert_eq!(
        errors(f),
        json!({"ports": ["Expected a list of items but got type \"dict\"."]})
    );
    let mut f = form(json!({"ports": [{"port": 22}]}));
    assert_eq!(f.optional_objects(&field, read), Ok(Some(vec![22])));
}

#[test]
fn metadata_lists_type_requirement_and_bounds() {
    assert_eq!(
        NAME.optional().blank_ok().metadata(),
        json!({"type": "string", "required": false, "read_only": false, "label": "Name", "max_length": 3})
    );
}

#[test]
fn values_are_read_into_their_domain_types() {
    let mut f = form(json!({"n": 300, "p": "tcp"}));
    let wide = Field::integer("n", "N").range(0, 1000);
    assert!(f.integer::<u8>(&wide).is_err());
    let protocol = Field::text("p", "P").choices(&["tcp", "udp"]);
    assert_eq!(
        f.choice(&protocol, domain::Protocol::from_code),
        Ok(domain::Protocol::Tcp)
    );
    assert_eq!(errors(f), json!({"n": ["A valid integer is required."]}));
}

#[test]
fn a_bounded_field_takes_its_limit_and_blank_rule_from_its_domain_type() {
    use domain::{DeviceDescription, DeviceName};
    let name = Field::bounded::<DeviceName>("name", "Name");
    assert_eq!(name.max_length, Some(DeviceName::MAX_CHARS));
    assert!(!name.allow_blank);
    let description = Field::bounded::<DeviceDescription>("description", "Description");
    assert_eq!(description.max_length, Some(DeviceDescription::MAX_CHARS));
    assert!(description.allow_blank);
    let mut f = form(json!({"name": " ", "description": " "}));
    assert!(f.checked::<DeviceName>(&name).is_err());
    assert!(f.checked::<DeviceDescription>(&description).is_ok());
    assert_eq!(errors(f), json!({"name": ["This field may not be blank."]}));
}

#[test]
fn a_body_written_back_reads_back_and_a_refused_one_does_not() {
    struct Named(String);
    impl FromForm for Named {
        const FIELDS: &'static [Field] = &[NAME];
        fn from_form(form: &mut Form) -> Result<Self, Rejected> {
            form.text(&NAME).map(Named)
        }
    }
    impl ToForm for Named {
        fn to_form(&self) -> serde_json::Map<String, Value> {
            form_of([(&NAME, self.0.as_str().into())])
        }
    }
    assert!(reads_back::<Named>(&Named("abc".into()).to_form()));
    assert!(!reads_back::<Named>(&Named("abcd".into()).to_form()));
}
