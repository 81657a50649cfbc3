//! Waves: which wave a target is in, and what a wave's end leads to.

use super::settings::{HaltFailureRatio, WaveSize};
use super::status::TargetCounts;

/// How a job's targets split into waves: target `i` (from 0) is in wave
/// `i / wave_size + 1`; without a wave size, every target is in wave 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WavePlan {
    /// How many targets the job has.
    pub targets: u64,
    /// Targets per wave (`None`: one wave).
    pub wave_size: Option<WaveSize>,
}

impl WavePlan {
    /// The wave (from 1) of target `index` (from 0, in list order).
    pub fn wave_of(&self, index: u64) -> u32 {
        let wave = match self.wave_size {
            Some(size) => index / u64::from(size.get()) + 1,
            None => 1,
        };
        u32::try_from(wave).unwrap_or(u32::MAX)
    }

    /// How many waves there are: 0 without targets.
    pub fn waves(&self) -> u32 {
        if self.targets == 0 {
            0
        } else {
            self.wave_of(self.targets - 1)
        }
    }

    /// Whether `wave` is the last one (or past it).
    pub fn is_last(&self, wave: u32) -> bool {
        wave >= self.waves()
    }
}

/// What follows the end of a wave.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WaveVerdict {
    /// It was the last wave: the job is completed.
    Complete,
    /// Too many of its targets failed or lapsed: the job halts.
    Halt,
    /// The next wave starts after the interval.
    NextWave,
}

impl WaveVerdict {
    /// What follows wave `wave` of a job split as `plan`, whose targets
    /// stand as `counts`; `None` while one of them has not ended. The last
    /// wave completes the job whatever its failures; another halts it when
    /// its failure ratio is greater than `halt`.
    pub fn decide(
        wave: u32,
        plan: &WavePlan,
        counts: &TargetCounts,
        halt: HaltFailureRatio,
    ) -> Option<Self> {
        if !counts.all_ended() {
            return None;
        }
        Some(if plan.is_last(wave) {
            Self::Complete
        } else if counts.failure_ratio() > halt.get() {
            Self::Halt
        } else {
            Self::NextWave
        })
    }
}
