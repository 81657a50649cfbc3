//! The whole numbers an agent reports (bytes, MiB, MHz) and the wait of its
//! long poll: each with its bounds written once.

use std::fmt;
use std::str::FromStr;
use std::time::Duration;
use thiserror::Error;

/// A non-negative whole amount an agent reports: a disk size or use in
/// bytes, memory in MiB, a processor speed in MHz. 0 to `i64::MAX`, so that
/// it fits a signed 64-bit column.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Amount(i64);

/// The number is no amount.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
#[error("not an amount ({min}–{max})", min = Amount::MIN, max = Amount::MAX)]
pub struct InvalidAmount;

impl Amount {
    /// The smallest amount.
    pub const MIN: i64 = 0;
    /// The largest amount.
    pub const MAX: i64 = i64::MAX;
    /// Nothing, or nothing known.
    pub const ZERO: Self = Self(0);

    /// The amount `value`, unless it is negative.
    pub fn new(value: i64) -> Result<Self, InvalidAmount> {
        if value < Self::MIN {
            return Err(InvalidAmount);
        }
        Ok(Self(value))
    }

    /// The amount `value`, or [`Amount::MAX`] when it is larger.
    pub fn saturating(value: u64) -> Self {
        Self(i64::try_from(value).unwrap_or(Self::MAX))
    }

    /// An amount read back from storage, which only ever holds valid ones.
    pub fn from_stored(value: i64) -> Self {
        Self(value)
    }

    /// The number.
    pub fn get(self) -> i64 {
        self.0
    }
}

impl TryFrom<i64> for Amount {
    type Error = InvalidAmount;

    fn try_from(value: i64) -> Result<Self, InvalidAmount> {
        Self::new(value)
    }
}

impl FromStr for Amount {
    type Err = InvalidAmount;

    fn from_str(text: &str) -> Result<Self, InvalidAmount> {
        text.parse::<i64>()
            .map_err(|_| InvalidAmount)
            .and_then(Self::new)
    }
}

impl fmt::Display for Amount {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

/// How long a long poll for commands may wait: whole seconds, 0–60.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct PollWait(u8);

/// The number of seconds is no poll wait.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
#[error("not a poll wait (0–{max} s)", max = PollWait::MAX_SECS)]
pub struct InvalidPollWait;

impl PollWait {
    /// The longest wait, in seconds.
    pub const MAX_SECS: i64 = 60;
    /// No wait: answer at once.
    pub const NONE: Self = Self(0);

    /// A wait of `seconds`, unless out of 0–[`PollWait::MAX_SECS`].
    pub fn new(seconds: i64) -> Result<Self, InvalidPollWait> {
        if !(0..=Self::MAX_SECS).contains(&seconds) {
            return Err(InvalidPollWait);
        }
        u8::try_from(seconds).map(Self).map_err(|_| InvalidPollWait)
    }

    /// A wait of `seconds`, or of [`PollWait::MAX_SECS`] when longer.
    pub fn at_most(seconds: u64) -> Self {
        let max = Self::MAX_SECS.unsigned_abs();
        Self(u8::try_from(seconds.min(max)).expect("the longest wait fits a u8"))
    }

    /// The whole seconds.
    pub fn secs(self) -> u64 {
        u64::from(self.0)
    }

    /// The wait as a duration.
    pub fn duration(self) -> Duration {
        Duration::from_secs(self.secs())
    }
}

impl TryFrom<i64> for PollWait {
    type Error = InvalidPollWait;

    fn try_from(seconds: i64) -> Result<Self, InvalidPollWait> {
        Self::new(seconds)
    }
}

impl fmt::Display for PollWait {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn amounts_run_from_0_to_the_largest_i64() {
        assert_eq!(Amount::new(-1), Err(InvalidAmount));
        assert_eq!(Amount::new(i64::MIN), Err(InvalidAmount));
        assert_eq!(Amount::new(0).unwrap().get(), Amount::MIN);
        assert_eq!(Amount::try_from(i64::MAX).unwrap().get(), Amount::MAX);
        assert_eq!(Amount::new(4096).unwrap().to_string(), "4096");
    }

    #[test]
    fn amounts_parse_from_decimal_text() {
        assert_eq!("0".parse::<Amount>().unwrap(), Amount::ZERO);
        assert_eq!("8192".parse::<Amount>().unwrap().get(), 8192);
        assert_eq!(
            "9223372036854775807".parse::<Amount>().unwrap().get(),
            i64::MAX
        );
        for bad in ["-1", "9223372036854775808", "", "1.5", "ten"] {
            assert_eq!(bad.parse::<Amount>(), Err(InvalidAmount), "{bad:?}");
        }
    }

    #[test]
    fn unsigned_amounts_saturate_at_the_largest() {
        assert_eq!(Amount::saturating(7).get(), 7);
        assert_eq!(Amount::saturating(u64::MAX).get(), Amount::MAX);
    }

    #[test]
    fn poll_waits_run_from_0_to_60_seconds() {
        assert_eq!(PollWait::new(-1), Err(InvalidPollWait));
        assert_eq!(PollWait::new(0).unwrap(), PollWait::NONE);
        assert_eq!(PollWait::new(60).unwrap().secs(), 60);
        assert_eq!(PollWait::try_from(61), Err(InvalidPollWait));
        assert_eq!(
            PollWait::new(30).unwrap().duration(),
            Duration::from_secs(30)
        );
    }

    #[test]
    fn longer_waits_are_cut_to_the_longest() {
        assert_eq!(PollWait::at_most(59).secs(), 59);
        assert_eq!(PollWait::at_most(61).secs(), 60);
        assert_eq!(PollWait::at_most(u64::MAX).to_string(), "60");
    }
}
