//! What the dispatcher does around a route's method besides calling it:
//! rate limits, permissions, its log level, credentials, one view of the
//! store, a long wait.

use super::{Permission, Route};

impl Route {
    /// Marks the last method added as rate limited per client address.
    pub fn throttled(mut self) -> Self {
        if let Some(endpoint) = self.endpoints.last_mut() {
            endpoint.throttled = true;
        }
        self
    }

    /// Refuses the last method added whenever `permission` does.
    pub fn permission(mut self, permission: Permission) -> Self {
        if let Some(endpoint) = self.endpoints.last_mut() {
            endpoint.permission = Some(permission);
        }
        self
    }

    /// Logs the last method added at debug when it succeeds.
    pub fn quiet(mut self) -> Self {
        if let Some(endpoint) = self.endpoints.last_mut() {
            endpoint.quiet = true;
        }
        self
    }

    /// Lets the last method added be called with any credentials, or none:
    /// the dispatcher does not read them.
    pub fn without_credentials(mut self) -> Self {
        if let Some(endpoint) = self.endpoints.last_mut() {
            endpoint.reads_credentials = false;
        }
        self
    }

    /// Marks the last method added as one that waits long for its answer
    /// (a long poll): the dispatcher keeps its request's headers in a map
    /// of their own size, not the one made for any request, while it waits.
    pub fn waits(mut self) -> Self {
        if let Some(endpoint) = self.endpoints.last_mut() {
            endpoint.waits = true;
        }
        self
    }

    /// Lets the last method added read the store in one view
    /// ([`application::view`]): the caller's token and what the method
    /// reads are read in one snapshot, which a write ends. Only for methods
    /// that wait for nothing but the store (not a long poll).
    pub fn in_one_view(mut self) -> Self {
        if let Some(endpoint) = self.endpoints.last_mut() {
            endpoint.one_view = true;
        }
        self
    }
}
