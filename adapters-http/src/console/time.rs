//! Times as people read them: "3 min ago", with the exact time beside.

use chrono::{DateTime, Utc};

/// How long ago `at` was, seen at `now`: "just now", "42 s ago",
/// "3 min ago", "5 h ago", "2 days ago".
pub(crate) fn ago(at: DateTime<Utc>, now: DateTime<Utc>) -> String {
    let seconds = (now - at).num_seconds().max(0);
    match seconds {
        0..=4 => "just now".to_owned(),
        5..=59 => format!("{seconds} s ago"),
        60..=3599 => format!("{} min ago", seconds / 60),
        3600..=86_399 => format!("{} h ago", seconds / 3600),
        86_400..=172_799 => "1 day ago".to_owned(),
        _ => format!("{} days ago", seconds / 86_400),
    }
}

/// The exact time, for the title beside a relative one.
pub(crate) fn exact(at: DateTime<Utc>) -> String {
    at.format("%Y-%m-%d %H:%M:%S UTC").to_string()
}

/// The machine-readable time of a `<time datetime>` (RFC 3339, UTC).
pub(crate) fn machine(at: DateTime<Utc>) -> String {
    at.format("%Y-%m-%dT%H:%M:%SZ").to_string()
}

/// A moment as a page shows it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub(crate) struct Moment {
    /// `<time datetime>`.
    pub(crate) machine: String,
    /// The relative text.
    pub(crate) ago: String,
    /// The exact time (the element's title).
    pub(crate) exact: String,
}

impl Moment {
    /// `at` seen at `now`.
    pub(crate) fn of(at: DateTime<Utc>, now: DateTime<Utc>) -> Self {
        Self {
            machine: machine(at),
            ago: ago(at, now),
            exact: exact(at),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    #[test]
    fn relative_times_read_naturally() {
        let now = Utc.with_ymd_and_hms(2026, 11, 26, 12, 0, 0).unwrap();
        let before = |s: i64| ago(now - chrono::Duration::seconds(s), now);
        assert_eq!(before(0), "just now");
        assert_eq!(before(42), "42 s ago");
        assert_eq!(before(3 * 60 + 10), "3 min ago");
        assert_eq!(before(5 * 3600), "5 h ago");
        assert_eq!(before(86_400 + 5), "1 day ago");
        assert_eq!(before(3 * 86_400), "3 days ago");
        assert_eq!(ago(now + chrono::Duration::seconds(3), now), "just now");
        assert_eq!(exact(now), "2026-11-26 12:00:00 UTC");
        assert_eq!(machine(now), "2026-11-26T12:00:00Z");
    }
}
