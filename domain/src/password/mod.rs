//! The password policy: four rules, every failing one reported.
//!
//! The rules and their messages are Django's default validators, in Django's
//! order: similarity to the account's attributes, minimum length, common
//! passwords, entirely numeric.

mod common;
mod similarity;

use std::fmt;

/// Fewest characters a password may have.
pub const MIN_LENGTH: usize = 8;
/// Similarity ratio at or above which a password is refused.
pub const MAX_SIMILARITY: f64 = 0.7;

/// An account attribute a password must not resemble.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Attribute {
    /// The e-mail address.
    Email,
    /// The display name.
    Name,
    /// The install token.
    InstallToken,
}

impl Attribute {
    fn verbose_name(self) -> &'static str {
        match self {
            Self::Email => "email address",
            Self::Name => "name",
            Self::InstallToken => "install token",
        }
    }
}

/// One rule a password broke.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PasswordProblem {
    /// Too close to one of the account's attributes.
    TooSimilar(Attribute),
    /// Shorter than [`MIN_LENGTH`].
    TooShort,
    /// Among the most common passwords.
    TooCommon,
    /// Only digits.
    EntirelyNumeric,
}

impl fmt::Display for PasswordProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::TooSimilar(attribute) => write!(
                f,
                "The password is too similar to the {}.",
                attribute.verbose_name()
            ),
            Self::TooShort => write!(
                f,
                "This password is too short. It must contain at least {MIN_LENGTH} characters."
            ),
            Self::TooCommon => f.write_str("This password is too common."),
            Self::EntirelyNumeric => f.write_str("This password is entirely numeric."),
        }
    }
}

/// The account attributes a new password is compared with.
#[derive(Debug, Clone, Copy)]
pub struct PasswordContext<'a> {
    /// The account's e-mail address.
    pub email: &'a str,
    /// The account's display name (may be empty).
    pub name: &'a str,
    /// The account's install token.
    pub install_token: &'a str,
}

/// Checks a new password against every rule; on failure, lists each broken rule once.
pub fn check(password: &str, context: &PasswordContext<'_>) -> Result<(), Vec<PasswordProblem>> {
    let mut problems = Vec::new();
    let attributes = [
        (Attribute::Email, context.email),
        (Attribute::Name, context.name),
        (Attribute::InstallToken, context.install_token),
    ];
    if let Some((attribute, _)) = attributes
        .iter()
        .find(|(_, value)| similarity::too_similar(password, value, MAX_SIMILARITY))
    {
        problems.push(PasswordProblem::TooSimilar(*attribute));
    }
    if password.chars().count() < MIN_LENGTH {
        problems.push(PasswordProblem::TooShort);
    }
    if common::is_common(password) {
        problems.push(PasswordProblem::TooCommon);
    }
    if !password.is_empty() && password.chars().all(|c| c.is_numeric()) {
        problems.push(PasswordProblem::EntirelyNumeric);
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CONTEXT: PasswordContext<'static> = PasswordContext {
        email: "alice.smith@example.com",
        name: "Alice Smith",
        install_token: "k3x9q2m8v7b6n5c4z1a0s9d8f7g6h5j4",
    };

    #[test]
    fn a_strong_password_passes() {
        assert_eq!(check("correct-horse-battery-42", &CONTEXT), Ok(()));
    }

    #[test]
    fn reports_every_failing_rule_once() {
        assert_eq!(
            check("123", &CONTEXT),
            Err(vec![
                PasswordProblem::TooShort,
                PasswordProblem::TooCommon,
                PasswordProblem::EntirelyNumeric
            ])
        );
    }

    #[test]
    fn long_numeric_and_common_are_separate_rules() {
        assert_eq!(
            check("84736291057", &CONTEXT),
            Err(vec![PasswordProblem::EntirelyNumeric])
        );
        assert_eq!(
            check("PassWord1", &CONTEXT),
            Err(vec![PasswordProblem::TooCommon])
        );
    }

    #[test]
    fn similar_to_each_attribute() {
        assert_eq!(
            check("alicesmith@example", &CONTEXT),
            Err(vec![PasswordProblem::TooSimilar(Attribute::Email)])
        );
        let named = PasswordContext {
            name: "Bartholomew Quinn",
            ..CONTEXT
        };
        assert_eq!(
            check("Bartholomew!", &named),
            Err(vec![PasswordProblem::TooSimilar(Attribute::Name)])
        );
        assert_eq!(
            check("k3x9q2m8v7b6n5c4z1a0s9", &CONTEXT),
            Err(vec![PasswordProblem::TooSimilar(Attribute::InstallToken)])
        );
    }

    #[test]
    fn messages_are_djangos() {
        assert_eq!(
            PasswordProblem::TooShort.to_string(),
            "This password is too short. It must contain at least 8 characters."
        );
        assert_eq!(
            PasswordProblem::TooSimilar(Attribute::Email).to_string(),
            "The password is too similar to the email address."
        );
    }
}
