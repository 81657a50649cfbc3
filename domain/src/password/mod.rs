//! The password policy: five rules, every failing one reported, and a
//! length limit that stops all checking.
//!
//! The first four rules are Django's default validators, in Django's order:
//! similarity to the account's attributes, minimum length, common passwords,
//! entirely numeric; the fifth refuses a password of white space alone. The
//! problems read plainly here; the HTTP edge words them as Django does. The rules judge the password's NFKC form, so that fullwidth
//! and other compatibility spellings count as the plain letters and digits
//! they stand for; the password itself is hashed as sent.

mod common;
mod similarity;

use std::fmt;
use unicode_normalization::UnicodeNormalization;

/// Fewest characters a password may have.
pub const MIN_LENGTH: usize = 8;
/// Most characters a password may have, as sent: a longer one is refused
/// before any other rule, and never hashed.
pub const MAX_LENGTH: usize = 4096;
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

impl fmt::Display for Attribute {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Email => "e-mail address",
            Self::Name => "name",
            Self::InstallToken => "install token",
        })
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
    /// Only white space.
    EntirelyWhiteSpace,
    /// Longer than [`MAX_LENGTH`]; reported alone.
    TooLong,
}

impl fmt::Display for PasswordProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::TooSimilar(attribute) => write!(f, "too similar to the {attribute}"),
            Self::TooShort => write!(f, "shorter than {MIN_LENGTH} characters"),
            Self::TooCommon => f.write_str("too common"),
            Self::EntirelyNumeric => f.write_str("only digits"),
            Self::EntirelyWhiteSpace => f.write_str("only white space"),
            Self::TooLong => write!(f, "longer than {MAX_LENGTH} characters"),
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

/// Checks a new password against every rule; on failure, lists each broken
/// rule once (a password over [`MAX_LENGTH`] gets [`PasswordProblem::TooLong`] alone).
pub fn check(password: &str, context: &PasswordContext<'_>) -> Result<(), Vec<PasswordProblem>> {
    if password.chars().count() > MAX_LENGTH {
        return Err(vec![PasswordProblem::TooLong]);
    }
    let password = nfkc(password);
    let mut problems = Vec::new();
    if let Some(attribute) = most_resembled_attribute(&password, context) {
        problems.push(PasswordProblem::TooSimilar(attribute));
    }
    if password.chars().count() < MIN_LENGTH {
        problems.push(PasswordProblem::TooShort);
    }
    if common::is_common(&password) {
        problems.push(PasswordProblem::TooCommon);
    }
    if entirely(&password, char::is_numeric) {
        problems.push(PasswordProblem::EntirelyNumeric);
    }
    if entirely(&password, char::is_whitespace) {
        problems.push(PasswordProblem::EntirelyWhiteSpace);
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems)
    }
}

/// The compatibility-composed form the rules judge.
fn nfkc(text: &str) -> String {
    text.nfkc().collect()
}

/// The first attribute, in Django's order, that the (NFKC) password is too
/// similar to; attributes are compared in their NFKC form too.
fn most_resembled_attribute(password: &str, context: &PasswordContext<'_>) -> Option<Attribute> {
    [
        (Attribute::Email, context.email),
        (Attribute::Name, context.name),
        (Attribute::InstallToken, context.install_token),
    ]
    .into_iter()
    .find(|(_, value)| similarity::too_similar(password, &nfkc(value), MAX_SIMILARITY))
    .map(|(attribute, _)| attribute)
}

/// Whether `text` is not empty and every character of it is `kind`.
fn entirely(text: &str, kind: impl Fn(char) -> bool) -> bool {
    !text.is_empty() && text.chars().all(kind)
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
    fn fullwidth_spellings_count_as_the_plain_ones() {
        assert_eq!(
            check(
                "\u{FF50}\u{FF41}\u{FF53}\u{FF53}\u{FF57}\u{FF4F}\u{FF52}\u{FF44}",
                &CONTEXT
            ),
            Err(vec![PasswordProblem::TooCommon])
        );
        assert_eq!(
            check(
                "\u{FF18}\u{FF14}\u{FF17}\u{FF13}\u{FF16}\u{FF12}\u{FF19}\u{FF11}\u{FF10}\u{FF15}\u{FF17}",
                &CONTEXT
            ),
            Err(vec![PasswordProblem::EntirelyNumeric])
        );
        // NFKC turns the ligature "\u{FB03}" into three letters: long enough.
        assert_eq!(check("\u{FB03}xq7#Lz", &CONTEXT), Ok(()));
    }

    #[test]
    fn white_space_alone_is_refused() {
        assert_eq!(
            check("        ", &CONTEXT),
            Err(vec![PasswordProblem::EntirelyWhiteSpace])
        );
        assert_eq!(
            check(
                "\u{3000}\u{3000}\u{3000}\u{3000}\u{00A0}\t\n\u{2003}",
                &CONTEXT
            ),
            Err(vec![PasswordProblem::EntirelyWhiteSpace])
        );
        assert_eq!(
            check("   ", &CONTEXT),
            Err(vec![
                PasswordProblem::TooShort,
                PasswordProblem::EntirelyWhiteSpace
            ])
        );
        assert_eq!(check("  correct horse  battery  ", &CONTEXT), Ok(()));
    }

    #[test]
    fn the_length_limit_is_checked_first_and_alone() {
        let longest = "k".repeat(MAX_LENGTH);
        assert_eq!(check(&longest, &CONTEXT), Ok(()));
        let one_more = format!("{longest}k");
        assert_eq!(
            check(&one_more, &CONTEXT),
            Err(vec![PasswordProblem::TooLong])
        );
        let numeric = "7".repeat(MAX_LENGTH + 1);
        assert_eq!(
            check(&numeric, &CONTEXT),
            Err(vec![PasswordProblem::TooLong])
        );
    }

    #[test]
    fn problems_read_plainly() {
        assert_eq!(
            PasswordProblem::TooShort.to_string(),
            "shorter than 8 characters"
        );
        assert_eq!(
            PasswordProblem::TooSimilar(Attribute::Email).to_string(),
            "too similar to the e-mail address"
        );
        assert_eq!(
            PasswordProblem::TooLong.to_string(),
            "longer than 4096 characters"
        );
    }
}
