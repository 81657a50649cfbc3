use application::ports::Clock;
use chrono::{SubsecRound, Utc};
use domain::Timestamp;

/// The system's wall clock, truncated to whole seconds (the API's precision).
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> Timestamp {
        Utc::now().trunc_subsecs(0)
    }
}
