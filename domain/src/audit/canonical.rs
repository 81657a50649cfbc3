//! RFC 8785 canonical JSON of a value, the text an audit entry's hash is
//! taken of: object keys sorted by their UTF-16 code units, no white space,
//! strings escaped as serde_json escapes them (only `"`, `\` and control
//! characters), integers in full.
//!
//! Written straight into one buffer. The `canon-json` formatter gives the
//! same bytes but gathers every object's members in buffers of their own to
//! sort them, which made it most of the cost of writing an entry; it still
//! writes the rare document with a fraction in it, whose number format
//! RFC 8785 takes from ECMAScript.

use serde::Serialize;
use serde_json::Value;
use std::cmp::Ordering;

/// `value` as RFC 8785 canonical JSON.
pub(super) fn canonical(value: &Value) -> String {
    let mut out = Vec::with_capacity(512);
    if write(&mut out, value).is_none() {
        return with_formatter(value);
    }
    String::from_utf8(out).expect("JSON text is UTF-8")
}

/// Writes `value`; `None` when it holds a number that is not an integer.
fn write(out: &mut Vec<u8>, value: &Value) -> Option<()> {
    match value {
        Value::Null => out.extend_from_slice(b"null"),
        Value::Bool(true) => out.extend_from_slice(b"true"),
        Value::Bool(false) => out.extend_from_slice(b"false"),
        Value::Number(number) => {
            if let Some(n) = number.as_u64() {
                out.extend_from_slice(itoa::Buffer::new().format(n).as_bytes());
            } else {
                let n = number.as_i64()?;
                out.extend_from_slice(itoa::Buffer::new().format(n).as_bytes());
            }
        }
        Value::String(text) => string(out, text),
        Value::Array(items) => {
            out.push(b'[');
            for (index, item) in items.iter().enumerate() {
                if index > 0 {
                    out.push(b',');
                }
                write(out, item)?;
            }
            out.push(b']');
        }
        Value::Object(members) => {
            let mut sorted: Vec<(&String, &Value)> = members.iter().collect();
            sorted.sort_unstable_by(|(a, _), (b, _)| utf16_order(a, b));
            out.push(b'{');
            for (index, (key, member)) in sorted.into_iter().enumerate() {
                if index > 0 {
                    out.push(b',');
                }
                string(out, key);
                out.push(b':');
                write(out, member)?;
            }
            out.push(b'}');
        }
    }
    Some(())
}

/// `text` as a JSON string, escaped as serde_json escapes it.
fn string(out: &mut Vec<u8>, text: &str) {
    serde_json::to_writer(&mut *out, text).expect("a string serializes into memory");
}

/// RFC 8785's order of keys: by UTF-16 code units, which differs from the
/// order of their UTF-8 bytes for characters above U+FFFF.
fn utf16_order(a: &str, b: &str) -> Ordering {
    if a.is_ascii() && b.is_ascii() {
        return a.cmp(b);
    }
    a.encode_utf16().cmp(b.encode_utf16())
}

/// `value` through the `canon-json` formatter.
fn with_formatter(value: &Value) -> String {
    let mut out = Vec::new();
    let mut serializer =
        serde_json::Serializer::with_formatter(&mut out, canon_json::CanonicalFormatter::new());
    value
        .serialize(&mut serializer)
        .expect("a JSON value serializes");
    String::from_utf8(out).expect("JSON text is UTF-8")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Documents with what canonical JSON is particular about.
    fn samples() -> Vec<Value> {
        vec![
            json!(null),
            json!(true),
            json!("plain"),
            json!(0),
            json!(-1),
            json!(i64::MIN),
            json!(u64::MAX),
            json!([]),
            json!({}),
            json!([1, "two", null, false, [], {}]),
            json!({"b": 1, "a": 2, "aa": 3, "A": 4, "": 5, "a b": 6}),
            json!({"z": {"y": [{"x": 1, "w": 2}], "v": "u"}, "t": [[{"s": null}]]}),
            // U+FFFD sorts after U+1F600 by UTF-16 units, before it by bytes.
            json!({"\u{FFFD}": 1, "\u{1F600}": 2, "é": 3, "e": 4, "\u{7F}": 5}),
            json!({"quote\"": "a\"b", "back\\slash": "c\\d", "slash/": "e/f"}),
            json!({"controls": "\u{0}\u{1}\u{8}\u{9}\u{a}\u{b}\u{c}\u{d}\u{1f}\u{7f}"}),
            json!({"\n key": "\u{2028}\u{2029} ünï 😀 <script>&"}),
            json!({
                "id": 12,
                "time": "2026-11-28T07:00:00Z",
                "actor": {"kind": "user", "label": "ana@example.com"},
                "action": "device.reboot",
                "target": "device:pi-1",
                "ip": null,
                "detail": {"command_id": 42, "tags": ["lab", "rack-2"]},
                "previous_hash": "0".repeat(64),
            }),
        ]
    }

    #[test]
    fn writes_what_the_canon_json_formatter_writes() {
        for value in samples() {
            assert_eq!(canonical(&value), with_formatter(&value), "{value}");
        }
    }

    #[test]
    fn a_fraction_is_written_as_rfc_8785_says() {
        let value = json!({"b": 1.5, "a": [1e21, 0.1, -0.0, 100.0]});
        assert_eq!(canonical(&value), with_formatter(&value));
        assert_eq!(canonical(&value), r#"{"a":[1e+21,0.1,0,100],"b":1.5}"#);
    }

    #[test]
    fn keys_are_sorted_by_utf16_code_units() {
        let value = json!({"\u{FFFD}": 1, "\u{1F600}": 2, "b": 3, "a": 4});
        assert_eq!(
            canonical(&value),
            "{\"a\":4,\"b\":3,\"\u{1F600}\":2,\"\u{FFFD}\":1}"
        );
    }
}
