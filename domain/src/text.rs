//! Bounded free text: names and descriptions.
//!
//! Lengths count Unicode scalar values, and text is kept exactly as sent.

use thiserror::Error;

/// Why a piece of text was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
pub enum TextError {
    /// Empty, or only white space, where something is needed.
    #[error("This field may not be blank.")]
    Blank,
    /// Longer than allowed.
    #[error("Ensure this field has no more than {max} characters.")]
    TooLong {
        /// The most characters allowed.
        max: usize,
    },
}

/// The rule one text field follows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TextRule {
    /// Most characters allowed.
    pub max_chars: usize,
    /// Whether empty (or all white-space) text is allowed.
    pub allow_blank: bool,
}

impl TextRule {
    /// Checks `value` against the rule, returning it unchanged when it passes.
    pub fn check(self, value: &str) -> Result<(), TextError> {
        if !self.allow_blank && value.trim().is_empty() {
            return Err(TextError::Blank);
        }
        if value.chars().count() > self.max_chars {
            return Err(TextError::TooLong {
                max: self.max_chars,
            });
        }
        Ok(())
    }
}

/// A device's name: 1–100 characters, not blank.
pub const DEVICE_NAME: TextRule = TextRule {
    max_chars: 100,
    allow_blank: false,
};
/// A device's description: 0–1000 characters.
pub const DEVICE_DESCRIPTION: TextRule = TextRule {
    max_chars: 1000,
    allow_blank: true,
};
/// The agent version a device reports: 0–100 characters.
pub const AGENT_VERSION: TextRule = TextRule {
    max_chars: 100,
    allow_blank: true,
};
/// The operating system a device reports: 0–200 characters.
pub const OPERATING_SYSTEM: TextRule = TextRule {
    max_chars: 200,
    allow_blank: true,
};
/// The uname a device reports: 0–1000 characters.
pub const UNAME: TextRule = TextRule {
    max_chars: 1000,
    allow_blank: true,
};
/// An account's display name: 0–150 characters.
pub const PROFILE_NAME: TextRule = TextRule {
    max_chars: 150,
    allow_blank: true,
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blank_and_white_space_are_refused_where_needed() {
        assert_eq!(DEVICE_NAME.check(""), Err(TextError::Blank));
        assert_eq!(DEVICE_NAME.check(" \t "), Err(TextError::Blank));
        assert_eq!(PROFILE_NAME.check("   "), Ok(()));
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
}
