//! What a console page answers when it cannot do its work: a sign-in page
//! for the signed out, or a page saying what went wrong, never JSON.

use super::chrome::Chrome;
use super::respond::render;
use crate::error::ApiError;
use actix_web::http::StatusCode;
use actix_web::http::header;
use actix_web::{HttpResponse, ResponseError};
use askama::Template;
use std::fmt;

/// Why a console request stopped.
#[derive(Debug)]
pub(crate) enum Failure {
    /// No current session: go and sign in.
    SignedOut,
    /// A form without a valid CSRF token.
    ForgedForm,
    /// No such device (or another account's).
    NotFound,
    /// What the API would answer: shown as a page.
    Api(ApiError),
}

impl From<ApiError> for Failure {
    fn from(error: ApiError) -> Self {
        Failure::Api(error)
    }
}

impl From<application::StoreError> for Failure {
    fn from(error: application::StoreError) -> Self {
        Failure::Api(error.into())
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::SignedOut => f.write_str("signed out"),
            Self::ForgedForm => f.write_str("form without a valid CSRF token"),
            Self::NotFound => f.write_str("not found"),
            Self::Api(error) => error.fmt(f),
        }
    }
}

/// The page of a failure.
#[derive(Template)]
#[template(path = "console/failure.html")]
struct FailurePage {
    chrome: Chrome,
    heading: &'static str,
    message: String,
}

impl ResponseError for Failure {
    fn status_code(&self) -> StatusCode {
        match self {
            Self::SignedOut => StatusCode::FOUND,
            Self::ForgedForm => StatusCode::FORBIDDEN,
            Self::NotFound => StatusCode::NOT_FOUND,
            Self::Api(error) => error.status_code(),
        }
    }

    fn error_response(&self) -> HttpResponse {
        let (heading, message) = match self {
            Self::SignedOut => {
                return HttpResponse::Found()
                    .insert_header((header::LOCATION, "/console/login/"))
                    .insert_header((header::CACHE_CONTROL, "no-store"))
                    .finish();
            }
            Self::ForgedForm => (
                "This form has expired",
                "The form was not sent from this console's page, or the page is out of date. \
                 Go back, reload the page and try again."
                    .to_owned(),
            ),
            Self::NotFound => (
                "Not found",
                "There is no such page, or no such device in your account.".to_owned(),
            ),
            Self::Api(ApiError::Internal(cause)) => {
                tracing::error!(%cause, "console request failed");
                (
                    "Something went wrong",
                    "A server error occurred.".to_owned(),
                )
            }
            Self::Api(error) => ("This did not work", error.message()),
        };
        let page = FailurePage {
            chrome: Chrome::plain(heading),
            heading,
            message,
        };
        render(self.status_code(), &page, None)
    }
}
