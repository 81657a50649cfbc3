//! How a job runs: the size of its waves, the pause between them, and the
//! failure ratio that halts it.

use chrono::Duration;
use thiserror::Error;

/// The largest wave.
pub const MAX_WAVE_SIZE: u32 = 100_000;
/// The longest pause between two waves, in seconds (a day).
pub const MAX_WAVE_INTERVAL_SECONDS: u32 = 86_400;

/// A value outside its bounds (inclusive).
#[derive(Debug, Clone, Copy, PartialEq, Error)]
#[error("out of bounds: {min} to {max}")]
pub struct OutOfBounds {
    /// The least value allowed.
    pub min: f64,
    /// The greatest value allowed.
    pub max: f64,
}

/// How many targets a wave holds: 1 to [`MAX_WAVE_SIZE`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct WaveSize(u32);

impl WaveSize {
    /// The size, if within 1 to [`MAX_WAVE_SIZE`].
    pub fn new(size: u64) -> Result<Self, OutOfBounds> {
        match u32::try_from(size) {
            Ok(size) if (1..=MAX_WAVE_SIZE).contains(&size) => Ok(Self(size)),
            _ => Err(OutOfBounds {
                min: 1.0,
                max: f64::from(MAX_WAVE_SIZE),
            }),
        }
    }

    /// The number of targets.
    pub const fn get(self) -> u32 {
        self.0
    }
}

/// The pause between the end of a wave and the start of the next: 0 to
/// [`MAX_WAVE_INTERVAL_SECONDS`] seconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Default)]
pub struct WaveInterval(u32);

impl WaveInterval {
    /// The interval of `seconds`, if within 0 to [`MAX_WAVE_INTERVAL_SECONDS`].
    pub fn new(seconds: u64) -> Result<Self, OutOfBounds> {
        match u32::try_from(seconds) {
            Ok(seconds) if seconds <= MAX_WAVE_INTERVAL_SECONDS => Ok(Self(seconds)),
            _ => Err(OutOfBounds {
                min: 0.0,
                max: f64::from(MAX_WAVE_INTERVAL_SECONDS),
            }),
        }
    }

    /// In seconds.
    pub const fn seconds(self) -> u32 {
        self.0
    }

    /// As a duration.
    pub fn duration(self) -> Duration {
        Duration::seconds(i64::from(self.0))
    }
}

/// The share of a wave's finished targets that may fail (or lapse) before
/// the job halts: 0 to 1. A wave halts the job when its ratio is greater.
#[derive(Debug, Clone, Copy, PartialEq, PartialOrd)]
pub struct HaltFailureRatio(f64);

impl HaltFailureRatio {
    /// The default: half.
    pub const DEFAULT: Self = Self(0.5);

    /// The ratio, if a number from 0 to 1.
    pub fn new(ratio: f64) -> Result<Self, OutOfBounds> {
        if (0.0..=1.0).contains(&ratio) {
            Ok(Self(ratio))
        } else {
            Err(OutOfBounds { min: 0.0, max: 1.0 })
        }
    }

    /// The ratio.
    pub const fn get(self) -> f64 {
        self.0
    }
}

impl Default for HaltFailureRatio {
    fn default() -> Self {
        Self::DEFAULT
    }
}

/// How a job runs.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct JobSettings {
    /// Targets per wave; `None`: every target in one wave.
    pub wave_size: Option<WaveSize>,
    /// The pause after a wave ended before the next starts.
    pub wave_interval: WaveInterval,
    /// The failure ratio above which a wave halts the job.
    pub halt_failure_ratio: HaltFailureRatio,
}
