//! Fleet jobs: one action (a reboot) given to the devices a selector picked,
//! in waves, halting by itself when a wave fails too often.
//!
//! The types here state the rules: which statuses a job and its targets go
//! through, which wave a target belongs to, and what happens once a wave has
//! ended ([`WaveVerdict::decide`]). The job engine in `application` applies
//! them; the stores keep the state.

mod settings;
mod status;
mod waves;

pub use settings::{
    HaltFailureRatio, JobSettings, MAX_WAVE_INTERVAL_SECONDS, MAX_WAVE_SIZE, OutOfBounds,
    WaveInterval, WaveSize,
};
pub use status::{JobStatus, TargetCounts, TargetStatus};
pub use waves::{WavePlan, WaveVerdict};

use crate::canonical_uuid;

canonical_uuid::uuid_identity!(
    /// A job's identity: a UUID in its canonical form (lowercase, hyphenated).
    JobId,
    /// The text was not a job id (a lowercase hyphenated UUID).
    InvalidJobId,
    "job"
);

impl AsRef<str> for JobId {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

#[cfg(test)]
mod tests;
