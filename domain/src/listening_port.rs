//! The network ports a device's agent reports as listening.

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

/// Most characters in a port's name.
pub const MAX_PORT_NAME_CHARS: usize = 64;

/// One listening port.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Port {
    /// 1–65535.
    pub number: u16,
    /// TCP or UDP.
    pub protocol: Protocol,
    /// What listens there (a service or process name), possibly empty.
    pub name: String,
}

/// Why a port was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
pub enum PortError {
    /// Port 0 is no port.
    #[error("Ensure this value is greater than or equal to 1.")]
    Zero,
    /// The name is too long.
    #[error("Ensure this field has no more than {MAX_PORT_NAME_CHARS} characters.")]
    NameTooLong,
}

impl Port {
    /// A port, checked.
    pub fn new(number: u16, protocol: Protocol, name: String) -> Result<Self, PortError> {
        if number == 0 {
            return Err(PortError::Zero);
        }
        if name.chars().count() > MAX_PORT_NAME_CHARS {
            return Err(PortError::NameTooLong);
        }
        Ok(Self {
            number,
            protocol,
            name,
        })
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
        Port::new(number, protocol, name.into()).unwrap()
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
    fn port_zero_and_long_names_are_refused() {
        assert_eq!(
            Port::new(0, Protocol::Tcp, String::new()),
            Err(PortError::Zero)
        );
        assert_eq!(
            Port::new(22, Protocol::Tcp, "é".repeat(65)),
            Err(PortError::NameTooLong)
        );
        assert!(Port::new(65535, Protocol::Udp, "é".repeat(64)).is_ok());
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
            .map(|p| (p.number, p.protocol.code(), p.name.as_str()))
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
