//! Rate budgets: how many requests a key (a client address, an account's
//! password changes) may make (docs/api.md, Throttling). Every instance on
//! one database counts against the same budgets; a lone instance keeps them
//! in memory.
//!
//! Budgets follow GCRA (the generic cell rate algorithm): each key has a
//! theoretical arrival time (TAT); a request moves it one
//! [`interval`](Rate::interval) later (from now if it lies in the past), and
//! is allowed when the TAT stays within one [`window`](Rate::window) of now.
//! So a key may make a burst of `requests`, refilled evenly over `period`.

use async_trait::async_trait;
#[cfg(any(test, feature = "mocks"))]
use mockall::automock;

use super::StoreError;
use domain::AccountId;
use std::fmt;
use std::net::IpAddr;
use std::num::NonZeroU32;
use std::str::FromStr;
use std::time::Duration;

/// A request rate such as `20/minute`: `N/second`, `N/minute`, `N/hour` or
/// `N/day` (or their first letter, as in Django REST Framework).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Rate {
    /// Requests allowed per period (also the burst).
    pub requests: NonZeroU32,
    /// The period.
    pub period: Duration,
}

impl Rate {
    /// GCRA's emission interval: how far one request moves a key's TAT, the
    /// time in which one request of the budget comes back (never zero).
    pub fn interval(self) -> Duration {
        (self.period / self.requests.get()).max(Duration::from_nanos(1))
    }

    /// How far ahead of now a key's TAT may lie after an allowed request:
    /// the whole burst (`requests` intervals).
    pub fn window(self) -> Duration {
        self.interval() * self.requests.get()
    }

    /// GCRA's tolerance: how far ahead of now a TAT may lie before a
    /// request (the window less one interval). A refused key waits until
    /// its TAT is no further ahead than this.
    pub fn tolerance(self) -> Duration {
        self.window() - self.interval()
    }
}

impl FromStr for Rate {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, String> {
        let invalid = || format!("{text:?} is not a rate like 20/minute");
        let (count, unit) = text.split_once('/').ok_or_else(invalid)?;
        let requests: NonZeroU32 = count.trim().parse().map_err(|_| invalid())?;
        let seconds = match unit.trim() {
            "s" | "sec" | "second" => 1,
            "m" | "min" | "minute" => 60,
            "h" | "hour" => 3_600,
            "d" | "day" => 86_400,
            _ => return Err(invalid()),
        };
        Ok(Self {
            requests,
            period: Duration::from_secs(seconds),
        })
    }
}

impl fmt::Display for Rate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let unit = match self.period.as_secs() {
            1 => "second",
            60 => "minute",
            3_600 => "hour",
            _ => "day",
        };
        write!(f, "{}/{unit}", self.requests)
    }
}

/// Whose budget a request spends. Its text (`addr:192.0.2.1`,
/// `pwchange:42`) names it where budgets are stored by name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LimitKey {
    /// A client address (an IPv6 client by its /64 network).
    Address(IpAddr),
    /// An account's password changes.
    PasswordChange(AccountId),
}

impl fmt::Display for LimitKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Address(address) => write!(f, "addr:{address}"),
            Self::PasswordChange(account) => write!(f, "pwchange:{}", account.0),
        }
    }
}

/// What became of one request counted against a budget.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// Within the budget: go ahead.
    Allowed,
    /// The budget is spent: the key may try again after this many whole
    /// seconds (at least 1), what `Retry-After` says.
    Wait(u64),
}

impl Verdict {
    /// A refusal for a key that may go again after `wait`, in whole seconds
    /// rounded up (at least 1).
    pub fn wait(wait: Duration) -> Self {
        let millis = u64::try_from(wait.as_millis()).unwrap_or(u64::MAX);
        Self::Wait(millis.div_ceil(1000).max(1))
    }
}

/// The rate budgets of every key.
#[cfg_attr(any(test, feature = "mocks"), automock)]
#[async_trait]
pub trait RateLimits: Send + Sync {
    /// Counts one request of `key` under `rate`, atomically: of any number
    /// of requests at once, exactly those within the budget are allowed.
    /// Refused requests spend nothing. An error (the shared counters cannot
    /// be reached) allows nothing.
    async fn count(&self, key: LimitKey, rate: Rate) -> Result<Verdict, StoreError>;

    /// Forgets the keys whose budget is whole again (call now and then).
    async fn forget_idle(&self) -> Result<(), StoreError>;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates_read_like_drf_rates() {
        let rate: Rate = "20/minute".parse().unwrap();
        assert_eq!(rate.requests.get(), 20);
        assert_eq!(rate.period, Duration::from_secs(60));
        assert_eq!("5/h".parse::<Rate>().unwrap().period.as_secs(), 3_600);
        assert_eq!(rate.to_string(), "20/minute");
        for bad in ["20", "0/minute", "x/minute", "20/fortnight", ""] {
            assert!(bad.parse::<Rate>().is_err(), "{bad} accepted");
        }
    }

    #[test]
    fn a_rate_is_an_interval_per_request_and_a_burst_window() {
        let rate: Rate = "3/minute".parse().unwrap();
        assert_eq!(rate.interval(), Duration::from_secs(20));
        assert_eq!(rate.window(), Duration::from_secs(60));
        assert_eq!(rate.tolerance(), Duration::from_secs(40));
        let one: Rate = "1/hour".parse().unwrap();
        assert_eq!(one.tolerance(), Duration::ZERO);
        let fast = Rate {
            requests: NonZeroU32::MAX,
            period: Duration::from_secs(1),
        };
        assert!(fast.interval() > Duration::ZERO);
    }

    #[test]
    fn keys_are_named_by_kind() {
        let address = LimitKey::Address("192.0.2.1".parse().unwrap());
        assert_eq!(address.to_string(), "addr:192.0.2.1");
        let network = LimitKey::Address("2001:db8:1:2::".parse().unwrap());
        assert_eq!(network.to_string(), "addr:2001:db8:1:2::");
        assert_eq!(
            LimitKey::PasswordChange(AccountId(42)).to_string(),
            "pwchange:42"
        );
    }

    #[test]
    fn waits_are_whole_seconds_rounded_up_at_least_one() {
        assert_eq!(Verdict::wait(Duration::ZERO), Verdict::Wait(1));
        assert_eq!(Verdict::wait(Duration::from_millis(1)), Verdict::Wait(1));
        assert_eq!(
            Verdict::wait(Duration::from_millis(19_001)),
            Verdict::Wait(20)
        );
        assert_eq!(Verdict::wait(Duration::from_secs(360)), Verdict::Wait(360));
    }
}
