//! Recognising `Authorization: Token <token>`, with DRF's messages.

use crate::error::ApiError;
use actix_web::HttpRequest;
use actix_web::http::header;

/// What the `Authorization` header presents.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Presented {
    /// No header, or another scheme than `Token`.
    Nothing,
    /// A well-formed token to look up.
    Token(String),
}

/// Reads the header. Malformed `Token` headers are refused on every route.
pub fn presented_token(req: &HttpRequest) -> Result<Presented, ApiError> {
    let Some(value) = req.headers().get(header::AUTHORIZATION) else {
        return Ok(Presented::Nothing);
    };
    let text = String::from_utf8_lossy(value.as_bytes());
    let mut parts = text.split_whitespace();
    match parts.next() {
        Some(keyword) if keyword.eq_ignore_ascii_case("token") => {}
        _ => return Ok(Presented::Nothing),
    }
    let Some(token) = parts.next() else {
        return Err(ApiError::Unauthorized(
            "Invalid token header. No credentials provided.",
        ));
    };
    if parts.next().is_some() {
        return Err(ApiError::Unauthorized(
            "Invalid token header. Token string should not contain spaces.",
        ));
    }
    if value.to_str().is_err() {
        return Err(ApiError::Unauthorized(
            "Invalid token header. Token string should not contain invalid characters.",
        ));
    }
    Ok(Presented::Token(token.to_owned()))
}

/// The 401 for a protected route reached without credentials.
pub fn not_provided() -> ApiError {
    ApiError::Unauthorized("Authentication credentials were not provided.")
}

/// The 401 for a token that is unknown or deleted.
pub fn invalid_token() -> ApiError {
    ApiError::Unauthorized("Invalid token.")
}
