//! A form's errors as the page shows them: each field's messages beside
//! it, the rest above the form. They are the API's own messages.

use crate::error::{ApiError, NON_FIELD_ERRORS, collect_strings};
use actix_web::ResponseError;
use actix_web::http::StatusCode;
use std::collections::BTreeMap;

/// The errors of a sent form.
#[derive(Debug, Default)]
pub(crate) struct Shown {
    fields: BTreeMap<String, Vec<String>>,
    general: Vec<String>,
}

impl Shown {
    /// No errors.
    pub(crate) fn none() -> Self {
        Self::default()
    }

    /// The errors of an API refusal that a person can act on; `Err` for
    /// the rest (not found, a failure), which make a page of their own.
    pub(crate) fn of(error: ApiError) -> Result<Self, ApiError> {
        let mut shown = Self::default();
        match error {
            ApiError::Validation(errors) => {
                for (field, messages) in errors {
                    let mut texts = Vec::new();
                    collect_strings(&messages, &mut texts);
                    if field == NON_FIELD_ERRORS {
                        shown.general.extend(texts);
                    } else {
                        shown.fields.insert(field, texts);
                    }
                }
            }
            error @ (ApiError::Throttled(_)
            | ApiError::Busy
            | ApiError::Unavailable
            | ApiError::Forbidden(_)) => {
                shown.general.push(error.message());
            }
            other => return Err(other),
        }
        Ok(shown)
    }

    /// An API refusal as the page shows it, with the status the API answers.
    pub(crate) fn refusal(error: ApiError) -> Result<(Self, StatusCode), ApiError> {
        let status = error.status_code();
        Ok((Self::of(error)?, status))
    }

    /// Adds a message beside `field`.
    pub(crate) fn add(&mut self, field: &str, message: &str) {
        self.fields
            .entry(field.to_owned())
            .or_default()
            .push(message.to_owned());
    }

    /// Adds a message of no field.
    pub(crate) fn add_general(&mut self, message: &str) {
        self.general.push(message.to_owned());
    }

    /// The messages of `field`.
    pub(crate) fn field(&self, field: &str) -> &[String] {
        self.fields.get(field).map_or(&[], Vec::as_slice)
    }

    /// Whether `field` has messages.
    pub(crate) fn has(&self, field: &str) -> bool {
        !self.field(field).is_empty()
    }

    /// Messages of no field.
    pub(crate) fn general_messages(&self) -> &[String] {
        &self.general
    }
}
