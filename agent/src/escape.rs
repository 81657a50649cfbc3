//! Escaping control characters in text the agent writes out.
//!
//! Text that came from the server (error details, command ids and actions,
//! serials, header values) must not forge log lines or drive the terminal,
//! so every control character — C0 (U+0000–U+001F), DEL (U+007F) and C1
//! (U+0080–U+009F) — is written as an escape: `\n`, `\r`, `\t`, or `\u{1b}`
//! for the others. Backslashes are left alone, so escaping twice changes
//! nothing.
//!
//! The agent's three outputs go through here: every field of its log (see
//! [`escaping_fields`]), the `error: …` line, and (JSON-escaped) its stdout.

use std::borrow::Cow;
use std::fmt::{self, Write};
use tracing_subscriber::field::MakeExt;
use tracing_subscriber::fmt::FormatFields;
use tracing_subscriber::fmt::format::{Writer, debug_fn};

/// Whether `c` is a C0 or C1 control character or DEL.
pub fn is_control(c: char) -> bool {
    // `char::is_control` is the Unicode category Cc: exactly C0, DEL and C1.
    c.is_control()
}

/// A [`fmt::Write`] that passes text on with every control character escaped.
#[derive(Debug)]
pub struct EscapingWriter<W> {
    inner: W,
}

impl<W: Write> EscapingWriter<W> {
    /// Escapes what is written and passes it to `inner`.
    pub fn new(inner: W) -> Self {
        Self { inner }
    }
}

impl<W: Write> Write for EscapingWriter<W> {
    fn write_str(&mut self, text: &str) -> fmt::Result {
        let mut rest = text;
        while let Some(position) = rest.find(is_control) {
            self.inner.write_str(&rest[..position])?;
            let control = rest[position..].chars().next().expect("found a character");
            match control {
                '\n' => self.inner.write_str("\\n")?,
                '\r' => self.inner.write_str("\\r")?,
                '\t' => self.inner.write_str("\\t")?,
                other => write!(self.inner, "{}", other.escape_unicode())?,
            }
            rest = &rest[position + control.len_utf8()..];
        }
        self.inner.write_str(rest)
    }
}

/// Formats `value` with [`Display`](fmt::Display), control characters escaped.
#[derive(Debug, Clone, Copy)]
pub struct Escaped<T>(pub T);

impl<T: fmt::Display> fmt::Display for Escaped<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(EscapingWriter::new(f), "{}", self.0)
    }
}

/// Serialized JSON whose DEL and C1 characters are written as `\u007f`…`\u009f`
/// (serde_json already escapes C0). Such characters can only occur inside
/// JSON strings, where the escape means the same character.
pub fn escape_json_controls(json: &str) -> Cow<'_, str> {
    let is_unescaped = |c: char| ('\u{7f}'..='\u{9f}').contains(&c);
    if !json.contains(is_unescaped) {
        return Cow::Borrowed(json);
    }
    let mut escaped = String::with_capacity(json.len() + 16);
    for c in json.chars() {
        if is_unescaped(c) {
            escaped.push_str(&format!("\\u{:04x}", u32::from(c)));
        } else {
            escaped.push(c);
        }
    }
    Cow::Owned(escaped)
}

/// The log's field formatter: like tracing-subscriber's default
/// (`message` alone, other fields as `name=value`, space-separated) but with
/// every control character of every value escaped.
pub fn escaping_fields() -> impl for<'writer> FormatFields<'writer> + Send + Sync + 'static {
    debug_fn(
        |writer: &mut Writer<'_>, field: &tracing::field::Field, value: &dyn fmt::Debug| {
            let mut escaping = EscapingWriter::new(writer);
            if field.name() == "message" {
                write!(escaping, "{value:?}")
            } else {
                write!(escaping, "{field}={value:?}")
            }
        },
    )
    .delimited(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn escape_controls(text: &str) -> String {
        Escaped(text).to_string()
    }

    #[test]
    fn text_without_controls_is_kept_as_is() {
        let text = "Invalid token. C:\\path é ✓";
        assert_eq!(escape_controls(text), text);
    }

    #[test]
    fn every_c0_c1_and_del_character_is_escaped() {
        for code in (0..0x20).chain([0x7f]).chain(0x80..0xa0) {
            let control = char::from_u32(code).unwrap();
            let escaped = escape_controls(&format!("a{control}b"));
            assert!(!escaped.contains(is_control), "{code:#x}: {escaped:?}");
            assert!(
                escaped.starts_with("a\\") && escaped.ends_with('b'),
                "{escaped}"
            );
        }
        assert_eq!(
            escape_controls("x\ny\r\nz\t\u{1b}[31m\u{7f}\u{85}\u{9b}\0"),
            "x\\ny\\r\\nz\\t\\u{1b}[31m\\u{7f}\\u{85}\\u{9b}\\u{0}"
        );
    }

    #[test]
    fn neighbours_of_the_control_ranges_are_kept() {
        let text = " ~\u{a0}\u{2028}é";
        assert_eq!(escape_controls(text), text);
    }

    #[test]
    fn escaping_twice_changes_nothing() {
        let once = escape_controls("a\n\u{1b}b");
        assert_eq!(escape_controls(&once), once);
    }

    #[test]
    fn the_display_wrapper_escapes_what_it_formats() {
        let error = std::io::Error::other("bad\nforged line");
        assert_eq!(Escaped(&error).to_string(), "bad\\nforged line");
    }

    /// A log destination the test can read back.
    #[derive(Clone, Default)]
    struct Captured(std::sync::Arc<std::sync::Mutex<Vec<u8>>>);

    impl std::io::Write for Captured {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(bytes);
            Ok(bytes.len())
        }

        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn the_log_escapes_every_field_and_the_message() {
        let captured = Captured::default();
        let writer = captured.clone();
        let subscriber = tracing_subscriber::fmt()
            .fmt_fields(escaping_fields())
            .with_writer(move || writer.clone())
            .with_ansi(false)
            .finish();
        tracing::subscriber::with_default(subscriber, || {
            let id = "c1\nINFO forged";
            let error = std::io::Error::other("down\r\n\u{1b}[2J");
            tracing::warn!(id = %id, action = ?"x\u{9b}y", %error, "message {}", "a\nb");
        });
        let log = String::from_utf8(captured.0.lock().unwrap().clone()).unwrap();
        let line = log.strip_suffix('\n').unwrap();
        assert!(!line.contains(is_control), "{log:?}");
        assert!(
            line.ends_with(
                r#"message a\nb id=c1\nINFO forged action="x\u{9b}y" error=down\r\n\u{1b}[2J"#
            ),
            "{log:?}"
        );
    }

    #[test]
    fn json_keeps_its_meaning_with_del_and_c1_escaped() {
        let value = serde_json::json!({"serial": "a\u{7f}\u{85}\u{9b}\u{1b}\n\u{a0}b"});
        let text = serde_json::to_string(&value).unwrap();
        let escaped = escape_json_controls(&text);
        assert!(!escaped.contains(is_control), "{escaped}");
        let back: serde_json::Value = serde_json::from_str(&escaped).unwrap();
        assert_eq!(back, value);
        assert_eq!(escape_json_controls("{\"a\":1}"), "{\"a\":1}");
    }
}
