//! E-mail addresses: parsed as Django's `EmailValidator` would accept them,
//! stored with the domain part lowercased, compared case-insensitively.

use regex::Regex;
use std::fmt;
use std::sync::LazyLock;
use thiserror::Error;

/// The address was not a valid e-mail address.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
#[error("not a valid e-mail address")]
pub struct InvalidEmail;

/// Most characters an address may have (the database column's bound).
pub const MAX_EMAIL_CHARS: usize = 254;

/// Django's `EmailValidator`, as one regular expression in the dialect that
/// Rust, Python and ECMAScript share (the OpenAPI document publishes it): a
/// dot-atom local part; `localhost`, or labels of letters, digits and inner
/// hyphens ending in a top-level label of 2 to 63 letters.
pub const EMAIL_PATTERN: &str = concat!(
    r"^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*",
    r"@(localhost|([A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z]{2,63})$",
);

static EMAIL: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(EMAIL_PATTERN).expect("EMAIL_PATTERN is a valid expression"));

/// A syntactically valid e-mail address, with its domain part lowercased.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct EmailAddress {
    address: String,
}

impl EmailAddress {
    /// Parses and normalises an address as sent by a client.
    pub fn parse(raw: &str) -> Result<Self, InvalidEmail> {
        if raw.chars().count() > MAX_EMAIL_CHARS || !EMAIL.is_match(raw) {
            return Err(InvalidEmail);
        }
        let (local, domain) = raw.rsplit_once('@').ok_or(InvalidEmail)?;
        Ok(Self {
            address: format!("{local}@{}", domain.to_lowercase()),
        })
    }

    /// Takes an address read back from storage as it is: only parsed
    /// addresses are stored, so it is not checked again (a regular
    /// expression on every authenticated request).
    pub fn from_stored(address: String) -> Self {
        Self { address }
    }

    /// The address as stored and shown.
    pub fn as_str(&self) -> &str {
        &self.address
    }

    /// The key under which addresses are unique: the whole address lowercased.
    pub fn lookup_key(&self) -> String {
        self.address.to_lowercase()
    }
}

impl fmt::Display for EmailAddress {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.address)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lowercases_the_domain_but_keeps_the_local_part() {
        let email = EmailAddress::parse("Alice.Smith@Example.COM").unwrap();
        assert_eq!(email.as_str(), "Alice.Smith@example.com");
        assert_eq!(email.lookup_key(), "alice.smith@example.com");
        let stored = EmailAddress::from_stored(email.as_str().to_owned());
        assert_eq!(stored, email, "an address read back is the address stored");
    }

    #[test]
    fn accepts_common_shapes() {
        for ok in [
            "a@b.co",
            "user+tag@sub.example.org",
            "x@localhost",
            "o'neil@example.ie",
        ] {
            assert!(EmailAddress::parse(ok).is_ok(), "{ok}");
        }
    }

    #[test]
    fn refuses_malformed_addresses() {
        for bad in [
            "",
            "plain",
            "@example.com",
            "user@",
            "user@example",
            "user@-ex.com",
            "user@ex..com",
            "us er@example.com",
            " user@example.com",
            "user@example.c",
            "user@@example.com",
            "0@0.a",
            "a..b@example.com",
            ".a@example.com",
            "a@example.c0m",
            "\"quoted\"@example.com",
        ] {
            assert_eq!(EmailAddress::parse(bad), Err(InvalidEmail), "{bad:?}");
        }
    }

    #[test]
    fn refuses_overlong_addresses() {
        let long = format!("{}@example.com", "a".repeat(250));
        assert_eq!(EmailAddress::parse(&long), Err(InvalidEmail));
    }
}
