//! JSON text written by hand, for the answers a listing repeats a thousand
//! times: serde_json looks at every byte of every string to escape it,
//! which was an eighth of a 1,000-device listing's time; most strings need
//! no escape, and are told so a block of bytes at a time.

/// Appends `text` as a JSON string, escaped exactly as serde_json escapes
/// it: `"` and `\` with a backslash, `\b \f \n \r \t` by name, the other
/// control characters as `\u00xx`, everything else as it is.
pub(crate) fn push_string(out: &mut Vec<u8>, text: &str) {
    push_joined(out, &[text]);
}

/// Appends the concatenation of `parts` as one JSON string (a URL from its
/// pieces, without putting them together first).
pub(crate) fn push_joined(out: &mut Vec<u8>, parts: &[&str]) {
    out.push(b'"');
    for part in parts {
        if needs_escape(part.as_bytes()) {
            push_escaped(out, part.as_bytes());
        } else {
            out.extend_from_slice(part.as_bytes());
        }
    }
    out.push(b'"');
}

/// Appends `text`, or `null`.
pub(crate) fn push_optional_string(out: &mut Vec<u8>, text: Option<&str>) {
    match text {
        Some(text) => push_string(out, text),
        None => out.extend_from_slice(b"null"),
    }
}

/// Appends an integer.
pub(crate) fn push_integer(out: &mut Vec<u8>, value: impl itoa::Integer) {
    out.extend_from_slice(itoa::Buffer::new().format(value).as_bytes());
}

/// Appends an integer, or `null`.
pub(crate) fn push_optional_integer(out: &mut Vec<u8>, value: Option<i64>) {
    match value {
        Some(value) => push_integer(out, value),
        None => out.extend_from_slice(b"null"),
    }
}

/// Appends `true` or `false`.
pub(crate) fn push_bool(out: &mut Vec<u8>, value: bool) {
    out.extend_from_slice(if value { b"true" } else { b"false" });
}

fn must_escape(byte: u8) -> bool {
    byte < 0x20 || byte == b'"' || byte == b'\\'
}

/// Whether any byte must be escaped, looked at 16 bytes at a time (a loop
/// without an early exit, which the compiler turns into vector compares).
fn needs_escape(bytes: &[u8]) -> bool {
    let mut blocks = bytes.chunks_exact(16);
    for block in &mut blocks {
        if block
            .iter()
            .fold(false, |found, &byte| found | must_escape(byte))
        {
            return true;
        }
    }
    blocks.remainder().iter().any(|&byte| must_escape(byte))
}

fn push_escaped(out: &mut Vec<u8>, bytes: &[u8]) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    for &byte in bytes {
        match byte {
            b'"' => out.extend_from_slice(b"\\\""),
            b'\\' => out.extend_from_slice(b"\\\\"),
            0x08 => out.extend_from_slice(b"\\b"),
            0x0c => out.extend_from_slice(b"\\f"),
            b'\n' => out.extend_from_slice(b"\\n"),
            b'\r' => out.extend_from_slice(b"\\r"),
            b'\t' => out.extend_from_slice(b"\\t"),
            byte if byte < 0x20 => out.extend_from_slice(&[
                b'\\',
                b'u',
                b'0',
                b'0',
                HEX[usize::from(byte >> 4)],
                HEX[usize::from(byte & 0xf)],
            ]),
            byte => out.push(byte),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn written(text: &str) -> String {
        let mut out = Vec::new();
        push_string(&mut out, text);
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn every_character_below_128_is_written_as_serde_json_writes_it() {
        for byte in 0_u8..128 {
            let text = char::from(byte).to_string();
            assert_eq!(written(&text), serde_json::to_string(&text).unwrap());
            // Also where it falls in a block of 16 and after it.
            let long = format!("{}{text}{}", "a".repeat(15), "b".repeat(20));
            assert_eq!(written(&long), serde_json::to_string(&long).unwrap());
        }
    }

    #[test]
    fn text_beyond_ascii_and_long_text_are_written_as_serde_json_writes_them() {
        for text in [
            "",
            "plain",
            "Küche \u{1F600} \u{7f} \u{2028}",
            &"x".repeat(100),
            &format!("{}\"{}", "y".repeat(47), "z".repeat(3)),
        ] {
            assert_eq!(written(text), serde_json::to_string(text).unwrap());
        }
    }

    #[test]
    fn joined_parts_make_one_string() {
        let mut out = Vec::new();
        push_joined(&mut out, &["http://h\"", "/devices/", "x", "/"]);
        assert_eq!(out, br#""http://h\"/devices/x/""#);
    }

    #[test]
    fn numbers_null_and_booleans() {
        let mut out = Vec::new();
        push_integer(&mut out, -42_i64);
        push_optional_integer(&mut out, None);
        push_optional_string(&mut out, None);
        push_bool(&mut out, true);
        push_bool(&mut out, false);
        assert_eq!(out, b"-42nullnulltruefalse");
    }
}
