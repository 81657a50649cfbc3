//! The network ports a device's agent reports as listening.

use crate::bounded_text::PortName;
use std::fmt;
use std::num::NonZeroU16;
use thiserror::Error;

/// A transport protocol of a listening port.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Protocol {
    /// TCP.
    Tcp,
    /// UDP.
    Udp,
}

impl Protocol {
    /// Every protocol, by code.
    pub const ALL: [Protocol; 2] = [Protocol::Tcp, Protocol::Udp];

    /// Every code, in [`Protocol::ALL`] order.
    pub const CODES: [&'static str; 2] = [Self::Tcp.code(), Self::Udp.code()];

    /// The code sent and stored: `tcp` or `udp`.
    pub const fn code(self) -> &'static str {
        match self {
            Self::Tcp => "tcp",
            Self::Udp => "udp",
        }
    }

    /// The protocol with this exact code.
    pub fn from_code(code: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|p| p.code() == code)
    }
}

/// A port number: 1–65535 (port 0 is no port).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct PortNumber(NonZeroU16);

/// The number is no port number.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
#[error("not a port number ({min}–{max})", min = PortNumber::MIN, max = PortNumber::MAX)]
pub struct InvalidPortNumber;

impl PortNumber {
    /// The lowest port number.
    pub const MIN: u16 = 1;
    /// The highest port number.
    pub const MAX: u16 = u16::MAX;

    /// The port with this number, unless it is 0.
    pub fn new(number: u16) -> Result<Self, InvalidPortNumber> {
        NonZeroU16::new(number).map(Self).ok_or(InvalidPortNumber)
    }

    /// The number.
    pub fn get(self) -> u16 {
        self.0.get()
    }
}

impl TryFrom<i64> for PortNumber {
    type Error = InvalidPortNumber;

    fn try_from(number: i64) -> Result<Self, InvalidPortNumber> {
        u16::try_from(number)
            .map_err(|_| InvalidPortNumber)
            .and_then(Self::new)
    }
}

impl fmt::Display for PortNumber {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

/// One listening port.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Port {
    /// Its number.
    pub number: PortNumber,
    /// TCP or UDP.
    pub protocol: Protocol,
    /// What listens there, possibly nothing known.
    pub name: PortName,
}

impl Port {
    /// A port.
    pub fn new(number: PortNumber, protocol: Protocol, name: PortName) -> Self {
        Self {
            number,
            protocol,
            name,
        }
    }
}

/// A reported port list as stored and shown: ascending by port, then
/// protocol; a port reported twice with the same protocol is kept once,
/// with the name it was first reported with.
pub fn normalize_ports(mut ports: Vec<Port>) -> Vec<Port> {
    // A stable sort keeps the first report of a duplicate first.
    ports.sort_by_key(|p| (p.number, p.protocol));
    ports.dedup_by_key(|p| (p.number, p.protocol));
    ports
}

#[cfg(test)]
mod tests {
    use super::*;

    fn port(number: u16, protocol: Protocol, name: &str) -> Port {
        Port::new(
            PortNumber::new(number).unwrap(),
            protocol,
            PortName::parse(name).unwrap(),
        )
    }

    #[test]
    fn protocols_round_trip_through_their_codes() {
        for protocol in Protocol::ALL {
            assert_eq!(Protocol::from_code(protocol.code()), Some(protocol));
        }
        assert_eq!(Protocol::from_code("TCP"), None);
        assert_eq!(Protocol::from_code("sctp"), None);
    }

    #[test]
    fn port_numbers_run_from_1_to_65535() {
        assert_eq!(PortNumber::new(0), Err(InvalidPortNumber));
        assert_eq!(PortNumber::new(1).unwrap().get(), 1);
        assert_eq!(PortNumber::new(65535).unwrap().get(), 65535);
        assert_eq!(PortNumber::try_from(65536_i64), Err(InvalidPortNumber));
        assert_eq!(PortNumber::try_from(-1_i64), Err(InvalidPortNumber));
        assert_eq!(PortNumber::try_from(443_i64).unwrap().to_string(), "443");
    }

    #[test]
    fn lists_are_sorted_and_duplicates_keep_the_first_name() {
        let ports = normalize_ports(vec![
            port(443, Protocol::Tcp, "nginx"),
            port(53, Protocol::Udp, "dnsmasq"),
            port(22, Protocol::Tcp, "sshd"),
            port(53, Protocol::Tcp, "dnsmasq"),
            port(443, Protocol::Tcp, "other"),
        ]);
        let shown: Vec<(u16, &str, &str)> = ports
            .iter()
            .map(|p| (p.number.get(), p.protocol.code(), p.name.as_str()))
            .collect();
        assert_eq!(
            shown,
            [
                (22, "tcp", "sshd"),
                (53, "tcp", "dnsmasq"),
                (53, "udp", "dnsmasq"),
                (443, "tcp", "nginx"),
            ]
        );
    }
}
