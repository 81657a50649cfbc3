//! Rate limiting on governor's keyed GCRA limiter: each key may make a burst
//! of `requests`, refilled evenly over `period`. Unauthenticated write routes
//! are limited per client address, password changes per account
//! (`docs/api.md`, Throttling).

use actix_web::HttpRequest;
use governor::clock::{Clock, DefaultClock};
use governor::{DefaultKeyedRateLimiter, Quota};
use std::fmt;
use std::net::{IpAddr, Ipv6Addr, SocketAddr};
use std::num::NonZeroU32;
use std::str::FromStr;
use std::time::Duration;

/// A request rate such as `20/minute`: `N/second`, `N/minute`, `N/hour` or
/// `N/day` (or their first letter, as in Django REST Framework).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rate {
    /// Requests allowed per period (also the burst).
    pub requests: NonZeroU32,
    /// The period.
    pub period: Duration,
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

/// A GCRA quota allowing `rate` as a burst refilled evenly.
fn quota(rate: Rate) -> Quota {
    let interval = rate.period / rate.requests.get();
    Quota::with_period(interval.max(Duration::from_nanos(1)))
        .expect("a non-zero period")
        .allow_burst(rate.requests)
}

/// Whole seconds (at least 1) until a refused key may try again.
fn wait_secs(not_until: governor::NotUntil<governor::clock::QuantaInstant>) -> u64 {
    let wait = not_until.wait_time_from(DefaultClock::default().now());
    wait.as_millis().div_ceil(1000).max(1) as u64
}

/// The per-account limiter of password changes, shared by every worker:
/// every request counts, successful ones too, so nobody can turn an API
/// token into a stream of expensive password hashes or old-password guesses.
#[derive(Debug)]
pub struct AccountThrottle {
    limiter: DefaultKeyedRateLimiter<i64>,
}

impl AccountThrottle {
    /// A limiter allowing `rate` per account.
    pub fn new(rate: Rate) -> Self {
        Self {
            limiter: DefaultKeyedRateLimiter::keyed(quota(rate)),
        }
    }

    /// Counts one request of the account; `Err(seconds)` when it must wait
    /// that many whole seconds (at least 1) first.
    pub fn check(&self, account: domain::AccountId) -> Result<(), u64> {
        self.limiter.check_key(&account.0).map_err(wait_secs)
    }

    /// Forgets accounts whose limit is fully restored (call now and then).
    pub fn forget_idle(&self) {
        self.limiter.retain_recent();
        self.limiter.shrink_to_fit();
    }
}

/// The per-address limiter shared by every worker.
pub struct AddressThrottle {
    limiter: DefaultKeyedRateLimiter<IpAddr>,
    trust_proxy: bool,
}

impl fmt::Debug for AddressThrottle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AddressThrottle")
            .field("trust_proxy", &self.trust_proxy)
            .finish_non_exhaustive()
    }
}

impl AddressThrottle {
    /// A limiter allowing `rate`. With `trust_proxy`, the client address is
    /// the last one a reverse proxy appended to `X-Forwarded-For`.
    pub fn new(rate: Rate, trust_proxy: bool) -> Self {
        Self {
            limiter: DefaultKeyedRateLimiter::keyed(quota(rate)),
            trust_proxy,
        }
    }

    /// Counts one request of the client; `Err(seconds)` when it must wait
    /// that many whole seconds (at least 1) first.
    pub fn check(&self, req: &HttpRequest) -> Result<(), u64> {
        let Some(address) = client_address(req, self.trust_proxy) else {
            return Ok(());
        };
        self.limiter.check_key(&address).map_err(wait_secs)
    }

    /// Forgets addresses whose limit is fully restored (call now and then).
    pub fn forget_idle(&self) {
        self.limiter.retain_recent();
        self.limiter.shrink_to_fit();
    }
}

/// Whom a request counts against: the peer, or with `trust_proxy` the last
/// address in `X-Forwarded-For` (the one the proxy itself saw; earlier
/// entries are whatever the client claimed). IPv6 clients count by their
/// /64 network, which one host can fill with addresses.
pub fn client_address(req: &HttpRequest, trust_proxy: bool) -> Option<IpAddr> {
    let forwarded = trust_proxy.then(|| last_forwarded_for(req)).flatten();
    let address = forwarded.or_else(|| req.peer_addr().map(|peer| peer.ip()))?;
    Some(match address {
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => IpAddr::V4(v4),
            None => IpAddr::V6(Ipv6Addr::from_bits(v6.to_bits() & (u128::MAX << 64))),
        },
        v4 => v4,
    })
}

fn last_forwarded_for(req: &HttpRequest) -> Option<IpAddr> {
    let last = req
        .headers()
        .get_all("x-forwarded-for")
        .filter_map(|value| value.to_str().ok())
        .flat_map(|value| value.split(','))
        .last()?
        .trim();
    last.parse::<IpAddr>()
        .ok()
        .or_else(|| last.parse::<SocketAddr>().ok().map(|s| s.ip()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use actix_web::test::TestRequest;

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

    fn request(peer: &str, forwarded: Option<&str>) -> HttpRequest {
        let mut req = TestRequest::default().peer_addr(peer.parse().unwrap());
        if let Some(value) = forwarded {
            req = req.insert_header(("X-Forwarded-For", value));
        }
        req.to_http_request()
    }

    #[test]
    fn forwarded_for_counts_only_behind_a_trusted_proxy() {
        let req = request("10.0.0.1:4000", Some("203.0.113.9, 198.51.100.7"));
        assert_eq!(
            client_address(&req, false),
            Some("10.0.0.1".parse().unwrap())
        );
        assert_eq!(
            client_address(&req, true),
            Some("198.51.100.7".parse().unwrap())
        );
        let garbage = request("10.0.0.1:4000", Some("unknown"));
        assert_eq!(
            client_address(&garbage, true),
            Some("10.0.0.1".parse().unwrap())
        );
    }

    #[test]
    fn ipv6_clients_count_by_network() {
        let a = request("[2001:db8:1:2::1]:4000", None);
        let b = request("[2001:db8:1:2:ffff::9]:4000", None);
        assert_eq!(client_address(&a, false), client_address(&b, false));
        assert_eq!(
            client_address(&a, false),
            Some("2001:db8:1:2::".parse().unwrap())
        );
    }

    #[test]
    fn a_burst_is_allowed_then_the_client_waits() {
        let throttle = AddressThrottle::new("3/minute".parse().unwrap(), false);
        let ann = request("192.0.2.1:1", None);
        let bob = request("192.0.2.2:1", None);
        for _ in 0..3 {
            assert_eq!(throttle.check(&ann), Ok(()));
        }
        let wait = throttle.check(&ann).unwrap_err();
        assert!((1..=20).contains(&wait), "wait {wait}");
        assert_eq!(throttle.check(&bob), Ok(()));
    }

    #[test]
    fn each_account_has_its_own_budget() {
        use domain::AccountId;
        let throttle = AccountThrottle::new("10/hour".parse().unwrap());
        for _ in 0..10 {
            assert_eq!(throttle.check(AccountId(1)), Ok(()));
        }
        let wait = throttle.check(AccountId(1)).unwrap_err();
        assert!(
            (300..=360).contains(&wait),
            "one request every 6 minutes: {wait}"
        );
        assert_eq!(throttle.check(AccountId(2)), Ok(()));
    }
}
