//! Points in time, always UTC, shown the way the API shows them.

use chrono::{DateTime, Utc};

/// A UTC instant with whole-second precision.
pub type Timestamp = DateTime<Utc>;

/// Formats an instant as the API shows it: `YYYY-MM-DDTHH:MM:SS`, UTC, no zone.
pub fn format_api(at: Timestamp) -> String {
    at.format("%Y-%m-%dT%H:%M:%S").to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    #[test]
    fn formats_without_fraction_or_zone() {
        let at = Utc.with_ymd_and_hms(2026, 1, 2, 3, 4, 5).unwrap()
            + chrono::Duration::milliseconds(678);
        assert_eq!(format_api(at), "2026-01-02T03:04:05");
    }
}
