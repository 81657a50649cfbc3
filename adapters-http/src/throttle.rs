//! Rate limiting at the HTTP edge: unauthenticated write routes are limited
//! per client address, password changes per account (`docs/api.md`,
//! Throttling). Each key may make a burst of `requests`, refilled evenly over
//! `period` (GCRA), counted by a [`RateLimits`] port: in memory on a lone
//! instance ([`MemoryRateLimits`], governor's keyed limiter), in the database
//! when several instances share it.

use crate::error::ApiError;
use actix_web::HttpRequest;
pub use application::ports::Rate;
use application::ports::{LimitKey, RateLimits, Verdict};
use async_trait::async_trait;
use governor::clock::{Clock, DefaultClock};
use governor::{DefaultKeyedRateLimiter, Quota};
use std::collections::HashMap;
use std::fmt;
use std::net::{IpAddr, Ipv6Addr, SocketAddr};
use std::sync::{Arc, PoisonError, RwLock};

/// The rate budgets of a lone instance, in memory: one governor keyed GCRA
/// limiter per rate in use, shared by every worker. A check takes no I/O.
#[derive(Default)]
pub struct MemoryRateLimits {
    limiters: RwLock<HashMap<Rate, Arc<DefaultKeyedRateLimiter<LimitKey>>>>,
}

impl fmt::Debug for MemoryRateLimits {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MemoryRateLimits").finish_non_exhaustive()
    }
}

impl MemoryRateLimits {
    /// The limiter of `rate`, made on its first use.
    fn limiter(&self, rate: Rate) -> Arc<DefaultKeyedRateLimiter<LimitKey>> {
        let known = self.limiters.read().unwrap_or_else(PoisonError::into_inner);
        if let Some(limiter) = known.get(&rate) {
            return Arc::clone(limiter);
        }
        drop(known);
        let mut limiters = self
            .limiters
            .write()
            .unwrap_or_else(PoisonError::into_inner);
        Arc::clone(
            limiters
                .entry(rate)
                .or_insert_with(|| Arc::new(DefaultKeyedRateLimiter::keyed(quota(rate)))),
        )
    }

    /// Counts one request of `key` under `rate`, at once.
    pub fn count_now(&self, key: LimitKey, rate: Rate) -> Verdict {
        match self.limiter(rate).check_key(&key) {
            Ok(()) => Verdict::Allowed,
            Err(not_until) => {
                Verdict::wait(not_until.wait_time_from(DefaultClock::default().now()))
            }
        }
    }
}

#[async_trait]
impl RateLimits for MemoryRateLimits {
    async fn count(&self, key: LimitKey, rate: Rate) -> Result<Verdict, application::StoreError> {
        Ok(self.count_now(key, rate))
    }

    async fn forget_idle(&self) -> Result<(), application::StoreError> {
        let limiters = self.limiters.read().unwrap_or_else(PoisonError::into_inner);
        for limiter in limiters.values() {
            limiter.retain_recent();
            limiter.shrink_to_fit();
        }
        Ok(())
    }
}

/// A GCRA quota allowing `rate` as a burst refilled evenly.
fn quota(rate: Rate) -> Quota {
    Quota::with_period(rate.interval())
        .expect("a non-zero period")
        .allow_burst(rate.requests)
}

/// 429 with the wait of a spent budget; 503 when the budgets cannot be
/// reached (never unlimited).
async fn spend(limits: &dyn RateLimits, key: LimitKey, rate: Rate) -> Result<(), ApiError> {
    match limits.count(key, rate).await? {
        Verdict::Allowed => Ok(()),
        Verdict::Wait(seconds) => Err(ApiError::Throttled(seconds)),
    }
}

/// The per-account limit of password changes: every request counts,
/// successful ones too, so nobody can turn an API token into a stream of
/// expensive password hashes or old-password guesses.
pub struct AccountThrottle {
    limits: Arc<dyn RateLimits>,
    rate: Rate,
}

impl fmt::Debug for AccountThrottle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AccountThrottle")
            .field("rate", &self.rate)
            .finish_non_exhaustive()
    }
}

impl AccountThrottle {
    /// Allows `rate` per account, counted in `limits`.
    pub fn new(rate: Rate, limits: Arc<dyn RateLimits>) -> Self {
        Self { limits, rate }
    }

    /// Counts one request of the account: 429 (`Throttled`) when it must
    /// wait first, 503 when the budgets cannot be reached.
    pub(crate) async fn check(&self, account: domain::AccountId) -> Result<(), ApiError> {
        spend(&*self.limits, LimitKey::PasswordChange(account), self.rate).await
    }
}

/// The per-address limit of unauthenticated write routes (the API's and the
/// console's forms alike).
pub struct AddressThrottle {
    limits: Arc<dyn RateLimits>,
    rate: Rate,
    trust_proxy: bool,
}

impl fmt::Debug for AddressThrottle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AddressThrottle")
            .field("rate", &self.rate)
            .field("trust_proxy", &self.trust_proxy)
            .finish_non_exhaustive()
    }
}

impl AddressThrottle {
    /// Allows `rate` per client address, counted in `limits`. With
    /// `trust_proxy`, the client address is the last one a reverse proxy
    /// appended to `X-Forwarded-For`.
    pub fn new(rate: Rate, trust_proxy: bool, limits: Arc<dyn RateLimits>) -> Self {
        Self {
            limits,
            rate,
            trust_proxy,
        }
    }

    /// Counts one request of the client: 429 (`Throttled`) when it must
    /// wait first, 503 when the budgets cannot be reached.
    pub(crate) async fn check(&self, req: &HttpRequest) -> Result<(), ApiError> {
        let Some(address) = client_address(req, self.trust_proxy) else {
            return Ok(());
        };
        spend(&*self.limits, LimitKey::Address(address), self.rate).await
    }
}

/// Whom a request counts against: the peer, or with `trust_proxy` the last
/// address in `X-Forwarded-For` (the one the proxy itself saw; earlier
/// entries are whatever the client claimed). IPv6 clients count by their
/// /64 network, which one host can fill with addresses.
pub fn client_address(req: &HttpRequest, trust_proxy: bool) -> Option<IpAddr> {
    Some(match client_ip(req, trust_proxy)? {
        IpAddr::V6(v6) => IpAddr::V6(Ipv6Addr::from_bits(v6.to_bits() & (u128::MAX << 64))),
        v4 => v4,
    })
}

/// The client's own address, taken as [`client_address`] takes it (an
/// IPv4-mapped IPv6 address as the IPv4 address it holds), whole.
pub fn client_ip(req: &HttpRequest, trust_proxy: bool) -> Option<IpAddr> {
    let forwarded = trust_proxy.then(|| last_forwarded_for(req)).flatten();
    let address = forwarded.or_else(|| req.peer_addr().map(|peer| peer.ip()))?;
    Some(match address {
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(IpAddr::V6(v6), IpAddr::V4),
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

    fn throttles(rate: &str) -> (AddressThrottle, AccountThrottle) {
        let limits: Arc<dyn RateLimits> = Arc::new(MemoryRateLimits::default());
        let rate = rate.parse().unwrap();
        (
            AddressThrottle::new(rate, false, Arc::clone(&limits)),
            AccountThrottle::new(rate, limits),
        )
    }

    #[tokio::test]
    async fn a_burst_is_allowed_then_the_client_waits() {
        let (throttle, _) = throttles("3/minute");
        let ann = request("192.0.2.1:1", None);
        let bob = request("192.0.2.2:1", None);
        for _ in 0..3 {
            assert!(throttle.check(&ann).await.is_ok());
        }
        let Err(ApiError::Throttled(wait)) = throttle.check(&ann).await else {
            panic!("the fourth request is allowed");
        };
        assert!((1..=20).contains(&wait), "wait {wait}");
        assert!(throttle.check(&bob).await.is_ok());
    }

    #[tokio::test]
    async fn each_account_has_its_own_budget_apart_from_addresses() {
        use domain::AccountId;
        let (addresses, throttle) = throttles("10/hour");
        for _ in 0..10 {
            assert!(throttle.check(AccountId(1)).await.is_ok());
        }
        let Err(ApiError::Throttled(wait)) = throttle.check(AccountId(1)).await else {
            panic!("the eleventh change is allowed");
        };
        assert!(
            (300..=360).contains(&wait),
            "one request every 6 minutes: {wait}"
        );
        assert!(throttle.check(AccountId(2)).await.is_ok());
        // Same rate, same limiter: the address's budget is its own.
        assert!(addresses.check(&request("192.0.2.1:1", None)).await.is_ok());
    }

    #[tokio::test]
    async fn budgets_of_different_rates_are_kept_apart() {
        let limits = MemoryRateLimits::default();
        let key = LimitKey::Address("192.0.2.1".parse().unwrap());
        let (one, two): (Rate, Rate) = ("1/hour".parse().unwrap(), "2/hour".parse().unwrap());
        assert_eq!(limits.count(key, one).await.unwrap(), Verdict::Allowed);
        assert!(matches!(
            limits.count(key, one).await.unwrap(),
            Verdict::Wait(3_600)
        ));
        assert_eq!(limits.count(key, two).await.unwrap(), Verdict::Allowed);
        assert_eq!(limits.count(key, two).await.unwrap(), Verdict::Allowed);
        assert!(matches!(
            limits.count(key, two).await.unwrap(),
            Verdict::Wait(1_800)
        ));
        limits.forget_idle().await.unwrap();
        assert!(matches!(
            limits.count(key, one).await.unwrap(),
            Verdict::Wait(_)
        ));
    }
}
