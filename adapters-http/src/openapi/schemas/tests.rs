//! The text patterns of the schemas: they accept what the server accepts.

use super::*;
use regex::Regex;

fn compiled(pattern: &str) -> Regex {
    Regex::new(pattern).expect("a valid pattern")
}

#[test]
fn text_patterns_accept_what_the_server_accepts() {
    let text = compiled(&TEXT_PATTERN);
    let not_blank = compiled(&NOT_BLANK_PATTERN);
    let samples = [
        "",
        "Kitchen Pi",
        "   ",
        "\u{200B}\u{200B}",
        "\u{3164}",
        "\u{E0020}x",
        "👩\u{200D}💻 lab",
        "\u{05E9}\u{05DC}\u{05D5}\u{05DD} \u{200F}",
        "a\u{202E}b",
        "\u{2066}",
        "x\u{2069}",
        "a\0",
        "\0",
        "\u{2800}",
    ];
    for sample in samples {
        let allowed = !sample.contains('\0') && !domain::text::has_bidi_control(sample);
        assert_eq!(text.is_match(sample), allowed, "{sample:?}");
        assert_eq!(
            not_blank.is_match(sample),
            allowed && !domain::text::is_blank(sample),
            "{sample:?}"
        );
    }
}

#[test]
fn only_invisible_characters_beyond_the_basic_plane_slip_through() {
    let not_blank = compiled(&NOT_BLANK_PATTERN);
    for sample in ["\u{E0020}", "\u{1D173}\u{2800}", "\u{110BD}"] {
        assert!(domain::text::is_blank(sample), "{sample:?}");
        assert!(not_blank.is_match(sample), "{sample:?}");
    }
}

#[test]
fn patterns_are_plain_ascii_so_every_regex_dialect_reads_them_alike() {
    for pattern in [TEXT_PATTERN.as_str(), NOT_BLANK_PATTERN.as_str()] {
        assert!(pattern.is_ascii(), "{pattern}");
        assert!(!pattern.contains("\\u{"), "{pattern}");
    }
}
