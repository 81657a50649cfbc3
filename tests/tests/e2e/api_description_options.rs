//! OPTIONS and `GET /openapi.json` describe every request and response body alike.

use crate::api_description::*;
use crate::support::*;
use serde_json::{Map, Value};
use std::collections::BTreeSet;

/// The JSON Schema a field's OPTIONS `type` stands for.
fn assert_same_type(meta: &Value, schema: &Value, what: &str) {
    let types: Vec<&str> = match &schema["type"] {
        Value::String(t) => vec![t.as_str()],
        Value::Array(ts) => ts.iter().filter_map(Value::as_str).collect(),
        other => panic!("{what}: no type in {other}"),
    };
    let main = types
        .iter()
        .find(|t| **t != "null")
        .copied()
        .unwrap_or("null");
    let format = schema["format"].as_str();
    match meta["type"].as_str().expect("an OPTIONS type") {
        "string" => assert!(main == "string" && format != Some("uri"), "{what}"),
        "email" => {
            assert_eq!(main, "string", "{what}");
            let pattern = schema["pattern"].as_str().expect("an e-mail pattern");
            assert_eq!(pattern, domain::email::EMAIL_PATTERN, "{what}");
        }
        "integer" => assert_eq!(main, "integer", "{what}"),
        "float" => assert_eq!(main, "number", "{what}"),
        "boolean" => assert_eq!(main, "boolean", "{what}"),
        "datetime" => assert!(main == "string" && schema["pattern"].is_string(), "{what}"),
        "url" => assert!(main == "string" && format == Some("uri"), "{what}"),
        "list" => assert_eq!(main, "array", "{what}"),
        "nested object" => assert_eq!(main, "object", "{what}"),
        "choice" => {
            assert_eq!(main, "string", "{what}");
            let values: Vec<&Value> = meta["choices"]
                .as_array()
                .expect("choices")
                .iter()
                .map(|choice| &choice["value"])
                .collect();
            let listed: Vec<&Value> = schema["enum"].as_array().expect("an enum").iter().collect();
            assert_eq!(values, listed, "{what}");
        }
        other => panic!("{what}: unexpected OPTIONS type {other}"),
    }
}

/// Compares one method's OPTIONS `actions` entry with the operation's
/// request body and success response, field by field (nested lists too).
fn assert_fields_agree(
    doc: &Value,
    actions: &Map<String, Value>,
    request: &Value,
    response: Option<&Value>,
    partial: bool,
    what: &str,
) {
    let properties = request["properties"]
        .as_object()
        .cloned()
        .unwrap_or_default();
    let required: BTreeSet<&str> = request["required"]
        .as_array()
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let writable: BTreeSet<&String> = actions
        .iter()
        .filter(|(_, meta)| meta["read_only"] == false)
        .map(|(name, _)| name)
        .collect();
    assert_eq!(
        properties.keys().collect::<BTreeSet<_>>(),
        writable,
        "{what}: the request body's properties are the writable fields"
    );
    for (name, meta) in actions {
        let what = format!("{what} field {name}");
        if meta["read_only"] == true {
            let response = response.unwrap_or_else(|| panic!("{what}: read-only but no response"));
            let shown = &response["properties"][name];
            assert_eq!(shown["readOnly"], true, "{what}");
            assert_eq!(shown["title"], meta["label"], "{what}");
            assert_same_type(meta, shown, &what);
            continue;
        }
        let schema = resolve(doc, &properties[name]);
        assert_same_type(meta, schema, &what);
        assert_eq!(schema["title"], meta["label"], "{what}");
        // A list's `max_length` is its most items.
        let bound = if meta["type"] == "list" {
            "maxItems"
        } else {
            "maxLength"
        };
        assert_eq!(
            schema.get(bound),
            meta.get("max_length"),
            "{what}: max_length"
        );
        let must = meta["required"] == true && !partial;
        assert_eq!(required.contains(name.as_str()), must, "{what}: required");
        if let Some(child) = meta.get("child") {
            match child["children"].as_object() {
                Some(children) => {
                    assert_fields_agree(doc, children, &schema["items"], None, false, &what);
                }
                None => assert_same_type(child, resolve(doc, &schema["items"]), &what),
            }
        }
        if let Some(children) = meta.get("children") {
            let children = children.as_object().expect("children");
            assert_fields_agree(doc, children, schema, None, false, &what);
        }
    }
}

e2e!(options_and_the_document_describe_every_body_alike);
fn options_and_the_document_describe_every_body_alike() {
    let server = Server::start();
    let doc = document(&server);
    let mut compared = 0;
    for (path, _) in DOCUMENTED_OPERATIONS {
        let reply = server.options(&concrete(path)).send();
        reply.expect_status(200);
        let actions = reply.json()["actions"]
            .as_object()
            .cloned()
            .expect("actions");
        for (method, op) in operations(&doc, path) {
            let what = format!("{} {path}", method.to_uppercase());
            let body = op["requestBody"]["content"]["application/json"]["schema"].clone();
            let Some(fields) = actions.get(&method.to_uppercase()) else {
                assert!(body.is_null(), "{what}: a body OPTIONS does not list");
                continue;
            };
            let success = op["responses"]
                .as_object()
                .expect("responses")
                .iter()
                .find(|(status, _)| status.starts_with('2'))
                .map(|(_, response)| resolve(&doc, response).clone())
                .expect("a success response");
            let shown = success["content"]["application/json"]["schema"].clone();
            let response = (!shown.is_null()).then(|| resolve(&doc, &shown).clone());
            assert_fields_agree(
                &doc,
                fields.as_object().expect("fields"),
                resolve(&doc, &body),
                response.as_ref(),
                method == "patch",
                &what,
            );
            compared += 1;
        }
    }
    // Every POST, PUT and PATCH that takes fields: as docs/api.md lists them.
    assert_eq!(compared, 23);
}
