//! The clock of an in-process server: the system's, moved forward by the test.

use application::ports::Clock;
use chrono::{SubsecRound, Utc};
use domain::Timestamp;
use std::sync::Mutex;
use std::time::Duration;

/// The system clock plus an offset that only grows, in whole seconds like
/// the system clock of `devmgr serve`.
#[derive(Debug, Default)]
pub struct TestClock {
    offset: Mutex<Duration>,
}

impl TestClock {
    /// Moves the clock forward by `by`.
    pub fn advance(&self, by: Duration) {
        *self.offset.lock().expect("the clock's lock") += by;
    }
}

impl Clock for TestClock {
    fn now(&self) -> Timestamp {
        let offset = *self.offset.lock().expect("the clock's lock");
        let offset = chrono::Duration::from_std(offset).expect("a test advances by a sane amount");
        (Utc::now() + offset).trunc_subsecs(0)
    }
}
