//! The URLs of the agent protocol, built from the server's base URL.

use domain::PollWait;
use reqwest::Url;
use std::net::IpAddr;

/// Why a server URL cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum InvalidServerUrl {
    /// Not a URL at all.
    #[error("invalid server URL {url:?}: {reason}")]
    Unparsable {
        /// The URL as given.
        url: String,
        /// The parser's complaint.
        reason: String,
    },
    /// A URL the agent cannot talk to.
    #[error(
        "invalid server URL {url:?}: it must be an http:// or https:// URL without query or fragment"
    )]
    Unsupported {
        /// The URL as given.
        url: String,
    },
}

/// The base URL of a devmgr server and the routes under it.
#[derive(Debug, Clone)]
pub struct Endpoints {
    base: Url,
}

impl Endpoints {
    /// Checks `server` (`http://` or `https://`, maybe with a path prefix).
    pub fn new(server: &str) -> Result<Self, InvalidServerUrl> {
        let base = Url::parse(server.trim()).map_err(|error| InvalidServerUrl::Unparsable {
            url: server.to_owned(),
            reason: error.to_string(),
        })?;
        let supported = matches!(base.scheme(), "http" | "https")
            && base.has_host()
            && base.query().is_none()
            && base.fragment().is_none();
        if !supported {
            return Err(InvalidServerUrl::Unsupported {
                url: server.to_owned(),
            });
        }
        Ok(Self { base })
    }

    /// Whether requests go unencrypted (`http://`) to another machine, so
    /// that the install token and the device token travel in clear.
    pub fn is_cleartext_to_another_host(&self) -> bool {
        self.base.scheme() == "http" && !self.base.host_str().is_some_and(is_loopback_host)
    }

    /// Logs a warning when [`Endpoints::is_cleartext_to_another_host`].
    pub fn warn_if_cleartext(&self) {
        if self.is_cleartext_to_another_host() {
            tracing::warn!(
                server = %self.base,
                "the server URL is plain http:// to another machine: the install token and \
                 the device token travel unencrypted and can be read or changed on the way; \
                 use an https:// URL"
            );
        }
    }

    /// `POST {server}/install/`.
    pub fn install(&self) -> Url {
        self.route(&["install"])
    }

    /// `POST {server}/agent/heartbeat/`.
    pub fn heartbeat(&self) -> Url {
        self.route(&["agent", "heartbeat"])
    }

    /// `GET {server}/agent/commands/?wait=<wait>`.
    pub fn commands(&self, wait: PollWait) -> Url {
        let mut url = self.route(&["agent", "commands"]);
        url.query_pairs_mut().append_pair("wait", &wait.to_string());
        url
    }

    /// `POST {server}/agent/commands/{id}/ack/`, the id percent-encoded.
    pub fn ack(&self, command_id: &str) -> Url {
        self.route(&["agent", "commands", command_id, "ack"])
    }

    /// The base URL followed by `segments` and a trailing slash.
    fn route(&self, segments: &[&str]) -> Url {
        let mut url = self.base.clone();
        url.path_segments_mut()
            .expect("an http(s) URL has a path")
            .pop_if_empty()
            .extend(segments)
            .push("");
        url
    }
}

/// Whether `host` (a URL's host: a name, an IPv4 address, or an IPv6 one in
/// brackets) is this machine: `localhost`, 127.0.0.0/8 or ::1.
pub fn is_loopback_host(host: &str) -> bool {
    let unbracketed = host
        .strip_prefix('[')
        .and_then(|inner| inner.strip_suffix(']'))
        .unwrap_or(host);
    match unbracketed.parse::<IpAddr>() {
        Ok(IpAddr::V4(address)) => address.is_loopback(),
        Ok(IpAddr::V6(address)) => {
            address.is_loopback() || address.to_ipv4_mapped().is_some_and(|v4| v4.is_loopback())
        }
        Err(_) => {
            let name = host.strip_suffix('.').unwrap_or(host);
            name.eq_ignore_ascii_case("localhost")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn routes_end_in_a_slash_whatever_the_base_ends_in() {
        for base in ["http://127.0.0.1:8000", "http://127.0.0.1:8000/"] {
            let endpoints = Endpoints::new(base).unwrap();
            assert_eq!(
                endpoints.install().as_str(),
                "http://127.0.0.1:8000/install/"
            );
            assert_eq!(
                endpoints.heartbeat().as_str(),
                "http://127.0.0.1:8000/agent/heartbeat/"
            );
            assert_eq!(
                endpoints.commands(PollWait::new(30).unwrap()).as_str(),
                "http://127.0.0.1:8000/agent/commands/?wait=30"
            );
            assert_eq!(
                endpoints
                    .ack("0f8fad5b-d9cb-469f-a165-70867728950e")
                    .as_str(),
                "http://127.0.0.1:8000/agent/commands/0f8fad5b-d9cb-469f-a165-70867728950e/ack/"
            );
        }
    }

    #[test]
    fn a_path_prefix_is_kept() {
        let endpoints = Endpoints::new("https://example.com/devmgr/").unwrap();
        assert_eq!(
            endpoints.heartbeat().as_str(),
            "https://example.com/devmgr/agent/heartbeat/"
        );
    }

    #[test]
    fn command_ids_are_one_path_segment() {
        let endpoints = Endpoints::new("http://h").unwrap();
        assert_eq!(
            endpoints.ack("a/b?c").as_str(),
            "http://h/agent/commands/a%2Fb%3Fc/ack/"
        );
    }

    #[test]
    fn plain_http_to_another_host_is_cleartext() {
        for server in [
            "http://192.0.2.1:9/",
            "http://devmgr.example.com",
            "http://10.0.0.5:8000",
            "http://[2001:db8::1]:8000",
            "http://localhost.example.com",
            "http://128.0.0.1",
            "http://0.0.0.0:8000",
        ] {
            let endpoints = Endpoints::new(server).unwrap();
            assert!(endpoints.is_cleartext_to_another_host(), "{server}");
        }
    }

    #[test]
    fn https_or_this_machine_is_not_cleartext_to_another_host() {
        for server in [
            "https://devmgr.example.com",
            "https://192.0.2.1",
            "http://127.0.0.1:8000",
            "http://127.8.9.10",
            "http://127.1:8000",
            "http://localhost:8000/devmgr",
            "http://LOCALHOST",
            "http://localhost.:8000",
            "http://[::1]:8000",
            "http://[::ffff:127.0.0.1]:8000",
        ] {
            let endpoints = Endpoints::new(server).unwrap();
            assert!(!endpoints.is_cleartext_to_another_host(), "{server}");
        }
    }

    #[test]
    fn loopback_hosts_are_localhost_127_8_and_ipv6_1() {
        for host in ["localhost", "127.0.0.1", "127.255.255.254", "[::1]", "::1"] {
            assert!(is_loopback_host(host), "{host}");
        }
        for host in [
            "192.0.2.1",
            "example.com",
            "[::2]",
            "126.0.0.1",
            "localhostx",
            "",
        ] {
            assert!(!is_loopback_host(host), "{host}");
        }
    }

    #[test]
    fn unusable_urls_are_refused() {
        for server in [
            "",
            "127.0.0.1:8000",
            "ftp://example.com",
            "http://example.com/?x=1",
            "file:///tmp",
        ] {
            assert!(Endpoints::new(server).is_err(), "{server:?} accepted");
        }
    }
}
