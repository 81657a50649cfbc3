//! UUIDs as identities are written: lowercase and hyphenated (the
//! canonical form), nothing else accepted.

/// `raw` if it is a UUID in its canonical form: lowercase and hyphenated,
/// with no braces or prefix.
pub(crate) fn parse(raw: &str) -> Option<String> {
    uuid::Uuid::try_parse(raw)
        .ok()
        .map(|uuid| uuid.hyphenated().to_string())
        .filter(|canonical| canonical == raw)
}

/// A version-4 UUID made from 16 random bytes, in its canonical form.
pub(crate) fn from_random_bytes(bytes: [u8; 16]) -> String {
    uuid::Builder::from_random_bytes(bytes)
        .into_uuid()
        .hyphenated()
        .to_string()
}

/// Declares an identity made of a canonical UUID: `$name` with `parse`,
/// `from_random_bytes`, `from_stored`, `as_str` and `Display`, and `$error`
/// for text that is not one.
macro_rules! uuid_identity {
    ($(#[$doc:meta])* $name:ident, $(#[$error_doc:meta])* $error:ident, $what:literal) => {
        $(#[$doc])*
        #[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub struct $name(String);

        $(#[$error_doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub struct $error;

        impl std::fmt::Display for $error {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                write!(f, "not a {} id (a lowercase hyphenated UUID)", $what)
            }
        }

        impl std::error::Error for $error {}

        impl $name {
            /// Takes a UUID written in its canonical form only: lowercase and
            /// hyphenated, with no braces or prefix (an id in capitals is refused).
            pub fn parse(raw: &str) -> Result<Self, $error> {
                $crate::canonical_uuid::parse(raw).map(Self).ok_or($error)
            }

            /// Makes an id from 16 random bytes (a version-4 UUID).
            pub fn from_random_bytes(bytes: [u8; 16]) -> Self {
                Self($crate::canonical_uuid::from_random_bytes(bytes))
            }

            /// Takes an id read back from storage as it is: only minted ids are stored.
            pub fn from_stored(id: String) -> Self {
                Self(id)
            }

            /// The canonical text.
            pub fn as_str(&self) -> &str {
                &self.0
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(&self.0)
            }
        }
    };
}

pub(crate) use uuid_identity;
