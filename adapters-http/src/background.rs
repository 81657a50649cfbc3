//! Work done after the answer is sent.

use std::future::Future;

/// Runs work whose outcome the client must not learn, not even from the
/// answer's timing (whether an address has an account), after answering.
/// Failures are logged.
pub(crate) fn in_background(
    what: &'static str,
    work: impl Future<Output = Result<(), application::StoreError>> + 'static,
) {
    actix_web::rt::spawn(async move {
        if let Err(error) = work.await {
            tracing::error!(%error, what, "background work failed");
        }
    });
}
