//! A webhook's target URL, validated as Django's `URLValidator` does for
//! `http` and `https`.

use std::net::IpAddr;
use thiserror::Error;

/// The longest target URL, in characters.
pub const MAX_TARGET_URL_CHARS: usize = 2000;

/// The text was not an absolute `http://` or `https://` URL of at most
/// [`MAX_TARGET_URL_CHARS`] characters with a host name or address.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
#[error("Enter a valid URL.")]
pub struct InvalidTargetUrl;

/// Where a target URL points.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TargetHost {
    /// An address written in the URL.
    Address(IpAddr),
    /// A host name, to be resolved.
    Name(String),
}

/// A webhook's target: kept as sent, with its host and port.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TargetUrl {
    text: String,
    host: TargetHost,
    port: u16,
}

impl TargetUrl {
    /// Takes `raw` if it is an absolute `http` or `https` URL of at most
    /// [`MAX_TARGET_URL_CHARS`] characters, without whitespace, whose host
    /// is an IP address, `localhost` or a domain name with a top-level
    /// domain.
    pub fn parse(raw: &str) -> Result<Self, InvalidTargetUrl> {
        if raw.chars().count() > MAX_TARGET_URL_CHARS || raw.chars().any(char::is_whitespace) {
            return Err(InvalidTargetUrl);
        }
        let scheme_ok = raw.split_once("://").is_some_and(|(scheme, _)| {
            matches!(scheme.to_ascii_lowercase().as_str(), "http" | "https")
        });
        if !scheme_ok {
            return Err(InvalidTargetUrl);
        }
        let url = url::Url::parse(raw).map_err(|_| InvalidTargetUrl)?;
        let port = url.port_or_known_default().ok_or(InvalidTargetUrl)?;
        let host = match url.host().ok_or(InvalidTargetUrl)? {
            url::Host::Ipv4(address) => TargetHost::Address(IpAddr::V4(address)),
            url::Host::Ipv6(address) => TargetHost::Address(IpAddr::V6(address)),
            url::Host::Domain(name) if is_host_name(name) => TargetHost::Name(name.to_owned()),
            url::Host::Domain(_) => return Err(InvalidTargetUrl),
        };
        Ok(Self {
            text: raw.to_owned(),
            host,
            port,
        })
    }

    /// The URL as it was sent.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// Its host.
    pub fn host(&self) -> &TargetHost {
        &self.host
    }

    /// Its port (the scheme's when none is written).
    pub fn port(&self) -> u16 {
        self.port
    }
}

/// `localhost`, or dot-separated labels of letters, digits and inner
/// hyphens ending with a top-level domain of letters (or punycode).
fn is_host_name(name: &str) -> bool {
    let name = name.strip_suffix('.').unwrap_or(name);
    if name == "localhost" {
        return true;
    }
    let labels: Vec<&str> = name.split('.').collect();
    let label_ok = |label: &&str| {
        !label.is_empty()
            && label.len() <= 63
            && !label.starts_with('-')
            && !label.ends_with('-')
            && label.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
    };
    let top = labels.last().copied().unwrap_or_default();
    let top_ok =
        top.starts_with("xn--") || (top.len() >= 2 && top.chars().all(|c| c.is_ascii_alphabetic()));
    labels.len() >= 2 && labels.iter().all(label_ok) && top_ok
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn takes_http_and_https_urls_with_a_real_host() {
        for (raw, port) in [
            ("https://hooks.example.com/devmgr", 443),
            ("http://example.com:8080/x?y=1", 8080),
            ("HTTPS://Example.COM", 443),
            ("http://localhost/", 80),
            ("http://127.0.0.1:9000/", 9000),
            ("http://[::1]:9000/", 9000),
            ("https://münchen.de/", 443),
        ] {
            let url = TargetUrl::parse(raw).unwrap_or_else(|_| panic!("{raw}"));
            assert_eq!(url.as_str(), raw);
            assert_eq!(url.port(), port, "{raw}");
        }
    }

    #[test]
    fn refuses_what_django_refuses() {
        for raw in [
            "",
            "example.com",
            "ftp://example.com/",
            "http://",
            "http://example",
            "http://exa mple.com/",
            "http://-bad.example.com/",
            "http://example.c0m/",
            "mailto:a@example.com",
            "javascript:alert(1)",
            &format!("https://example.com/{}", "a".repeat(1981)),
        ] {
            assert_eq!(TargetUrl::parse(raw), Err(InvalidTargetUrl), "{raw}");
        }
        let longest = format!("https://example.com/{}", "a".repeat(1980));
        assert!(TargetUrl::parse(&longest).is_ok());
    }

    #[test]
    fn knows_its_host() {
        let url = TargetUrl::parse("http://10.0.0.5/hook").unwrap();
        assert_eq!(
            url.host(),
            &TargetHost::Address("10.0.0.5".parse().unwrap())
        );
        let url = TargetUrl::parse("https://Hooks.Example.com/").unwrap();
        assert_eq!(url.host(), &TargetHost::Name("hooks.example.com".into()));
    }
}
