//! Every documented operation is described beside its route, and every
//! example the document shows is a value its type reads back.

use super::responses::{SERVER_ERROR, common_failures};
use super::*;
use crate::answer::DETAIL_SCHEMA;
use crate::description::{ReplyBody, error_json, to_json};
use crate::error::ApiError;
use std::collections::BTreeSet;

/// The documented routes with their tag.
fn documented() -> impl Iterator<Item = (&'static Route, Tag)> {
    route_table::all()
        .iter()
        .filter_map(|route| route.tag.map(|tag| (route, tag)))
}

#[test]
fn every_documented_operation_has_a_unique_camel_case_id_and_a_summary() {
    let mut ids = BTreeSet::new();
    for (route, _) in documented() {
        assert!(!route.endpoints.is_empty(), "{}", route.pattern);
        for endpoint in &route.endpoints {
            let what = format!("{} {}", endpoint.method, route.pattern);
            let id = endpoint.operation_id;
            assert!(
                id.chars().next().is_some_and(|c| c.is_ascii_lowercase())
                    && id.chars().all(|c| c.is_ascii_alphanumeric()),
                "{what}: {id:?} is not a lowerCamelCase name"
            );
            assert!(ids.insert(id), "{what}: {id} twice");
            assert!(!endpoint.summary.trim().is_empty(), "{what}: no summary");
            assert!(http_method(&endpoint.method).is_some(), "{what}");
        }
    }
    assert_eq!(ids.len(), 53);
}

#[test]
fn every_parameter_is_declared_on_its_route() {
    for (route, _) in documented() {
        let mut used: BTreeSet<&str> = path_parameters(route.pattern).collect();
        for endpoint in &route.endpoints {
            used.extend(endpoint.query.iter().map(|field| field.name));
        }
        let declared: BTreeSet<&str> = route.parameters.iter().map(|p| p.name).collect();
        assert_eq!(declared, used, "{}", route.pattern);
        for parameter in &route.parameters {
            assert!(!parameter.description.is_empty(), "{}", parameter.name);
            assert!(!(parameter.example)().is_null(), "{}", parameter.name);
        }
    }
}

#[test]
fn every_body_has_an_example_of_its_own_type_that_reads_back() {
    for (route, _) in documented() {
        for endpoint in &route.endpoints {
            let what = format!("{} {}", endpoint.method, route.pattern);
            match (endpoint.fields, &endpoint.request_example) {
                (None, None) => {}
                (Some(fields), Some(example)) => {
                    assert_eq!(fields, example.fields, "{what}: another type's example");
                    assert!(
                        (example.reads_back)(&example.body),
                        "{what}: {:?}",
                        example.body
                    );
                    for name in example.body.keys() {
                        assert!(
                            fields.iter().any(|f| f.name == name && !f.read_only),
                            "{what}: {name} is not a writable field"
                        );
                    }
                }
                (Some(_), None) => panic!("{what}: a body without an example"),
                (None, Some(_)) => panic!("{what}: an example of no body"),
            }
        }
    }
}

#[test]
fn answers_whose_words_depend_on_the_operation_show_their_own() {
    for (route, _) in documented() {
        for endpoint in &route.endpoints {
            let what = format!("{} {}", endpoint.method, route.pattern);
            let object = match endpoint.reply.body {
                ReplyBody::One(object)
                | ReplyBody::Many(object)
                | ReplyBody::OneOrPage(object)
                | ReplyBody::ManyOrPaged { item: object, .. } => object,
                ReplyBody::Empty | ReplyBody::Page => {
                    assert!(endpoint.answer_example.is_none(), "{what}");
                    continue;
                }
            };
            let is_detail = object.schema.name == DETAIL_SCHEMA.name;
            assert_eq!(endpoint.answer_example.is_some(), is_detail, "{what}");
            let example = endpoint
                .answer_example
                .clone()
                .unwrap_or_else(|| (object.example)());
            let mut keys: Vec<&str> = example
                .as_object()
                .unwrap_or_else(|| panic!("{what}: {example} is not an object"))
                .keys()
                .map(String::as_str)
                .collect();
            let mut fields: Vec<&str> = object.schema.fields.iter().map(|f| f.name).collect();
            keys.sort_unstable();
            fields.sort_unstable();
            assert_eq!(keys, fields, "{what}");
        }
    }
}

#[test]
fn the_server_error_example_is_what_the_server_answers() {
    let rendered = error_json(&ApiError::Internal("a cause never shown".into()));
    assert_eq!(rendered, to_json(&SERVER_ERROR));
    let failures = common_failures();
    let names: Vec<&str> = failures.iter().map(|f| f.name).collect();
    assert_eq!(
        names,
        [
            "Unauthorized",
            "Forbidden",
            "NotFound",
            "PayloadTooLarge",
            "UnsupportedMediaType",
            "Throttled",
            "Unavailable",
            "ServerError",
        ]
    );
    for failure in failures {
        let detail = failure.example["detail"].as_str().unwrap_or_default();
        assert!(
            detail.ends_with('.'),
            "{}: {}",
            failure.name,
            failure.example
        );
    }
}

#[test]
fn every_body_is_described_as_json_and_as_both_form_encodings() {
    let document = serde_json::to_value(document()).expect("the document serializes");
    let mut bodies = 0;
    for (path, item) in document["paths"].as_object().expect("paths") {
        for (method, operation) in item.as_object().expect("a path item") {
            let Some(content) = operation["requestBody"]["content"].as_object() else {
                continue;
            };
            let media_types: Vec<&str> = content.keys().map(String::as_str).collect();
            assert_eq!(media_types.len(), 3, "{method} {path}");
            let json = &content["application/json"];
            let form = &content["application/x-www-form-urlencoded"];
            assert_eq!(&content["multipart/form-data"], form, "{method} {path}");
            assert!(json["example"].is_object(), "{method} {path}");
            assert!(form["example"].is_object(), "{method} {path}");
            // A form has the JSON body's fields but its lists, and no null.
            let fields = |body: &serde_json::Value| -> Vec<String> {
                body["schema"]["properties"]
                    .as_object()
                    .map(|p| p.keys().cloned().collect())
                    .unwrap_or_default()
            };
            let lists: Vec<String> = json["schema"]["properties"]
                .as_object()
                .into_iter()
                .flatten()
                .filter(|(_, schema)| schema["type"] == "array")
                .map(|(name, _)| name.clone())
                .collect();
            let mut expected = fields(json);
            expected.retain(|name| !lists.contains(name));
            // A nested object's keys are spelled `<object>.<key>`, its lists left out.
            let properties = &json["schema"]["properties"];
            let mut spelled = Vec::new();
            expected.retain(|name| {
                let keys = properties[name]["properties"].as_object();
                let nested = properties[name]["type"] == "object";
                for (key, schema) in keys.into_iter().flatten().filter(|_| nested) {
                    if schema["type"] != "array" {
                        spelled.push(format!("{name}.{key}"));
                    }
                }
                !nested
            });
            expected.extend(spelled);
            expected.sort();
            assert_eq!(fields(form), expected, "{method} {path}");
            let text = form.to_string();
            assert!(!text.contains("\"null\""), "{method} {path}: {text}");
            bodies += 1;
        }
    }
    assert_eq!(bodies, 23);
}
