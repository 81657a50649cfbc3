//! The route table: every resource's routes, in the order paths are
//! matched. It drives the dispatcher, the OPTIONS metadata and the OpenAPI
//! document alike.

use crate::resources::{
    accounts, agent, alerts, audit, auth, devices, docs, enrolment, fleet, health, jobs, monitors,
    password_reset, profile, verification, webhooks,
};
use std::sync::LazyLock;

pub use crate::description::{ReplyBody, Tag};
pub use crate::extract::Access;
pub use crate::route::{Endpoint, Route};

/// Sorted by pattern: a literal segment sorts before a `{param}` (`{` comes
/// after every letter), so `/verify-email/resend/` is matched before
/// `/verify-email/{key}/`.
static ROUTES: LazyLock<Vec<Route>> = LazyLock::new(|| {
    let mut routes: Vec<Route> = [
        agent::routes(),
        alerts::routes(),
        audit::routes(),
        auth::routes(),
        accounts::routes(),
        devices::routes(),
        docs::routes(),
        enrolment::routes(),
        fleet::routes(),
        health::routes(),
        jobs::routes(),
        monitors::routes(),
        profile::routes(),
        password_reset::routes(),
        verification::routes(),
        webhooks::routes(),
    ]
    .into_iter()
    .flatten()
    .collect();
    routes.sort_by_key(|route| route.pattern);
    routes
});

/// Every route, in the order paths are matched.
pub fn all() -> &'static [Route] {
    &ROUTES
}

/// Finds the route for a path.
pub fn find(path: &str) -> Option<&'static Route> {
    let path = crate::path_pattern::SplitPath::new(path);
    ROUTES.iter().find(|route| route.matches(&path))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::auth::Scheme;
    use actix_web::dev::{Path, Url};
    use actix_web::http::Uri;

    /// The route of a path, with the `{param}` values it captures.
    fn route_and_params(path: &str) -> Option<(&'static Route, Vec<(String, String)>)> {
        let route = find(path)?;
        let mut match_info = Path::new(Url::new(Uri::try_from(path).unwrap()));
        route.capture(&mut match_info);
        let params = match_info
            .iter()
            .map(|(name, value)| (name.to_owned(), value.to_owned()))
            .collect();
        Some((route, params))
    }

    #[test]
    fn allow_lists_methods_in_the_contract_order() {
        let profile = find("/profile/").unwrap();
        assert_eq!(profile.allow(), "GET, PUT, PATCH, HEAD, OPTIONS");
        let auth = find("/auth/").unwrap();
        assert_eq!(auth.allow(), "POST, DELETE, OPTIONS");
    }

    #[test]
    fn parameters_are_captured_by_name_and_slashes_matter() {
        let (route, params) = route_and_params("/devices/abc/reboot/").unwrap();
        assert_eq!(route.pattern, "/devices/{serial}/reboot/");
        assert_eq!(params, [("serial".to_owned(), "abc".to_owned())]);
        assert!(find("/devices/abc/reboot").is_none());
        assert!(find("/devices//").is_none());
        assert!(find("/nothing/").is_none());
    }

    #[test]
    fn agent_routes_read_device_credentials_and_the_others_user_tokens() {
        for path in [
            "/agent/heartbeat/",
            "/agent/commands/",
            "/agent/commands/x/ack/",
        ] {
            let route = find(path).unwrap();
            assert_eq!(route.scheme(), Scheme::Device, "{path}");
            assert!(route.is_protected(), "{path}");
        }
        for path in ["/install/", "/devices/", "/auth/"] {
            assert_eq!(find(path).unwrap().scheme(), Scheme::Token, "{path}");
        }
        assert!(!find("/install/").unwrap().is_protected());
        assert_eq!(
            find("/devices/x/").unwrap().allow(),
            "GET, PUT, PATCH, DELETE, HEAD, OPTIONS"
        );
    }

    #[test]
    fn resend_is_never_taken_for_a_key() {
        let (resend, params) = route_and_params("/verify-email/resend/").unwrap();
        assert_eq!(resend.pattern, "/verify-email/resend/");
        assert!(params.is_empty());
        assert_eq!(resend.allow(), "POST, OPTIONS");
        let (link, params) = route_and_params("/verify-email/abc/").unwrap();
        assert_eq!(link.pattern, "/verify-email/{key}/");
        assert_eq!(params, [("key".to_owned(), "abc".to_owned())]);
    }

    #[test]
    fn only_unauthenticated_writes_are_throttled() {
        let mut throttled: Vec<String> = ROUTES
            .iter()
            .flat_map(|r| {
                r.endpoints
                    .iter()
                    .filter(|e| e.throttled)
                    .map(move |e| format!("{} {}", e.method, r.pattern))
            })
            .collect();
        throttled.sort();
        assert_eq!(
            throttled,
            [
                "GET /verify-email/{key}/",
                "POST /auth/",
                "POST /install/",
                "POST /register/",
                "POST /reset-password/",
                "POST /reset-password/confirm/",
                "POST /verify-email/",
                "POST /verify-email/resend/",
            ]
        );
    }

    #[test]
    fn access_comes_from_the_handlers_arguments() {
        let access = |path: &str, method: &str| {
            let route = find(path).unwrap();
            route
                .endpoints
                .iter()
                .find(|e| e.method.as_str() == method)
                .map(|e| e.access)
                .unwrap()
        };
        assert_eq!(access("/devices/", "GET"), Access::User);
        assert_eq!(access("/auth/", "POST"), Access::Public);
        assert_eq!(access("/auth/", "DELETE"), Access::User);
        assert_eq!(access("/agent/heartbeat/", "POST"), Access::Device);
        assert_eq!(access("/reset-password/", "POST"), Access::Public);
    }
}
