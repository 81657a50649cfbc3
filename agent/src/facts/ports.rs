//! The sockets this machine listens on, from `/proc/net/{tcp,tcp6,udp,udp6}`,
//! with the name of the process owning each when it can be read.

use crate::protocol::as_text;
use domain::PortName;
use procfs::net::{TcpState, UdpState};
use procfs::process::FDTarget;
use serde::Serialize;
use std::collections::{BTreeMap, HashMap, HashSet};

/// The most ports reported in one heartbeat.
pub const MAX_PORTS: usize = 500;

/// A transport protocol.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Protocol {
    /// A TCP socket in state LISTEN.
    Tcp,
    /// A bound, unconnected UDP socket.
    Udp,
}

/// One entry of the heartbeat's `ports`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ListeningPort {
    /// The local port, 1–65535.
    pub port: u16,
    /// `tcp` or `udp`.
    pub protocol: Protocol,
    /// The owning process's name (cleaned and cut to what the server
    /// accepts), `""` when unknown.
    #[serde(serialize_with = "as_text")]
    pub name: PortName,
}

/// A listening socket found in a `/proc/net` table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Socket {
    /// The local port.
    pub port: u16,
    /// Its protocol.
    pub protocol: Protocol,
    /// The socket's inode, which links it to a process's file descriptor.
    pub inode: u64,
}

/// The machine's listening ports; `[]` when `/proc` cannot be read.
pub fn listening_ports() -> Vec<ListeningPort> {
    let sockets = listening_sockets();
    let wanted: HashSet<u64> = sockets
        .iter()
        .map(|socket| socket.inode)
        .filter(|&inode| inode != 0)
        .collect();
    let owners = socket_owners(&wanted);
    summarise(sockets.iter().map(|socket| {
        ListeningPort {
            port: socket.port,
            protocol: socket.protocol,
            name: owners
                .get(&socket.inode)
                .map(|name| PortName::cut_to_fit(name))
                .unwrap_or_default(),
        }
    }))
}

/// Sorted by port then protocol, one entry per (port, protocol) (a named
/// entry preferred), port 0 left out, at most [`MAX_PORTS`] entries.
pub fn summarise(ports: impl IntoIterator<Item = ListeningPort>) -> Vec<ListeningPort> {
    let mut unique: BTreeMap<(u16, Protocol), PortName> = BTreeMap::new();
    for port in ports.into_iter().filter(|port| port.port != 0) {
        let name = unique.entry((port.port, port.protocol)).or_default();
        if name.as_str().is_empty() {
            *name = port.name;
        }
    }
    unique
        .into_iter()
        .take(MAX_PORTS)
        .map(|((port, protocol), name)| ListeningPort {
            port,
            protocol,
            name,
        })
        .collect()
}

/// TCP sockets in LISTEN and unconnected UDP sockets, IPv4 and IPv6.
fn listening_sockets() -> Vec<Socket> {
    let mut sockets = Vec::new();
    for (table, entries) in [("tcp", procfs::net::tcp()), ("tcp6", procfs::net::tcp6())] {
        match entries {
            Ok(entries) => sockets.extend(
                entries
                    .iter()
                    .filter(|entry| entry.state == TcpState::Listen)
                    .map(|entry| Socket {
                        port: entry.local_address.port(),
                        protocol: Protocol::Tcp,
                        inode: entry.inode,
                    }),
            ),
            Err(error) => tracing::debug!(table, %error, "cannot read a socket table"),
        }
    }
    for (table, entries) in [("udp", procfs::net::udp()), ("udp6", procfs::net::udp6())] {
        match entries {
            Ok(entries) => sockets.extend(
                entries
                    .iter()
                    // A connected UDP socket is ESTABLISHED; a bound, unconnected one is CLOSE.
                    .filter(|entry| entry.state == UdpState::Close)
                    .map(|entry| Socket {
                        port: entry.local_address.port(),
                        protocol: Protocol::Udp,
                        inode: entry.inode,
                    }),
            ),
            Err(error) => tracing::debug!(table, %error, "cannot read a socket table"),
        }
    }
    sockets
}

/// The name of the process holding each of the `wanted` socket inodes, for
/// the processes whose file descriptors this user may read.
fn socket_owners(wanted: &HashSet<u64>) -> HashMap<u64, String> {
    let mut owners = HashMap::new();
    if wanted.is_empty() {
        return owners;
    }
    let processes = match procfs::process::all_processes() {
        Ok(processes) => processes,
        Err(error) => {
            tracing::debug!(%error, "cannot list processes");
            return owners;
        }
    };
    for process in processes.flatten() {
        let Ok(descriptors) = process.fd() else {
            continue;
        };
        let mut name: Option<String> = None;
        for descriptor in descriptors.flatten() {
            let FDTarget::Socket(inode) = descriptor.target else {
                continue;
            };
            if !wanted.contains(&inode) || owners.contains_key(&inode) {
                continue;
            }
            let name = name
                .get_or_insert_with(|| process.stat().map(|stat| stat.comm).unwrap_or_default());
            owners.insert(inode, name.clone());
        }
        if owners.len() == wanted.len() {
            break;
        }
    }
    owners
}

#[cfg(test)]
mod tests {
    use super::*;

    fn port(port: u16, protocol: Protocol, name: &str) -> ListeningPort {
        ListeningPort {
            port,
            protocol,
            name: PortName::cut_to_fit(name),
        }
    }

    #[test]
    fn ports_are_sorted_by_port_then_protocol() {
        let summary = summarise([
            port(8000, Protocol::Tcp, "devmgr"),
            port(53, Protocol::Udp, "dnsmasq"),
            port(53, Protocol::Tcp, "dnsmasq"),
            port(22, Protocol::Tcp, "sshd"),
        ]);
        assert_eq!(
            summary,
            [
                port(22, Protocol::Tcp, "sshd"),
                port(53, Protocol::Tcp, "dnsmasq"),
                port(53, Protocol::Udp, "dnsmasq"),
                port(8000, Protocol::Tcp, "devmgr"),
            ]
        );
    }

    #[test]
    fn a_port_on_ipv4_and_ipv6_is_reported_once_with_a_known_name() {
        let summary = summarise([
            port(22, Protocol::Tcp, ""),
            port(22, Protocol::Tcp, "sshd"),
            port(22, Protocol::Tcp, "other"),
        ]);
        assert_eq!(summary, [port(22, Protocol::Tcp, "sshd")]);
    }

    #[test]
    fn port_zero_is_left_out_and_names_are_cut() {
        let long = "n".repeat(100);
        let summary = summarise([port(0, Protocol::Udp, "x"), port(9, Protocol::Udp, &long)]);
        assert_eq!(
            summary,
            [port(9, Protocol::Udp, &"n".repeat(PortName::MAX_CHARS))]
        );
    }

    #[test]
    fn at_most_500_ports_are_reported() {
        let summary = summarise((1..=600).map(|number| port(number, Protocol::Tcp, "")));
        assert_eq!(summary.len(), MAX_PORTS);
        assert_eq!(summary.last().unwrap().port, 500);
    }

    #[test]
    fn ports_serialize_as_the_server_expects() {
        assert_eq!(
            serde_json::to_value(port(22, Protocol::Tcp, "sshd")).unwrap(),
            serde_json::json!({"port": 22, "protocol": "tcp", "name": "sshd"})
        );
    }

    #[test]
    fn a_socket_this_process_listens_on_is_found_with_its_name() {
        let tcp = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let udp = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
        let connected = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
        connected.connect(udp.local_addr().unwrap()).unwrap();
        let ports = listening_ports();
        let own_name = procfs::process::Process::myself()
            .and_then(|me| me.stat())
            .map(|stat| stat.comm)
            .unwrap();
        assert!(
            ports.contains(&port(
                tcp.local_addr().unwrap().port(),
                Protocol::Tcp,
                &own_name
            )),
            "{ports:?}"
        );
        assert!(
            ports.contains(&port(
                udp.local_addr().unwrap().port(),
                Protocol::Udp,
                &own_name
            )),
            "{ports:?}"
        );
        let connected_port = connected.local_addr().unwrap().port();
        assert!(
            !ports
                .iter()
                .any(|p| p.port == connected_port && p.protocol == Protocol::Udp),
            "{ports:?}"
        );
    }
}
