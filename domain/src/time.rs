//! Points in time, always UTC, shown the way the API shows them.

use chrono::{DateTime, Datelike, Timelike, Utc};

/// A UTC instant with whole-second precision.
pub type Timestamp = DateTime<Utc>;

/// Formats an instant as the API shows it: `YYYY-MM-DDTHH:MM:SS`, UTC, no zone.
pub fn format_api(at: Timestamp) -> String {
    ApiTime::new(at).as_str().to_owned()
}

/// An instant written the way the API shows it, held on the stack: listings
/// write two per device, so the usual years are written digit by digit
/// instead of through a format string parsed on every call, and into no
/// allocation of their own.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ApiTime {
    text: [u8; Self::MAX],
    len: usize,
}

impl ApiTime {
    /// The longest text: a year of up to 6 digits and its sign, as chrono
    /// writes years outside 0–9999.
    const MAX: usize = 26;

    /// Writes `at`.
    pub fn new(at: Timestamp) -> Self {
        let mut time = Self {
            text: [0; Self::MAX],
            len: 0,
        };
        // The fields of the naive time, read once (each of the zoned
        // time's accessors works the offset out again).
        let at = at.naive_utc();
        let year = at.year();
        if !(0..=9999).contains(&year) {
            let text = at.format("%Y-%m-%dT%H:%M:%S").to_string();
            let len = text.len().min(Self::MAX);
            time.text[..len].copy_from_slice(&text.as_bytes()[..len]);
            time.len = len;
            return time;
        }
        let (date, seconds) = (at.date(), at.time().num_seconds_from_midnight());
        let fields = [
            (year.unsigned_abs(), 4, b'-'),
            (date.month(), 2, b'-'),
            (date.day(), 2, b'T'),
            (seconds / 3600, 2, b':'),
            (seconds / 60 % 60, 2, b':'),
            (seconds % 60, 2, 0),
        ];
        for (value, digits, after) in fields {
            for place in (0..digits).rev() {
                time.text[time.len] = b'0' + (value / 10_u32.pow(place) % 10) as u8;
                time.len += 1;
            }
            if after != 0 {
                time.text[time.len] = after;
                time.len += 1;
            }
        }
        time
    }

    /// The text.
    pub fn as_str(&self) -> &str {
        std::str::from_utf8(&self.text[..self.len]).unwrap_or_default()
    }
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
