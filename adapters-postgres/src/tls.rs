//! TLS to PostgreSQL, with libpq's `sslmode` and `sslrootcert`
//! (docs/operations.md, "PostgreSQL"), on rustls: no OpenSSL at build or
//! run time.
//!
//! | `sslmode`     | TLS                             | certificate check         |
//! |---------------|---------------------------------|---------------------------|
//! | `disable`     | never                           | —                         |
//! | `prefer`      | when the server offers it       | none                      |
//! | `require`     | always                          | none, unless a root file* |
//! | `verify-ca`   | always                          | chain                     |
//! | `verify-full` | always                          | chain and host name       |
//!
//! \* As in libpq, `require` checks the chain (as `verify-ca`) when a file
//! of authorities is there: `sslrootcert=FILE` (if it exists), or
//! `~/.postgresql/root.crt`.
//! The authorities are chosen by [`Roots::choose`].

mod describe;
mod options;
mod pairs;
mod roots;
mod verifier;

use options::Mode;
use roots::Roots;
use std::sync::Arc;
use tokio_postgres::config::SslMode;
use tokio_postgres_rustls::MakeRustlsConnect;
use verifier::Check;

pub(crate) use describe::{address, with_causes};

/// How the connections of a store speak TLS: the connector every one of
/// them uses (pool, listening session, migrations) and the settings, for
/// messages.
#[derive(Clone)]
pub(crate) struct Tls {
    connector: MakeRustlsConnect,
    mode: Mode,
    /// The authorities, when the chain is checked.
    roots: Option<Roots>,
}

/// What is wrong with a connection string.
#[derive(Debug)]
pub(crate) enum Unusable {
    /// It does not parse, or names an unknown value.
    Url(String),
    /// Its TLS settings cannot be used (a root file that cannot be read).
    Tls(String),
}

impl Tls {
    /// Reads a connection string (a `postgres://` URL or key=value pairs):
    /// the driver's configuration, its TLS mode set, and the connector.
    pub(crate) fn configure(connection: &str) -> Result<(tokio_postgres::Config, Self), Unusable> {
        let (rest, options) = options::split(connection).map_err(Unusable::Url)?;
        let mut config: tokio_postgres::Config = rest
            .parse()
            .map_err(|e: tokio_postgres::Error| Unusable::Url(with_causes(&e)))?;
        config.ssl_mode(match options.mode {
            Mode::Disable => SslMode::Disable,
            Mode::Prefer => SslMode::Prefer,
            Mode::Require | Mode::VerifyCa | Mode::VerifyFull => SslMode::Require,
        });
        let home = std::env::var_os("HOME").map(std::path::PathBuf::from);
        let chosen = Roots::choose(options.root_cert.as_ref(), home.as_deref());
        let roots = match options.mode {
            Mode::VerifyCa | Mode::VerifyFull => Some(chosen),
            Mode::Require if chosen.is_file() => Some(chosen),
            Mode::Disable | Mode::Prefer | Mode::Require => None,
        };
        let check = match (&roots, options.mode) {
            (None, _) => Check::Nothing,
            (Some(roots), Mode::VerifyFull) => {
                Check::ChainAndName(roots.load().map_err(Unusable::Tls)?)
            }
            (Some(roots), _) => Check::Chain(roots.load().map_err(Unusable::Tls)?),
        };
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let client = rustls::ClientConfig::builder_with_provider(Arc::clone(&provider))
            .with_safe_default_protocol_versions()
            .map_err(|e| Unusable::Tls(e.to_string()))?
            .dangerous()
            .with_custom_certificate_verifier(check.verifier(&provider).map_err(Unusable::Tls)?)
            .with_no_client_auth();
        let tls = Tls {
            connector: MakeRustlsConnect::new(client),
            mode: options.mode,
            roots,
        };
        Ok((config, tls))
    }

    /// The connector for tokio-postgres (with `sslmode=disable` it is never used).
    pub(crate) fn connector(&self) -> MakeRustlsConnect {
        self.connector.clone()
    }

    #[cfg(test)]
    fn for_tests(mode: Mode, roots: Option<Roots>) -> Self {
        let (_, mut tls) = Self::configure("postgres://localhost/devmgr?sslmode=disable")
            .unwrap_or_else(|_| panic!("a plain URL configures"));
        tls.mode = mode;
        tls.roots = roots;
        tls
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn configure(url: &str) -> (tokio_postgres::Config, Tls) {
        Tls::configure(url).unwrap_or_else(|e| panic!("{url}: {e:?}"))
    }

    #[test]
    fn each_mode_sets_the_drivers_mode_and_the_check() {
        let cases = [
            ("disable", SslMode::Disable, false),
            ("prefer", SslMode::Prefer, false),
            ("require", SslMode::Require, false),
            ("verify-ca", SslMode::Require, true),
            ("verify-full", SslMode::Require, true),
        ];
        for (mode, driver, checks_chain) in cases {
            let (config, tls) = configure(&format!(
                "postgres://u:pw@db/devmgr?sslmode={mode}&connect_timeout=3"
            ));
            assert_eq!(config.get_ssl_mode(), driver, "{mode}");
            assert_eq!(tls.roots.is_some(), checks_chain, "{mode}");
            assert_eq!(config.get_password(), Some(&b"pw"[..]));
            assert_eq!(
                config.get_connect_timeout(),
                Some(&std::time::Duration::from_secs(3))
            );
        }
    }

    #[test]
    fn a_root_file_that_cannot_be_read_is_refused_at_once_when_checking() {
        // As libpq: require checks the chain only when the file is there.
        let url = "postgres://db/devmgr?sslmode=require&sslrootcert=/nonexistent/ca.pem";
        assert!(configure(url).1.roots.is_none());
        for mode in ["verify-ca", "verify-full"] {
            let url =
                format!("postgres://db/devmgr?sslmode={mode}&sslrootcert=/nonexistent/ca.pem");
            match Tls::configure(&url) {
                Err(Unusable::Tls(why)) => {
                    assert!(why.contains("sslrootcert=/nonexistent/ca.pem"), "{why}")
                }
                Err(other) => panic!("{mode}: {other:?}"),
                Ok(_) => panic!("{mode}: configured"),
            }
        }
    }

    #[test]
    fn other_parameters_still_reach_the_driver_and_its_errors_come_back() {
        match Tls::configure("postgres://u:s3cret@db/devmgr?sslmode=verify-full&no_such=1") {
            Err(Unusable::Url(why)) => {
                assert!(why.contains("no_such"), "{why}");
                assert!(!why.contains("s3cret"), "{why}");
            }
            _ => panic!("an unknown parameter is refused"),
        }
    }
}
