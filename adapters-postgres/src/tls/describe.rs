//! Why a connection failed, in plain words: which certificate check failed
//! and under which settings, or that the server does not speak TLS.

use super::Tls;
use rustls::CertificateError;
use std::error::Error as StdError;
use tokio_postgres::config::Host;

/// What tokio-postgres says when a server answers an SSLRequest with no.
const NO_TLS: &str = "server does not support TLS";

impl Tls {
    /// Why connecting failed: the certificate check or the refusal of TLS
    /// explained with the settings in force, else the driver's own words.
    pub(crate) fn explain(&self, error: &tokio_postgres::Error) -> String {
        if error
            .source()
            .is_some_and(|cause| cause.to_string() == NO_TLS)
        {
            return format!(
                "the server does not accept TLS (sslmode={})",
                self.mode.name()
            );
        }
        match rustls_error(error) {
            Some(rustls::Error::InvalidCertificate(certificate)) => self.refused(certificate),
            Some(other) => format!("the TLS handshake failed: {other}"),
            None => with_causes(error),
        }
    }

    /// The settings, for messages: the mode and, when the chain is
    /// checked, the authorities.
    fn settings(&self) -> String {
        match &self.roots {
            Some(roots) => format!("sslmode={}, {roots}", self.mode.name()),
            None => format!("sslmode={}", self.mode.name()),
        }
    }

    fn refused(&self, certificate: &CertificateError) -> String {
        let mode = self.mode.name();
        match certificate {
            CertificateError::UnknownIssuer => format!(
                "the server's certificate is not signed by a trusted certificate authority ({})",
                self.settings()
            ),
            CertificateError::NotValidForNameContext {
                expected,
                presented,
            } => {
                let names: Vec<_> = presented.iter().map(|name| plain_name(name)).collect();
                let names = match names.as_slice() {
                    [] => "no host name".to_owned(),
                    [one] => one.clone(),
                    many => many.join(", "),
                };
                let expected = expected.to_str();
                format!("the server's certificate is for {names}, not {expected} (sslmode={mode})")
            }
            CertificateError::NotValidForName => {
                format!("the server's certificate is for another host name (sslmode={mode})")
            }
            CertificateError::Expired | CertificateError::ExpiredContext { .. } => {
                format!("the server's certificate has expired ({})", self.settings())
            }
            CertificateError::NotValidYet | CertificateError::NotValidYetContext { .. } => {
                format!(
                    "the server's certificate is not valid yet ({})",
                    self.settings()
                )
            }
            other => format!(
                "the server's certificate was refused: {} ({})",
                rustls::Error::InvalidCertificate(other.clone()),
                self.settings()
            ),
        }
    }
}

/// `host:port` of every host a configuration names, for messages.
pub(crate) fn address(config: &tokio_postgres::Config) -> String {
    let ports = config.get_ports();
    let hosts: Vec<_> = config
        .get_hosts()
        .iter()
        .enumerate()
        .map(|(i, host)| {
            let port = ports.get(i).or(ports.first()).copied().unwrap_or(5432);
            match host {
                Host::Tcp(name) if name.contains(':') => format!("[{name}]:{port}"),
                Host::Tcp(name) => format!("{name}:{port}"),
                Host::Unix(dir) => format!("{}/.s.PGSQL.{port}", dir.display()),
            }
        })
        .collect();
    hosts.join(",")
}

/// An error and its causes, `: `-separated: the driver's own words name the
/// kind of failure only ("db error"), its causes say what happened.
pub(crate) fn with_causes(error: &(dyn StdError + 'static)) -> String {
    let mut words = error.to_string();
    let mut next = error.source();
    while let Some(cause) = next {
        let said = cause.to_string();
        if !words.ends_with(&said) {
            words = format!("{words}: {said}");
        }
        next = cause.source();
    }
    words
}

/// The rustls error under a driver error, if any: tokio-postgres wraps
/// the I/O error of tokio-rustls, which wraps rustls's.
fn rustls_error(error: &tokio_postgres::Error) -> Option<&rustls::Error> {
    let mut next: Option<&(dyn StdError + 'static)> = Some(error);
    while let Some(current) = next {
        if let Some(found) = current.downcast_ref::<rustls::Error>() {
            return Some(found);
        }
        let inner = current
            .downcast_ref::<std::io::Error>()
            .and_then(std::io::Error::get_ref)
            .and_then(|inner| inner.downcast_ref::<rustls::Error>());
        if inner.is_some() {
            return inner;
        }
        next = current.source();
    }
    None
}

/// A name as webpki reports it (`DnsName("localhost")`, `IpAddress(10.0.0.1)`), plainly.
fn plain_name(presented: &str) -> String {
    let inner = ["DnsName(", "IpAddress("].iter().find_map(|kind| {
        presented
            .strip_prefix(kind)
            .and_then(|rest| rest.strip_suffix(')'))
    });
    inner
        .map(|name| name.trim_matches('"'))
        .unwrap_or(presented)
        .to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tls::options::Mode;
    use crate::tls::roots::Roots;
    use rustls::pki_types::ServerName;

    fn tls(mode: Mode, roots: Option<Roots>) -> Tls {
        Tls::for_tests(mode, roots)
    }

    #[test]
    fn certificate_refusals_say_what_is_wrong_and_under_which_settings() {
        let full = tls(Mode::VerifyFull, Some(Roots::Given("/path/ca.pem".into())));
        assert_eq!(
            full.refused(&CertificateError::UnknownIssuer),
            "the server's certificate is not signed by a trusted certificate authority \
             (sslmode=verify-full, sslrootcert=/path/ca.pem)"
        );
        let wrong_name = CertificateError::NotValidForNameContext {
            expected: ServerName::try_from("127.0.0.1").unwrap(),
            presented: vec!["DnsName(\"localhost\")".into()],
        };
        assert_eq!(
            full.refused(&wrong_name),
            "the server's certificate is for localhost, not 127.0.0.1 (sslmode=verify-full)"
        );
        let system = tls(Mode::VerifyFull, Some(Roots::SystemByDefault));
        assert_eq!(
            system.refused(&CertificateError::Expired),
            "the server's certificate has expired \
             (sslmode=verify-full, the system's trusted certificate authorities)"
        );
    }

    #[test]
    fn presented_names_read_plainly() {
        assert_eq!(plain_name("DnsName(\"db.example\")"), "db.example");
        assert_eq!(plain_name("IpAddress(10.0.0.1)"), "10.0.0.1");
        assert_eq!(plain_name("Unsupported(0x01)"), "Unsupported(0x01)");
    }

    #[test]
    fn addresses_name_every_host_and_port() {
        let config: tokio_postgres::Config = "postgres://u:s3cret@db.example,10.0.0.2:6432/devmgr"
            .parse()
            .unwrap();
        assert_eq!(address(&config), "db.example:5432,10.0.0.2:6432");
        let config: tokio_postgres::Config = "host=::1 port=5433".parse().unwrap();
        assert_eq!(address(&config), "[::1]:5433");
    }
}
