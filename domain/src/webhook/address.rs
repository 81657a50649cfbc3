//! The address rule that keeps webhooks out of private networks (SSRF).

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// Whether a webhook may not be sent to `address`: loopback (127/8, ::1),
/// private (10/8, 172.16/12, 192.168/16, fc00::/7), link-local (169.254/16,
/// fe80::/10), unspecified (0/8, ::), shared (100.64/10), multicast or
/// broadcast, an IPv4 address written as IPv6 (mapped or compatible)
/// judged as the IPv4 address it holds.
pub fn is_forbidden_address(address: IpAddr) -> bool {
    match address {
        IpAddr::V4(v4) => forbidden_v4(v4),
        IpAddr::V6(v6) => match embedded_v4(v6) {
            Some(v4) => forbidden_v4(v4),
            None => forbidden_v6(v6),
        },
    }
}

fn forbidden_v4(address: Ipv4Addr) -> bool {
    let [a, b, ..] = address.octets();
    a == 0
        || a == 10
        || a == 127
        || (a == 100 && (64..128).contains(&b))
        || (a == 169 && b == 254)
        || (a == 172 && (16..32).contains(&b))
        || (a == 192 && b == 168)
        || address.is_multicast()
        || address.is_broadcast()
}

fn forbidden_v6(address: Ipv6Addr) -> bool {
    let first = address.segments()[0];
    address.is_unspecified()
        || address.is_loopback()
        || (first & 0xfe00) == 0xfc00
        || (first & 0xffc0) == 0xfe80
        || address.is_multicast()
}

/// The IPv4 address in `::ffff:a.b.c.d` (mapped) or `::a.b.c.d` (the old
/// compatible form; `::` and `::1` are IPv6's own).
fn embedded_v4(address: Ipv6Addr) -> Option<Ipv4Addr> {
    if let Some(v4) = address.to_ipv4_mapped() {
        return Some(v4);
    }
    let segments = address.segments();
    let compatible = segments[..6].iter().all(|&s| s == 0) && (segments[6] != 0 || segments[7] > 1);
    compatible.then(|| {
        let [.., a, b, c, d] = address.octets();
        Ipv4Addr::new(a, b, c, d)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn forbidden(text: &str) -> bool {
        is_forbidden_address(text.parse().unwrap())
    }

    #[test]
    fn every_listed_range_is_refused_at_its_edges() {
        for address in [
            "127.0.0.1",
            "127.255.255.254",
            "10.0.0.0",
            "10.255.255.255",
            "172.16.0.1",
            "172.31.255.255",
            "192.168.0.1",
            "192.168.255.255",
            "169.254.0.1",
            "169.254.169.254",
            "0.0.0.0",
            "0.1.2.3",
            "100.64.0.1",
            "100.127.255.255",
            "224.0.0.1",
            "239.255.255.255",
            "255.255.255.255",
            "::1",
            "::",
            "fc00::1",
            "fdff:ffff::1",
            "fe80::1",
            "febf::1",
            "ff02::1",
            "::ffff:127.0.0.1",
            "::ffff:10.1.2.3",
            "::ffff:169.254.169.254",
            "::127.0.0.1",
        ] {
            assert!(forbidden(address), "{address} should be refused");
        }
    }

    #[test]
    fn public_addresses_next_to_the_ranges_are_allowed() {
        for address in [
            "1.1.1.1",
            "9.255.255.255",
            "11.0.0.0",
            "100.63.255.255",
            "100.128.0.0",
            "126.255.255.255",
            "128.0.0.1",
            "169.253.255.255",
            "169.255.0.0",
            "172.15.255.255",
            "172.32.0.0",
            "192.167.255.255",
            "192.169.0.0",
            "223.255.255.255",
            "8.8.8.8",
            "2001:4860:4860::8888",
            "fbff::1",
            "fec0::1",
            "::ffff:8.8.8.8",
            "2606:4700::1111",
        ] {
            assert!(!forbidden(address), "{address} should be allowed");
        }
    }
}
