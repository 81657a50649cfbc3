//! The API's per-address throttle, for the console's forms that anyone can
//! send (sign-in, registration, password reset): one budget for both.

use crate::error::ApiError;
use crate::state::HttpState;
use actix_web::HttpRequest;

/// 429's error when the address has used up its budget (503's when the
/// budgets cannot be reached).
pub(crate) async fn check(req: &HttpRequest, state: &HttpState) -> Result<(), ApiError> {
    match &state.throttle {
        Some(throttle) => throttle.check(req).await,
        None => Ok(()),
    }
}
