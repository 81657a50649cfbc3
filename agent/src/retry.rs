//! Trying a request again while the server is busy or away (`install`):
//! exponential backoff with jitter, honouring `Retry-After`, within an
//! overall time limit. Hundreds of devices behind one address, throttled
//! together, must not all come back at the same moment, yet all get through.

use std::hash::{BuildHasher, Hasher, RandomState};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// The exponential part of the first wait.
pub const FIRST_DELAY: Duration = Duration::from_secs(1);
/// The exponential part never grows beyond this.
pub const MAX_DELAY: Duration = Duration::from_secs(60);
/// The longest `Retry-After` honoured; a longer one counts as this.
pub const MAX_RETRY_AFTER: Duration = Duration::from_secs(3600);

/// The wait before the next attempt after `failures` failures in a row (at
/// least 1), `fraction` (0 to 1) being the random part:
///
/// - without `Retry-After`: between half and all of 1 s, 2 s, 4 s, … 60 s;
/// - with `Retry-After` (at most an hour honoured): that, plus up to half of
///   the exponential wait, so that clients throttled together spread out.
pub fn retry_delay(failures: u32, retry_after: Option<Duration>, fraction: f64) -> Duration {
    let fraction = if fraction.is_finite() {
        fraction.clamp(0.0, 1.0)
    } else {
        0.0
    };
    let doublings = failures.saturating_sub(1).min(16);
    let exponential = FIRST_DELAY.saturating_mul(1 << doublings).min(MAX_DELAY);
    match retry_after {
        Some(after) => after.min(MAX_RETRY_AFTER) + exponential.mul_f64(fraction / 2.0),
        None => exponential.mul_f64(0.5 + fraction / 2.0),
    }
}

/// A random number from 0 (included) to 1 (excluded), for jitter: std's
/// randomly keyed hasher over the time and process id, no cryptography needed.
pub fn random_fraction() -> f64 {
    let mut hasher = RandomState::new().build_hasher();
    let since_epoch = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default();
    hasher.write_u128(since_epoch.as_nanos());
    hasher.write_u32(std::process::id());
    // The top 53 bits: exactly representable, below 1.
    (hasher.finish() >> 11) as f64 / (1u64 << 53) as f64
}

/// The failures so far and the time left for more attempts.
#[derive(Debug, Clone)]
pub struct RetryBudget {
    deadline: Option<Instant>,
    failures: u32,
}

impl RetryBudget {
    /// Attempts may go on for `limit` from `start`.
    pub fn new(limit: Duration, start: Instant) -> Self {
        Self {
            // Beyond what Instant can hold: no limit in practice.
            deadline: start.checked_add(limit),
            failures: 0,
        }
    }

    /// How many attempts failed.
    pub fn failures(&self) -> u32 {
        self.failures
    }

    /// Counts a failure at `now` and says how long to wait before the next
    /// attempt ([`retry_delay`]); `None` when that wait would end after the
    /// limit: time to give up.
    pub fn next_wait(
        &mut self,
        retry_after: Option<Duration>,
        fraction: f64,
        now: Instant,
    ) -> Option<Duration> {
        self.failures = self.failures.saturating_add(1);
        let wait = retry_delay(self.failures, retry_after, fraction);
        match self.deadline {
            Some(deadline) if now + wait > deadline => None,
            _ => Some(wait),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seconds(value: f64) -> Duration {
        Duration::from_secs_f64(value)
    }

    #[test]
    fn waits_double_from_a_second_to_a_minute_with_jitter_below() {
        for (failures, longest) in [(1, 1.0), (2, 2.0), (3, 4.0), (7, 60.0), (100, 60.0)] {
            assert_eq!(retry_delay(failures, None, 0.0), seconds(longest / 2.0));
            assert_eq!(retry_delay(failures, None, 1.0), seconds(longest));
            let middle = retry_delay(failures, None, 0.5);
            assert!(middle > seconds(longest / 2.0) && middle < seconds(longest));
        }
        assert_eq!(retry_delay(u32::MAX, None, 1.0), MAX_DELAY);
    }

    #[test]
    fn retry_after_is_honoured_and_spread_a_little() {
        let after = Some(Duration::from_secs(1));
        assert_eq!(retry_delay(1, after, 0.0), seconds(1.0));
        assert_eq!(retry_delay(1, after, 1.0), seconds(1.5));
        assert_eq!(retry_delay(3, after, 1.0), seconds(3.0));
        let after = Some(Duration::from_secs(30));
        for fraction in [0.0, 0.3, 0.99] {
            assert!(retry_delay(1, after, fraction) >= Duration::from_secs(30));
        }
        // Even a zero Retry-After waits no less than it says.
        assert_eq!(retry_delay(1, Some(Duration::ZERO), 0.0), Duration::ZERO);
    }

    #[test]
    fn an_absurd_retry_after_counts_as_an_hour() {
        let after = Some(Duration::from_secs(u64::MAX));
        assert_eq!(retry_delay(1, after, 0.0), MAX_RETRY_AFTER);
        assert!(retry_delay(100, after, 1.0) <= MAX_RETRY_AFTER + MAX_DELAY / 2);
    }

    #[test]
    fn a_fraction_out_of_range_is_clamped() {
        assert_eq!(retry_delay(1, None, f64::NAN), seconds(0.5));
        assert_eq!(retry_delay(1, None, -3.0), seconds(0.5));
        assert_eq!(retry_delay(1, None, 7.0), seconds(1.0));
    }

    #[test]
    fn random_fractions_are_below_1_and_vary() {
        let fractions: Vec<f64> = (0..20).map(|_| random_fraction()).collect();
        assert!(fractions.iter().all(|f| (0.0..1.0).contains(f)));
        assert!(fractions.windows(2).any(|pair| pair[0] != pair[1]));
    }

    #[test]
    fn the_budget_gives_up_when_a_wait_would_end_after_the_limit() {
        let start = Instant::now();
        let mut budget = RetryBudget::new(Duration::from_secs(2), start);
        assert_eq!(budget.next_wait(None, 1.0, start), Some(seconds(1.0)));
        let later = start + seconds(1.0);
        // 2 s more would end at 3 s.
        assert_eq!(budget.next_wait(None, 1.0, later), None);
        assert_eq!(budget.failures(), 2);

        let mut budget = RetryBudget::new(Duration::from_secs(2), start);
        assert_eq!(
            budget.next_wait(Some(seconds(2.0)), 0.0, start),
            Some(seconds(2.0))
        );
        let mut budget = RetryBudget::new(Duration::from_secs(2), start);
        assert_eq!(budget.next_wait(Some(seconds(3.0)), 0.0, start), None);
    }

    #[test]
    fn a_zero_budget_allows_no_retry_and_a_huge_one_no_end() {
        let start = Instant::now();
        let mut budget = RetryBudget::new(Duration::ZERO, start);
        assert_eq!(budget.next_wait(None, 0.0, start), None);
        let mut budget = RetryBudget::new(Duration::from_secs(u64::MAX), start);
        assert!(budget.next_wait(None, 0.0, start).is_some());
    }
}
