//! Every bounded piece of text devmgr stores, each a type that holds only
//! text its rule accepts (see [`text`](crate::text) for what the rules
//! judge). The limits are written here once; the HTTP API, the command line
//! and the agent take them from these types.

use crate::text::{TextError, TextRule, is_bidi_control};
use std::fmt;
use std::str::FromStr;

/// Text checked against one [`TextRule`], generically.
pub trait BoundedText: Sized + AsRef<str> {
    /// The rule the text follows.
    const RULE: TextRule;

    /// Checks `value` against [`Self::RULE`].
    fn parse(value: impl Into<String>) -> Result<Self, TextError>;
}

macro_rules! bounded_text {
    ($(#[$doc:meta])* $name:ident, max: $max:expr, blank: $blank:expr) => {
        $(#[$doc])*
        #[derive(Debug, Clone, PartialEq, Eq, Hash)]
        pub struct $name(String);

        impl $name {
            /// Most characters (Unicode scalar values) allowed.
            pub const MAX_CHARS: usize = $max;
            /// Whether blank text is allowed.
            pub const ALLOW_BLANK: bool = $blank;

            /// Checks `value` against the rule.
            pub fn parse(value: impl Into<String>) -> Result<Self, TextError> {
                let value = value.into();
                <Self as BoundedText>::RULE.check(&value)?;
                Ok(Self(value))
            }

            /// Takes text read back from storage as it is: only checked
            /// text is ever stored.
            pub fn from_stored(value: String) -> Self {
                Self(value)
            }

            /// The text.
            pub fn as_str(&self) -> &str {
                &self.0
            }

            /// The text, owned.
            pub fn into_string(self) -> String {
                self.0
            }
        }

        impl BoundedText for $name {
            const RULE: TextRule = TextRule {
                max_chars: $max,
                allow_blank: $blank,
            };

            fn parse(value: impl Into<String>) -> Result<Self, TextError> {
                Self::parse(value)
            }
        }

        impl TryFrom<String> for $name {
            type Error = TextError;

            fn try_from(value: String) -> Result<Self, TextError> {
                Self::parse(value)
            }
        }

        impl FromStr for $name {
            type Err = TextError;

            fn from_str(value: &str) -> Result<Self, TextError> {
                Self::parse(value)
            }
        }

        impl PartialEq<str> for $name {
            fn eq(&self, other: &str) -> bool {
                self.0 == other
            }
        }

        impl PartialEq<&str> for $name {
            fn eq(&self, other: &&str) -> bool {
                self.0 == *other
            }
        }

        impl PartialEq<String> for $name {
            fn eq(&self, other: &String) -> bool {
                self.0 == *other
            }
        }

        impl std::ops::Deref for $name {
            type Target = str;

            fn deref(&self) -> &str {
                &self.0
            }
        }

        impl AsRef<str> for $name {
            fn as_ref(&self) -> &str {
                &self.0
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(&self.0)
            }
        }
    };
}

/// Text that may be blank also has an empty value, and any text can be made
/// acceptable by dropping what the rule refuses and cutting it short.
macro_rules! blank_ok_text {
    ($(#[$doc:meta])* $name:ident, max: $max:expr) => {
        bounded_text!($(#[$doc])* $name, max: $max, blank: true);

        impl Default for $name {
            fn default() -> Self {
                Self(String::new())
            }
        }

        impl $name {
            /// `text` made acceptable: NUL and the bidirectional controls
            /// dropped, then cut to [`Self::MAX_CHARS`] characters. For
            /// reporters (the agent) that must never send refused text.
            pub fn cut_to_fit(text: &str) -> Self {
                Self(
                    text.chars()
                        .filter(|&c| c != '\0' && !is_bidi_control(c))
                        .take(Self::MAX_CHARS)
                        .collect(),
                )
            }
        }
    };
}

bounded_text!(
    /// A device's name: 1–100 characters, not blank.
    DeviceName, max: 100, blank: false
);
bounded_text!(
    /// A monitor's name: 1–100 characters, not blank.
    MonitorName, max: 100, blank: false
);
blank_ok_text!(
    /// A device's description: 0–1000 characters.
    DeviceDescription, max: 1000
);
blank_ok_text!(
    /// The agent version a device reports: 0–100 characters.
    AgentVersion, max: 100
);
blank_ok_text!(
    /// The operating system a device reports: 0–200 characters.
    OperatingSystem, max: 200
);
blank_ok_text!(
    /// The uname a device reports: 0–1000 characters.
    Uname, max: 1000
);
blank_ok_text!(
    /// An account's display name: 0–150 characters.
    ProfileName, max: 150
);
blank_ok_text!(
    /// The detail of a command's acknowledgement: 0–1000 characters.
    AckDetail, max: 1000
);
blank_ok_text!(
    /// What listens on a port (a service or process name): 0–64 characters.
    PortName, max: 64
);

#[cfg(test)]
mod tests {
    use super::*;

    /// `T` accepts `max` characters (wide ones too) and refuses one more.
    fn bounded_at<T: BoundedText + fmt::Debug>(max: usize) {
        assert_eq!(T::RULE.max_chars, max);
        assert_eq!(T::parse("é".repeat(max)).unwrap().as_ref(), "é".repeat(max));
        assert_eq!(
            T::parse("x".repeat(max + 1)).unwrap_err(),
            TextError::TooLong { max }
        );
        assert_eq!(T::parse("a\u{202E}b").unwrap_err(), TextError::BidiControl);
        assert_eq!(T::parse("a\0b").unwrap_err(), TextError::Nul);
    }

    #[test]
    fn every_text_is_bounded_at_its_limit() {
        bounded_at::<DeviceName>(100);
        bounded_at::<DeviceDescription>(1000);
        bounded_at::<AgentVersion>(100);
        bounded_at::<OperatingSystem>(200);
        bounded_at::<Uname>(1000);
        bounded_at::<ProfileName>(150);
        bounded_at::<AckDetail>(1000);
        bounded_at::<PortName>(64);
    }

    #[test]
    fn only_a_device_name_may_not_be_blank() {
        assert_eq!(DeviceName::parse("").unwrap_err(), TextError::Blank);
        assert_eq!(
            DeviceName::parse(" \u{200B} ").unwrap_err(),
            TextError::Blank
        );
        assert_eq!(DeviceName::parse(" pi ").unwrap().as_str(), " pi ");
        assert_eq!(DeviceDescription::parse("  ").unwrap().as_str(), "  ");
        assert_eq!(ProfileName::parse("").unwrap(), ProfileName::default());
        assert_eq!(AgentVersion::default().as_str(), "");
    }

    #[test]
    fn parsing_from_a_string_or_str_agrees() {
        let name: DeviceName = "lab pi".parse().unwrap();
        assert_eq!(DeviceName::try_from("lab pi".to_owned()).unwrap(), name);
        assert_eq!(name.to_string(), "lab pi");
        assert!("".parse::<DeviceName>().is_err());
    }

    #[test]
    fn cut_to_fit_drops_what_is_refused_and_cuts_at_the_limit() {
        let uname = Uname::cut_to_fit(&format!("Linux \u{202E}\u{2066}pi\0{}", "é".repeat(2000)));
        assert_eq!(uname.as_str().chars().count(), Uname::MAX_CHARS);
        assert!(uname.as_str().starts_with("Linux piéé"));
        assert_eq!(Uname::parse(uname.as_str()), Ok(uname));
        assert_eq!(PortName::cut_to_fit("sshd").as_str(), "sshd");
        assert_eq!(AckDetail::cut_to_fit("\u{202A}").as_str(), "");
    }
}
