//! Matching a request path against a route's pattern segment by segment,
//! without the router's regular expression.
//!
//! A pattern of literal segments and whole-segment `{name}` parameters (every
//! route's) matches exactly what actix's `ResourceDef` matches: a parameter
//! is `[^/]+`, one or more characters that are not `/`, and the pattern
//! covers the whole path. The regular expression costs several times more
//! per route tried, and a request to a device route tries a dozen.

/// Whether `path` matches `pattern`; `None` when the pattern is not made of
/// literal segments and whole-segment parameters without a regular
/// expression of their own, for the router to decide.
pub(crate) fn matches(pattern: &str, path: &str) -> Option<bool> {
    let mut wanted = pattern.split('/');
    let mut given = path.split('/');
    let mut answer = true;
    loop {
        match (wanted.next(), given.next()) {
            (None, None) => return Some(answer),
            (Some(segment), got) => match parameter(segment)? {
                true => answer &= got.is_some_and(|got| !got.is_empty()),
                false => answer &= got == Some(segment),
            },
            (None, Some(_)) => answer = false,
        }
    }
}

/// Whether a pattern's segment is a parameter (`true`) or literal
/// (`false`); `None` for a segment the router must judge: a parameter with
/// its own expression, or braces within a segment.
fn parameter(segment: &str) -> Option<bool> {
    let braces = segment.contains(['{', '}']);
    if !braces {
        return Some(false);
    }
    let name = segment.strip_prefix('{')?.strip_suffix('}')?;
    let plain = !name.is_empty() && !name.contains(['{', '}', ':', '*']);
    plain.then_some(true)
}

#[cfg(test)]
mod tests {
    use super::matches;
    use crate::route_table;
    use actix_web::dev::ResourceDef;

    /// Paths that meet each route's pattern, miss it by a segment, or
    /// differ in ways a regular expression might treat otherwise.
    const PATHS: &[&str] = &[
        "",
        "/",
        "//",
        "/devices/",
        "/devices",
        "/devices//",
        "/devices/abc/",
        "/devices/abc",
        "/devices/abc/reboot/",
        "/devices/abc/reboot",
        "/devices//reboot/",
        "/devices/abc/reboot/x",
        "/devices/abc/commands/",
        "/devices/abc/commands/42/",
        "/devices/a%2Fb/",
        "/devices/select/",
        "/devices/tags/",
        "/devices/ünï/ports/",
        "/agent/commands/",
        "/agent/commands/7/ack/",
        "/agent/commands//ack/",
        "/docs/",
        "/docs/api.md",
        "/docs/api.md/",
        "/docs/a/b",
        "/jobs/1/",
        "/jobs/1/cancel/",
        "/jobs/1/targets/",
        "/verify-email/key/",
        "/verify-email/resend/",
        "/webhooks/9/deliveries/",
        "/console/",
        "/console/devices/abc/",
        "/openapi.json",
        "/health/live/",
        "/metrics",
    ];

    #[test]
    fn every_route_matches_as_the_router_does() {
        for route in route_table::all() {
            let router = ResourceDef::new(route.pattern);
            let ours = |path: &str| matches(route.pattern, path);
            assert!(
                ours(route.pattern).is_some(),
                "{} is left to the router",
                route.pattern
            );
            for path in PATHS.iter().copied().chain([route.pattern]) {
                assert_eq!(
                    ours(path),
                    Some(router.is_match(path)),
                    "{} against {path:?}",
                    route.pattern
                );
            }
        }
    }

    #[test]
    fn parameters_with_an_expression_of_their_own_are_left_to_the_router() {
        assert_eq!(matches("/a/{id:\\d+}/", "/a/1/"), None);
        assert_eq!(matches("/a/x{id}/", "/a/x1/"), None);
        assert_eq!(matches("/a/{tail}*", "/a/b/c"), None);
        assert_eq!(matches("/a/{id}/", "/a/1/"), Some(true));
        assert_eq!(matches("/a/{id}/", "/a/1/2/"), Some(false));
    }
}
