//! DRF's and Django's wording of the domain's refusals. The domain says
//! plainly what is wrong; clients of the API (and of the command line, which
//! shows the same words) read these messages, byte for byte as DRF writes them.

use domain::password::{self, Attribute, PasswordProblem};
use domain::text::TextError;
use serde_json::Value;

/// DRF `UUIDField`'s message for text that is not a UUID.
pub const INVALID_UUID: &str = "Must be a valid UUID.";

/// Django `EmailValidator`'s message for text that is not an address.
pub const INVALID_EMAIL: &str = "Enter a valid email address.";

/// The message for text that is no tag, even lowercased.
pub const INVALID_TAG: &str = "Enter a valid tag: 1 to 40 characters from a-z, 0-9, \".\", \"_\", \":\" and \"-\", beginning with a letter or digit.";

/// The message for a list of more distinct tags than a device carries.
pub fn too_many_tags() -> String {
    format!(
        "Ensure this field has no more than {} elements.",
        domain::tag::MAX_TAGS
    )
}

/// The name DRF's message gives a JSON value's type (Python's type names).
pub fn python_type_name(value: &Value) -> &'static str {
    match value {
        Value::Array(_) => "list",
        Value::String(_) => "str",
        Value::Bool(_) => "bool",
        Value::Number(n) if n.is_f64() => "float",
        Value::Number(_) => "int",
        Value::Null => "NoneType",
        Value::Object(_) => "dict",
    }
}

/// DRF's wording of a domain text problem.
pub fn text_error_message(error: TextError) -> String {
    match error {
        TextError::Blank => "This field may not be blank.".to_owned(),
        TextError::TooLong { max } => {
            format!("Ensure this field has no more than {max} characters.")
        }
        TextError::Nul => "Null characters are not allowed.".to_owned(),
        TextError::BidiControl => "Bidirectional control characters are not allowed.".to_owned(),
    }
}

/// Django's name of an account attribute, as its similarity message says it.
fn verbose_name(attribute: Attribute) -> &'static str {
    match attribute {
        Attribute::Email => "email address",
        Attribute::Name => "name",
        Attribute::InstallToken => "install token",
    }
}

/// Django's password validators' wording of a broken rule (and DRF's of a
/// password over the length limit).
pub fn password_problem_message(problem: PasswordProblem) -> String {
    match problem {
        PasswordProblem::TooSimilar(attribute) => format!(
            "The password is too similar to the {}.",
            verbose_name(attribute)
        ),
        PasswordProblem::TooShort => format!(
            "This password is too short. It must contain at least {} characters.",
            password::MIN_LENGTH
        ),
        PasswordProblem::TooCommon => "This password is too common.".to_owned(),
        PasswordProblem::EntirelyNumeric => "This password is entirely numeric.".to_owned(),
        PasswordProblem::EntirelyWhiteSpace => "This password is entirely white space.".to_owned(),
        PasswordProblem::TooLong => text_error_message(TextError::TooLong {
            max: password::MAX_LENGTH,
        }),
    }
}

/// The messages of every broken password rule, in the order reported.
pub fn password_problem_messages(problems: &[PasswordProblem]) -> Vec<String> {
    problems
        .iter()
        .map(|problem| password_problem_message(*problem))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn password_messages_are_djangos() {
        assert_eq!(
            password_problem_messages(&[
                PasswordProblem::TooSimilar(Attribute::Email),
                PasswordProblem::TooShort,
                PasswordProblem::TooCommon,
                PasswordProblem::EntirelyNumeric,
                PasswordProblem::EntirelyWhiteSpace,
                PasswordProblem::TooLong,
            ]),
            [
                "The password is too similar to the email address.",
                "This password is too short. It must contain at least 8 characters.",
                "This password is too common.",
                "This password is entirely numeric.",
                "This password is entirely white space.",
                "Ensure this field has no more than 4096 characters.",
            ]
        );
        assert_eq!(
            password_problem_message(PasswordProblem::TooSimilar(Attribute::InstallToken)),
            "The password is too similar to the install token."
        );
    }

    #[test]
    fn text_messages_are_drfs() {
        assert_eq!(
            text_error_message(TextError::TooLong { max: 100 }),
            "Ensure this field has no more than 100 characters."
        );
        assert_eq!(
            text_error_message(TextError::Blank),
            "This field may not be blank."
        );
        assert_eq!(
            text_error_message(TextError::BidiControl),
            "Bidirectional control characters are not allowed."
        );
    }
}
