//! How the use cases' refusals read as DRF errors, in one place: the API
//! answers them as JSON, and the console shows the same messages beside
//! its fields.

use crate::error::{ApiError, FieldErrors, NON_FIELD_ERRORS};
use crate::fields::messages::password_problem_messages;
use application::use_cases::{
    ChangePasswordError, ConfirmResetError, LoginError, OldPasswordProblem, RebootError,
    RegisterError, UpdateDeviceError, VerifyEmailError,
};
use serde_json::json;

/// The message of a key that opens nothing.
pub(crate) const INVALID_KEY: &str = "Invalid or expired key.";

impl From<LoginError> for ApiError {
    fn from(error: LoginError) -> Self {
        match error {
            LoginError::InvalidCredentials => ApiError::field(
                NON_FIELD_ERRORS,
                "Unable to log in with provided credentials.",
            ),
            LoginError::EmailNotVerified => {
                ApiError::field(NON_FIELD_ERRORS, "E-mail address is not verified.")
            }
            LoginError::LockedOut { retry_after_secs } => ApiError::Throttled(retry_after_secs),
            LoginError::Store(e) => e.into(),
        }
    }
}

/// The 403 of registering on a server whose registration is closed.
pub(crate) const REGISTRATION_CLOSED: &str = "Registration is closed.";

impl From<RegisterError> for ApiError {
    fn from(error: RegisterError) -> Self {
        match error {
            RegisterError::Closed => ApiError::Forbidden(REGISTRATION_CLOSED),
            RegisterError::DuplicateEmail => {
                ApiError::field("email", "An account with this e-mail already exists.")
            }
            RegisterError::Store(e) => e.into(),
        }
    }
}

impl From<ChangePasswordError> for ApiError {
    fn from(error: ChangePasswordError) -> Self {
        match error {
            ChangePasswordError::Rejected {
                old_password,
                new_password,
            } => {
                let mut errors = FieldErrors::new();
                if let Some(problem) = old_password {
                    let message = match problem {
                        OldPasswordProblem::Missing => "This field is required.",
                        OldPasswordProblem::Wrong => {
                            "Your old password was entered incorrectly. Please enter it again."
                        }
                    };
                    errors.insert("old_password".into(), json!([message]));
                }
                if !new_password.is_empty() {
                    let messages = password_problem_messages(&new_password);
                    errors.insert("new_password".into(), json!(messages));
                }
                ApiError::Validation(errors)
            }
            ChangePasswordError::LockedOut { retry_after_secs } => {
                ApiError::Throttled(retry_after_secs)
            }
            ChangePasswordError::Store(e) => e.into(),
        }
    }
}

impl From<ConfirmResetError> for ApiError {
    fn from(error: ConfirmResetError) -> Self {
        match error {
            ConfirmResetError::Rejected {
                invalid_key,
                new_password,
            } => {
                let mut errors = FieldErrors::new();
                if invalid_key {
                    errors.insert("key".into(), json!([INVALID_KEY]));
                }
                if !new_password.is_empty() {
                    let messages = password_problem_messages(&new_password);
                    errors.insert("new_password".into(), json!(messages));
                }
                ApiError::Validation(errors)
            }
            ConfirmResetError::Store(e) => e.into(),
        }
    }
}

impl From<VerifyEmailError> for ApiError {
    fn from(error: VerifyEmailError) -> Self {
        match error {
            VerifyEmailError::InvalidKey => ApiError::field("key", INVALID_KEY),
            VerifyEmailError::Store(e) => e.into(),
        }
    }
}

impl From<RebootError> for ApiError {
    fn from(error: RebootError) -> Self {
        match error {
            RebootError::NotFound => ApiError::NotFound,
            RebootError::Store(e) => e.into(),
        }
    }
}

impl From<UpdateDeviceError> for ApiError {
    fn from(error: UpdateDeviceError) -> Self {
        match error {
            UpdateDeviceError::NotFound => ApiError::NotFound,
            UpdateDeviceError::Store(e) => e.into(),
        }
    }
}
