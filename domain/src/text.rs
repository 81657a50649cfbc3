//! The rules of free text: names, descriptions, reported facts. The types
//! that follow them are in [`bounded_text`](crate::bounded_text).
//!
//! Lengths count Unicode scalar values, and text is kept exactly as sent.
//! Text that shows nothing counts as blank, and no text may hold the
//! bidirectional controls that make it read otherwise than it is stored.

use std::ops::RangeInclusive;
use thiserror::Error;

/// The characters that show nothing: white space (Unicode's White_Space),
/// control characters (Cc), format characters (Cf, as of Unicode 16), the
/// other default-ignorable code points, and the fillers that render blank.
/// Text made only of these counts as blank.
pub const INVISIBLE: &[RangeInclusive<char>] = &[
    // White space and control characters.
    '\u{0000}'..='\u{0020}',
    '\u{007F}'..='\u{00A0}',
    '\u{1680}'..='\u{1680}',
    '\u{2000}'..='\u{200A}',
    '\u{2028}'..='\u{2029}',
    '\u{202F}'..='\u{202F}',
    '\u{205F}'..='\u{205F}',
    '\u{3000}'..='\u{3000}',
    // Format characters (Cf).
    '\u{00AD}'..='\u{00AD}',
    '\u{0600}'..='\u{0605}',
    '\u{061C}'..='\u{061C}',
    '\u{06DD}'..='\u{06DD}',
    '\u{070F}'..='\u{070F}',
    '\u{0890}'..='\u{0891}',
    '\u{08E2}'..='\u{08E2}',
    '\u{180E}'..='\u{180E}',
    '\u{200B}'..='\u{200F}',
    '\u{202A}'..='\u{202E}',
    '\u{2060}'..='\u{206F}',
    '\u{FEFF}'..='\u{FEFF}',
    '\u{FFF9}'..='\u{FFFB}',
    '\u{110BD}'..='\u{110BD}',
    '\u{110CD}'..='\u{110CD}',
    '\u{13430}'..='\u{1343F}',
    '\u{1BCA0}'..='\u{1BCA3}',
    '\u{1D173}'..='\u{1D17A}',
    // Default-ignorable code points that are not Cf: the combining grapheme
    // joiner, Khmer inherent vowels, Mongolian free variation selectors,
    // variation selectors, reserved U+FFF0–U+FFF8, and the tag and
    // supplementary variation selector block (U+E0000–U+E0FFF).
    '\u{034F}'..='\u{034F}',
    '\u{17B4}'..='\u{17B5}',
    '\u{180B}'..='\u{180D}',
    '\u{180F}'..='\u{180F}',
    '\u{FE00}'..='\u{FE0F}',
    '\u{FFF0}'..='\u{FFF8}',
    '\u{E0000}'..='\u{E0FFF}',
    // Characters that render as nothing: the Hangul fillers and the blank
    // Braille pattern.
    '\u{115F}'..='\u{1160}',
    '\u{3164}'..='\u{3164}',
    '\u{FFA0}'..='\u{FFA0}',
    '\u{2800}'..='\u{2800}',
];

/// The bidirectional embedding, override and isolate controls (LRE, RLE,
/// PDF, LRO, RLO; LRI, RLI, FSI, PDI), refused in all text. The implicit
/// marks (U+200E, U+200F, U+061C) stay allowed: right-to-left writing uses
/// them, and they cannot reorder the text around them.
pub const BIDI_CONTROLS: &[RangeInclusive<char>] =
    &['\u{202A}'..='\u{202E}', '\u{2066}'..='\u{2069}'];

/// Whether `c` shows nothing (see [`INVISIBLE`]).
pub fn is_invisible(c: char) -> bool {
    INVISIBLE.iter().any(|range| range.contains(&c))
}

/// Whether `text` shows nothing: empty, or only [`INVISIBLE`] characters.
pub fn is_blank(text: &str) -> bool {
    text.chars().all(is_invisible)
}

/// Whether `c` is one of the [`BIDI_CONTROLS`].
pub fn is_bidi_control(c: char) -> bool {
    BIDI_CONTROLS.iter().any(|range| range.contains(&c))
}

/// Whether `text` holds any of the [`BIDI_CONTROLS`].
pub fn has_bidi_control(text: &str) -> bool {
    text.chars().any(is_bidi_control)
}

/// Why a piece of text was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
pub enum TextError {
    /// Empty, or only [`INVISIBLE`] characters, where something is needed.
    #[error("may not be blank")]
    Blank,
    /// Longer than allowed.
    #[error("longer than {max} characters")]
    TooLong {
        /// The most characters allowed.
        max: usize,
    },
    /// Holds a NUL character, which no database stores in text.
    #[error("holds a NUL character")]
    Nul,
    /// Holds one of the [`BIDI_CONTROLS`].
    #[error("holds bidirectional control characters")]
    BidiControl,
}

/// The rule one text field follows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TextRule {
    /// Most characters allowed.
    pub max_chars: usize,
    /// Whether blank text (see [`is_blank`]) is allowed.
    pub allow_blank: bool,
}

impl TextRule {
    /// Checks `value` against the rule; on failure, the first problem of:
    /// blank, too long, NUL, bidirectional controls.
    pub fn check(self, value: &str) -> Result<(), TextError> {
        if !self.allow_blank && is_blank(value) {
            return Err(TextError::Blank);
        }
        if value.chars().count() > self.max_chars {
            return Err(TextError::TooLong {
                max: self.max_chars,
            });
        }
        if value.contains('\0') {
            return Err(TextError::Nul);
        }
        if has_bidi_control(value) {
            return Err(TextError::BidiControl);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DEVICE_NAME: TextRule = TextRule {
        max_chars: 100,
        allow_blank: false,
    };
    const DEVICE_DESCRIPTION: TextRule = TextRule {
        max_chars: 1000,
        allow_blank: true,
    };

    #[test]
    fn blank_and_white_space_are_refused_where_needed() {
        assert_eq!(DEVICE_NAME.check(""), Err(TextError::Blank));
        assert_eq!(DEVICE_NAME.check(" \t "), Err(TextError::Blank));
        assert_eq!(DEVICE_DESCRIPTION.check("   "), Ok(()));
    }

    #[test]
    fn length_counts_characters_not_bytes() {
        let hundred_wide = "é".repeat(100);
        assert_eq!(DEVICE_NAME.check(&hundred_wide), Ok(()));
        assert_eq!(
            DEVICE_NAME.check(&format!("{hundred_wide}x")),
            Err(TextError::TooLong { max: 100 })
        );
    }

    #[test]
    fn every_white_space_and_control_character_is_invisible() {
        for c in (char::MIN..=char::MAX).filter(|c| c.is_whitespace() || c.is_control()) {
            assert!(is_invisible(c), "U+{:04X}", u32::from(c));
        }
    }

    #[test]
    fn text_of_invisible_characters_only_is_blank() {
        for name in [
            "\u{200B}\u{200B}\u{200B}",
            "\u{200D}\u{2060}\u{FEFF}",
            "\u{3164}",
            "\u{115F}\u{1160}\u{FFA0}",
            "\u{180E}\u{034F}\u{FE0F}",
            "\u{E0020}\u{E0100}",
            "\u{3000}\u{00A0} \u{2800}",
        ] {
            assert_eq!(DEVICE_NAME.check(name), Err(TextError::Blank), "{name:?}");
        }
        assert_eq!(DEVICE_DESCRIPTION.check("\u{200B}"), Ok(()));
    }

    #[test]
    fn visible_text_with_joiners_and_right_to_left_letters_passes() {
        for name in [
            "👩\u{200D}💻 lab",
            "👩\u{200D}💻",
            "\u{05E9}\u{05DC}\u{05D5}\u{05DD}",
            "\u{0645}\u{0631}\u{062D}\u{0628}\u{0627}",
            "\u{05E9}\u{05E8}\u{05EA} 2\u{200F}",
            "\u{200B}x",
        ] {
            assert_eq!(DEVICE_NAME.check(name), Ok(()), "{name:?}");
        }
    }

    #[test]
    fn bidirectional_controls_are_refused_in_any_text() {
        for control in ('\u{202A}'..='\u{202E}').chain('\u{2066}'..='\u{2069}') {
            let text = format!("abc{control}def");
            assert_eq!(DEVICE_NAME.check(&text), Err(TextError::BidiControl));
            assert_eq!(DEVICE_DESCRIPTION.check(&text), Err(TextError::BidiControl));
        }
        for neighbour in ['\u{2029}', '\u{202F}', '\u{2065}', '\u{206A}', '\u{200E}'] {
            assert!(
                !is_bidi_control(neighbour),
                "U+{:04X}",
                u32::from(neighbour)
            );
        }
    }

    #[test]
    fn a_name_of_bidirectional_controls_alone_is_blank() {
        assert_eq!(DEVICE_NAME.check("\u{202E}"), Err(TextError::Blank));
        assert_eq!(
            DEVICE_DESCRIPTION.check("\u{202E}"),
            Err(TextError::BidiControl)
        );
    }
}
