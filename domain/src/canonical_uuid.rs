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
