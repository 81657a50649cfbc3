//! Points in time, always UTC, shown the way the API shows them.

use chrono::{DateTime, Datelike, Timelike, Utc};

/// A UTC instant with whole-second precision.
pub type Timestamp = DateTime<Utc>;

/// Formats an instant as the API shows it: `YYYY-MM-DDTHH:MM:SS`, UTC, no zone.
///
/// Listings format two instants per device, so the usual years are written
/// digit by digit instead of through a format string parsed on every call.
pub fn format_api(at: Timestamp) -> String {
    let year = at.year();
    if !(0..=9999).contains(&year) {
        return at.format("%Y-%m-%dT%H:%M:%S").to_string();
    }
    let mut text = String::with_capacity(19);
    let mut push = |value: u32, digits: u32, after: Option<char>| {
        for place in (0..digits).rev() {
            let digit = value / 10_u32.pow(place) % 10;
            text.push(char::from_digit(digit, 10).unwrap_or('0'));
        }
        if let Some(separator) = after {
            text.push(separator);
        }
    };
    push(year.unsigned_abs(), 4, Some('-'));
    push(at.month(), 2, Some('-'));
    push(at.day(), 2, Some('T'));
    push(at.hour(), 2, Some(':'));
    push(at.minute(), 2, Some(':'));
    push(at.second(), 2, None);
    text
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

    #[test]
    fn writes_what_the_format_string_writes() {
        let pattern = "%Y-%m-%dT%H:%M:%S";
        for (y, mo, d, h, mi, s) in [
            (1, 1, 1, 0, 0, 0),
            (999, 12, 31, 23, 59, 59),
            (1970, 1, 1, 0, 0, 0),
            (2026, 11, 27, 9, 10, 11),
            (9999, 12, 31, 23, 59, 59),
            (10000, 1, 1, 0, 0, 0),
            (-5, 6, 7, 8, 9, 10),
        ] {
            let at = Utc.with_ymd_and_hms(y, mo, d, h, mi, s).unwrap();
            assert_eq!(format_api(at), at.format(pattern).to_string(), "{at:?}");
        }
    }
}
