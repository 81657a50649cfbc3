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
    HaltFailureRatio, JobSettings, MAX_WAVE_INTERVAL_SECONDS, MAX_WAVE_SIZE, WaveInterval, WaveSize,
};
pub use status::{JobStatus, TargetCounts, TargetStatus};
pub use waves::{WavePlan, WaveVerdict};

use crate::canonical_uuid;
use std::fmt;
use thiserror::Error;

/// A job's identity: a UUID in its canonical form (lowercase, hyphenated).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct JobId(String);

/// The text was not a job id (a lowercase hyphenated UUID).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
#[error("not a job id (a lowercase hyphenated UUID)")]
pub struct InvalidJobId;

impl JobId {
    /// Takes a UUID written in its canonical form only: lowercase and
    /// hyphenated, with no braces or prefix (an id in capitals is refused).
    pub fn parse(raw: &str) -> Result<Self, InvalidJobId> {
        canonical_uuid::parse(raw).map(Self).ok_or(InvalidJobId)
    }

    /// Makes an id from 16 random bytes (a version-4 UUID).
    pub fn from_random_bytes(bytes: [u8; 16]) -> Self {
        Self(canonical_uuid::from_random_bytes(bytes))
    }

    /// Takes an id read back from storage as it is: only minted ids are stored.
    pub fn from_stored(id: String) -> Self {
        Self(id)
    }

    /// The canonical text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for JobId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl AsRef<str> for JobId {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

#[cfg(test)]
mod tests;
