//! When a failed delivery is tried again: 1 s after the first failure, then
//! 2, 4, 8 … s (at most an hour) after each one, until 24 h have passed
//! since the event.

use crate::time::Timestamp;
use chrono::Duration;

/// The longest wait between two attempts, in seconds.
pub const MAX_RETRY_DELAY_SECONDS: i64 = 3600;

/// How long after its event a delivery is given up.
pub const DELIVERY_GIVE_UP_AFTER: Duration = Duration::hours(24);

/// When the next attempt goes, after `failures` failed attempts (≥ 1), the
/// last at `now`, of a delivery whose event happened at `event_time`; `None`
/// when that would be more than 24 h after the event (the delivery fails).
pub fn next_attempt_time(
    failures: u32,
    now: Timestamp,
    event_time: Timestamp,
) -> Option<Timestamp> {
    let exponent = failures.saturating_sub(1).min(12);
    let delay = (1_i64 << exponent).min(MAX_RETRY_DELAY_SECONDS);
    let next = now + Duration::seconds(delay);
    (next - event_time <= DELIVERY_GIVE_UP_AFTER).then_some(next)
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::{TimeZone, Utc};

    fn at(second: i64) -> Timestamp {
        Utc.with_ymd_and_hms(2026, 1, 1, 0, 0, 0).unwrap() + Duration::seconds(second)
    }

    #[test]
    fn waits_double_from_one_second_up_to_an_hour() {
        let waits: Vec<i64> = (1..=14)
            .map(|failures| {
                (next_attempt_time(failures, at(100), at(0)).unwrap() - at(100)).num_seconds()
            })
            .collect();
        assert_eq!(
            waits,
            [
                1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 3600, 3600
            ]
        );
    }

    #[test]
    fn gives_up_once_the_next_attempt_would_pass_a_day_after_the_event() {
        let day = 86_400;
        assert_eq!(next_attempt_time(20, at(day - 3600), at(0)), Some(at(day)));
        assert_eq!(next_attempt_time(20, at(day - 3599), at(0)), None);
    }
}
