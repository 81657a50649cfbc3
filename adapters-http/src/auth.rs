//! Recognising `Authorization: Token <token>` (users) and
//! `Authorization: Device <token>` (agents), with DRF's messages.

use crate::error::ApiError;
use actix_web::HttpRequest;
use actix_web::http::header;

/// The credential scheme a route accepts: users' or devices'.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scheme {
    /// `Authorization: Token <api token>`.
    Token,
    /// `Authorization: Device <device token>`.
    Device,
}

impl Scheme {
    /// The keyword, also the `WWW-Authenticate` challenge.
    pub fn keyword(self) -> &'static str {
        match self {
            Self::Token => "Token",
            Self::Device => "Device",
        }
    }

    /// The 401 for a protected route reached without credentials of this scheme.
    pub fn not_provided(self) -> ApiError {
        self.unauthorized("Authentication credentials were not provided.")
    }

    /// The 401 for a token of this scheme that is unknown or has ended.
    pub fn invalid_token(self) -> ApiError {
        self.unauthorized("Invalid token.")
    }

    fn unauthorized(self, detail: &'static str) -> ApiError {
        ApiError::Unauthorized {
            detail,
            challenge: self.keyword(),
        }
    }
}

/// What the `Authorization` header presents.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Presented {
    /// No header, or another scheme than the route's.
    Nothing,
    /// A well-formed token to look up.
    Token(String),
}

/// Reads the header as `scheme` sees it. Malformed headers of that scheme
/// are refused; other schemes count as no credentials.
pub fn presented(req: &HttpRequest, scheme: Scheme) -> Result<Presented, ApiError> {
    let Some(value) = req.headers().get(header::AUTHORIZATION) else {
        return Ok(Presented::Nothing);
    };
    // Nearly always visible ASCII: read in place, without the lossy
    // decoder's pass.
    let text = match value.to_str() {
        Ok(text) => std::borrow::Cow::Borrowed(text),
        Err(_) => String::from_utf8_lossy(value.as_bytes()),
    };
    let mut parts = text.split_whitespace();
    match parts.next() {
        Some(keyword) if keyword.eq_ignore_ascii_case(scheme.keyword()) => {}
        _ => return Ok(Presented::Nothing),
    }
    let Some(token) = parts.next() else {
        return Err(scheme.unauthorized("Invalid token header. No credentials provided."));
    };
    if parts.next().is_some() {
        return Err(
            scheme.unauthorized("Invalid token header. Token string should not contain spaces.")
        );
    }
    if value.to_str().is_err() {
        return Err(scheme.unauthorized(
            "Invalid token header. Token string should not contain invalid characters.",
        ));
    }
    Ok(Presented::Token(token.to_owned()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use actix_web::test::TestRequest;

    fn with_header(value: &str) -> HttpRequest {
        TestRequest::default()
            .insert_header((header::AUTHORIZATION, value))
            .to_http_request()
    }

    #[test]
    fn each_scheme_reads_only_its_own_keyword() {
        let user = with_header("Token abc");
        assert_eq!(
            presented(&user, Scheme::Token).unwrap(),
            Presented::Token("abc".into())
        );
        assert_eq!(
            presented(&user, Scheme::Device).unwrap(),
            Presented::Nothing
        );
        let device = with_header("device xyz");
        assert_eq!(
            presented(&device, Scheme::Device).unwrap(),
            Presented::Token("xyz".into())
        );
        assert_eq!(
            presented(&device, Scheme::Token).unwrap(),
            Presented::Nothing
        );
    }

    #[test]
    fn malformed_headers_are_refused_with_the_schemes_challenge() {
        for value in ["Device", "Device a b"] {
            match presented(&with_header(value), Scheme::Device) {
                Err(ApiError::Unauthorized { challenge, .. }) => assert_eq!(challenge, "Device"),
                other => panic!("{value}: {other:?}"),
            }
        }
    }
}
