//! E-mail addresses: parsed as Django's `EmailValidator` would accept them,
//! stored with the domain part lowercased, compared case-insensitively.

use std::fmt;
use thiserror::Error;

/// The address was not a valid e-mail address.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
#[error("Enter a valid email address.")]
pub struct InvalidEmail;

/// Most characters an address may have (the database column's bound).
pub const MAX_EMAIL_CHARS: usize = 254;

/// A syntactically valid e-mail address, with its domain part lowercased.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct EmailAddress {
    address: String,
}

impl EmailAddress {
    /// Parses and normalises an address as sent by a client.
    pub fn parse(raw: &str) -> Result<Self, InvalidEmail> {
        if raw.chars().count() > MAX_EMAIL_CHARS || raw.chars().any(char::is_whitespace) {
            return Err(InvalidEmail);
        }
        let (local, domain) = raw.rsplit_once('@').ok_or(InvalidEmail)?;
        let domain = domain.to_lowercase();
        if local.is_empty() || !is_valid_domain(&domain) {
            return Err(InvalidEmail);
        }
        let address = format!("{local}@{domain}");
        if !email_address::EmailAddress::is_valid(&address) {
            return Err(InvalidEmail);
        }
        Ok(Self { address })
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

/// Django's rule: `localhost`, or dot-separated labels of letters, digits and
/// inner hyphens ending in a top-level label of at least two characters.
fn is_valid_domain(domain: &str) -> bool {
    if domain == "localhost" {
        return true;
    }
    let labels: Vec<&str> = domain.split('.').collect();
    let Some((top, rest)) = labels.split_last() else {
        return false;
    };
    let label_ok = |label: &str| {
        let len = label.chars().count();
        (1..=63).contains(&len)
            && label.chars().all(|c| c.is_alphanumeric() || c == '-')
            && !label.starts_with('-')
            && !label.ends_with('-')
    };
    !rest.is_empty()
        && rest.iter().all(|label| label_ok(label))
        && top.chars().count() >= 2
        && label_ok(top)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lowercases_the_domain_but_keeps_the_local_part() {
        let email = EmailAddress::parse("Alice.Smith@Example.COM").unwrap();
        assert_eq!(email.as_str(), "Alice.Smith@example.com");
        assert_eq!(email.lookup_key(), "alice.smith@example.com");
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
