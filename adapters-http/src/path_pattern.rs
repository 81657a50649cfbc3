//! Matching a request path against a route's pattern segment by segment,
//! without the router's regular expression.
//!
//! A pattern of literal segments and whole-segment `{name}` parameters (every
//! route's) matches exactly what actix's `ResourceDef` matches: a parameter
//! is `[^/]+`, one or more characters that are not `/`, and the pattern
//! covers the whole path. The regular expression costs several times more
//! per route tried, and a request to a device route tries a dozen.

use actix_web::dev::{Path, Url};

/// A pattern of literal segments and whole-segment parameters, read once.
#[derive(Debug, Clone)]
pub(crate) struct PathPattern {
    segments: Box<[Segment]>,
}

#[derive(Debug, Clone, Copy)]
enum Segment {
    Literal(&'static str),
    Parameter(&'static str),
}

impl PathPattern {
    /// `pattern` read; `None` when it is not made of literal segments and
    /// whole-segment parameters without a regular expression of their own,
    /// for the router to decide.
    pub(crate) fn parse(pattern: &'static str) -> Option<Self> {
        let segments = pattern
            .split('/')
            .map(segment)
            .collect::<Option<Box<[Segment]>>>()?;
        Some(Self { segments })
    }

    /// Whether `path` matches the pattern.
    pub(crate) fn matches(&self, path: &str) -> bool {
        self.matches_split(&SplitPath::new(path))
    }

    /// Whether a path already cut at its slashes matches the pattern.
    pub(crate) fn matches_split(&self, path: &SplitPath<'_>) -> bool {
        let Some(given) = path.segments() else {
            return false;
        };
        given.len() == self.segments.len()
            && self
                .segments
                .iter()
                .zip(given)
                .all(|(wanted, got)| match wanted {
                    Segment::Literal(literal) => got == literal,
                    Segment::Parameter(_) => !got.is_empty(),
                })
    }

    /// The parameters' names and their values in `path`, in order; `None`
    /// when `path` does not match.
    pub(crate) fn parameters<'p>(&self, path: &'p str) -> Option<Vec<(&'static str, &'p str)>> {
        if !self.matches(path) {
            return None;
        }
        let found = self
            .segments
            .iter()
            .zip(path.split('/'))
            .filter_map(|(wanted, value)| match wanted {
                Segment::Parameter(name) => Some((*name, value)),
                Segment::Literal(_) => None,
            });
        Some(found.collect())
    }

    /// Records the parameters' values in the request's match info, and the
    /// path as matched, as actix's router does; `false` (nothing recorded)
    /// when the path does not match.
    pub(crate) fn capture(&self, match_info: &mut Path<Url>) -> bool {
        let path = match_info.unprocessed();
        let Some(found) = self.parameters(path) else {
            return false;
        };
        let matched = u16::try_from(path.len()).unwrap_or(u16::MAX);
        let values: Vec<(&'static str, String)> = found
            .into_iter()
            .map(|(name, value)| (name, value.to_owned()))
            .collect();
        for (name, value) in values {
            match_info.add_static(name, value);
        }
        match_info.skip(matched);
        true
    }
}

/// Whether `path` matches `pattern`; `None` when the pattern is left to the
/// router ([`PathPattern::parse`]).
#[cfg(test)]
fn matches(pattern: &'static str, path: &str) -> Option<bool> {
    PathPattern::parse(pattern).map(|pattern| pattern.matches(path))
}

/// The most segments a path cut once ([`SplitPath`]) keeps: more than any
/// route's pattern has, so a longer path matches none of them.
const MOST_SEGMENTS: usize = 12;

/// A request path cut at its slashes once, to be tried against every
/// route's pattern (a request tries a few dozen) without cutting it again
/// for each.
pub(crate) struct SplitPath<'p> {
    path: &'p str,
    segments: [&'p str; MOST_SEGMENTS],
    /// How many of `segments` the path has; `None` when it has more.
    count: Option<usize>,
}

impl<'p> SplitPath<'p> {
    /// `path` cut at its slashes.
    pub(crate) fn new(path: &'p str) -> Self {
        let mut segments = [""; MOST_SEGMENTS];
        let mut count = Some(0);
        for (index, segment) in path.split('/').enumerate() {
            match segments.get_mut(index) {
                Some(slot) => {
                    *slot = segment;
                    count = Some(index + 1);
                }
                None => {
                    count = None;
                    break;
                }
            }
        }
        Self {
            path,
            segments,
            count,
        }
    }

    /// The whole path.
    pub(crate) fn path(&self) -> &'p str {
        self.path
    }

    /// Its segments; `None` when it has more than any pattern.
    fn segments(&self) -> Option<&[&'p str]> {
        self.count.map(|count| &self.segments[..count])
    }
}

/// A pattern's segment read: a literal or a parameter; `None` for a segment
/// the router must judge: a parameter with its own expression, or braces
/// within a segment.
fn segment(segment: &'static str) -> Option<Segment> {
    if !segment.contains(['{', '}']) {
        return Some(Segment::Literal(segment));
    }
    let name = segment.strip_prefix('{')?.strip_suffix('}')?;
    let plain = !name.is_empty() && !name.contains(['{', '}', ':', '*']);
    plain.then_some(Segment::Parameter(name))
}

#[cfg(test)]
mod tests {
    use super::{Path, PathPattern, Url, matches};
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
        "/devices/a/b/c/d/e/f/g/h/i/j/k/l/m/",
    ];

    #[test]
    fn a_path_cut_once_keeps_more_segments_than_any_route_has() {
        for route in route_table::all() {
            let segments = route.pattern.split('/').count();
            assert!(segments < super::MOST_SEGMENTS, "{}", route.pattern);
        }
        let long = "/a/b/c/d/e/f/g/h/i/j/k/l/";
        assert_eq!(super::SplitPath::new(long).segments(), None);
        assert_eq!(
            super::SplitPath::new("/devices/x/").segments(),
            Some(&["", "devices", "x", ""][..])
        );
    }

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
    fn every_route_captures_its_parameters_as_the_router_does() {
        use actix_web::http::Uri;
        let mut captured = 0;
        for route in route_table::all() {
            let router = ResourceDef::new(route.pattern);
            // The pattern with a value in place of each parameter.
            let filled: String = route
                .pattern
                .split('/')
                .enumerate()
                .map(|(n, segment)| match segment.starts_with('{') {
                    true => format!("v%20{n}"),
                    false => segment.to_owned(),
                })
                .collect::<Vec<_>>()
                .join("/");
            let samples = PATHS.iter().copied().chain([filled.as_str()]);
            for path in samples {
                let Ok(uri) = Uri::try_from(path) else {
                    continue;
                };
                let mut theirs = Path::new(Url::new(uri));
                let mut ours = theirs.clone();
                if !router.capture_match_info(&mut theirs) {
                    assert_eq!(
                        PathPattern::parse(route.pattern)
                            .and_then(|pattern| pattern.parameters(ours.unprocessed())),
                        None,
                        "{path}"
                    );
                    continue;
                }
                route.capture(&mut ours);
                assert_eq!(
                    ours.segment_count(),
                    theirs.segment_count(),
                    "{} {path}",
                    route.pattern
                );
                assert_eq!(
                    ours.unprocessed(),
                    theirs.unprocessed(),
                    "{} {path}",
                    route.pattern
                );
                for name in route.pattern.split('/').filter_map(|s| s.strip_prefix('{')) {
                    let name = name.trim_end_matches('}');
                    assert_eq!(ours.get(name), theirs.get(name), "{} {path}", route.pattern);
                    assert!(ours.get(name).is_some(), "{} {path}", route.pattern);
                    captured += 1;
                }
            }
        }
        assert!(captured > 20, "only {captured} parameters were compared");
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
