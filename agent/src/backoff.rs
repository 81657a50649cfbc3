//! Exponential backoff between attempts to reach the server.

use std::time::Duration;

/// The first wait after a failure.
const FIRST_DELAY: Duration = Duration::from_secs(1);

/// Waits of 1 s, 2 s, 4 s, … capped at a maximum; back to 1 s after a success.
#[derive(Debug, Clone)]
pub struct Backoff {
    next: Duration,
    max: Duration,
}

impl Backoff {
    /// A schedule whose waits never exceed `max`.
    pub fn new(max: Duration) -> Self {
        Self {
            next: FIRST_DELAY.min(max),
            max,
        }
    }

    /// The wait after one more failure.
    pub fn next_delay(&mut self) -> Duration {
        let delay = self.next;
        self.next = self.next.saturating_mul(2).min(self.max);
        delay
    }

    /// Starts again from the first wait (after a success).
    pub fn reset(&mut self) {
        self.next = FIRST_DELAY.min(self.max);
    }

    /// The longest wait.
    pub fn max(&self) -> Duration {
        self.max
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seconds(backoff: &mut Backoff, count: usize) -> Vec<u64> {
        (0..count).map(|_| backoff.next_delay().as_secs()).collect()
    }

    #[test]
    fn waits_double_up_to_the_maximum() {
        let mut backoff = Backoff::new(Duration::from_secs(60));
        assert_eq!(seconds(&mut backoff, 9), [1, 2, 4, 8, 16, 32, 60, 60, 60]);
    }

    #[test]
    fn a_success_starts_the_schedule_again() {
        let mut backoff = Backoff::new(Duration::from_secs(60));
        seconds(&mut backoff, 5);
        backoff.reset();
        assert_eq!(seconds(&mut backoff, 3), [1, 2, 4]);
    }

    #[test]
    fn a_small_maximum_caps_every_wait() {
        assert_eq!(
            seconds(&mut Backoff::new(Duration::from_secs(5)), 5),
            [1, 2, 4, 5, 5]
        );
        assert_eq!(
            seconds(&mut Backoff::new(Duration::from_secs(1)), 3),
            [1, 1, 1]
        );
        let mut tiny = Backoff::new(Duration::from_millis(300));
        assert_eq!(tiny.next_delay(), Duration::from_millis(300));
        assert_eq!(tiny.max(), Duration::from_millis(300));
    }
}
