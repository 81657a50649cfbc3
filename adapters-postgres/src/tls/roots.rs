//! The certificate authorities a server's certificate is checked against:
//! `sslrootcert=FILE`; else, as libpq, `~/.postgresql/root.crt` when it
//! exists; else (or with `sslrootcert=system`) the system's trusted
//! authorities, and Mozilla's list compiled in when the system has none.

use super::options::RootCert;
use rustls::RootCertStore;
use rustls::pki_types::CertificateDer;
use rustls::pki_types::pem::{self, PemObject};
use std::fmt;
use std::path::{Path, PathBuf};

/// Where the trusted authorities come from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Roots {
    /// `sslrootcert=FILE`.
    Given(PathBuf),
    /// libpq's default file, `~/.postgresql/root.crt`, which exists.
    Default(PathBuf),
    /// `sslrootcert=system`.
    System,
    /// No file given nor at the default place: the system's.
    SystemByDefault,
}

impl Roots {
    /// The authorities of `sslrootcert`, else of the default file when it
    /// exists under `home`, else the system's.
    pub(crate) fn choose(root_cert: Option<&RootCert>, home: Option<&Path>) -> Self {
        match root_cert {
            Some(RootCert::File(path)) => Roots::Given(path.clone()),
            Some(RootCert::System) => Roots::System,
            None => home
                .map(|home| home.join(".postgresql").join("root.crt"))
                .filter(|file| file.is_file())
                .map_or(Roots::SystemByDefault, Roots::Default),
        }
    }

    /// Whether a file of authorities is there, which makes libpq check the
    /// chain of `sslmode=require` too (a file named but missing does not).
    pub(crate) fn is_file(&self) -> bool {
        matches!(self, Roots::Given(file) | Roots::Default(file) if file.is_file())
    }

    /// The authorities, read now: a file that cannot be read or holds no
    /// certificate is an error that says so.
    pub(crate) fn load(&self) -> Result<RootCertStore, String> {
        match self {
            Roots::Given(path) | Roots::Default(path) => from_file(path, self),
            Roots::System | Roots::SystemByDefault => Ok(system()),
        }
    }
}

impl fmt::Display for Roots {
    /// How messages name them.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Roots::Given(path) => write!(f, "sslrootcert={}", path.display()),
            Roots::Default(path) => write!(f, "root certificates from {}", path.display()),
            Roots::System => f.write_str("sslrootcert=system"),
            Roots::SystemByDefault => f.write_str("the system's trusted certificate authorities"),
        }
    }
}

fn from_file(path: &Path, roots: &Roots) -> Result<RootCertStore, String> {
    let unreadable = |e: pem::Error| match e {
        pem::Error::Io(e) => format!("cannot read {roots}: {e}"),
        e => format!("cannot read {roots}: {e}"),
    };
    let certificates = CertificateDer::pem_file_iter(path)
        .map_err(unreadable)?
        .collect::<Result<Vec<_>, _>>()
        .map_err(unreadable)?;
    if certificates.is_empty() {
        return Err(format!("{roots} holds no PEM certificate"));
    }
    let mut store = RootCertStore::empty();
    for certificate in certificates {
        store
            .add(certificate)
            .map_err(|e| format!("{roots} holds a certificate that cannot be used: {e}"))?;
    }
    Ok(store)
}

/// The system's trusted authorities, or Mozilla's when it has none.
fn system() -> RootCertStore {
    let mut store = RootCertStore::empty();
    let found = rustls_native_certs::load_native_certs();
    for error in &found.errors {
        tracing::debug!(%error, "skipping a system root certificate");
    }
    store.add_parsable_certificates(found.certs);
    if store.is_empty() {
        store.extend(webpki_roots::TLS_SERVER_ROOTS.iter().cloned());
    }
    store
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_given_file_wins_then_the_default_file_then_the_system() {
        let home = std::env::temp_dir().join(format!("devmgr-roots-{}", std::process::id()));
        let given = RootCert::File("/etc/devmgr/ca.pem".into());
        assert_eq!(
            Roots::choose(Some(&given), Some(&home)),
            Roots::Given("/etc/devmgr/ca.pem".into())
        );
        assert_eq!(
            Roots::choose(Some(&RootCert::System), Some(&home)),
            Roots::System
        );
        assert_eq!(Roots::choose(None, Some(&home)), Roots::SystemByDefault);
        assert_eq!(Roots::choose(None, None), Roots::SystemByDefault);
        let default = home.join(".postgresql").join("root.crt");
        std::fs::create_dir_all(default.parent().unwrap()).unwrap();
        std::fs::write(&default, "").unwrap();
        assert_eq!(Roots::choose(None, Some(&home)), Roots::Default(default));
        std::fs::remove_dir_all(&home).unwrap();
    }

    #[test]
    fn a_file_that_is_missing_or_holds_no_certificate_is_refused_by_name() {
        let missing = Roots::Given("/nonexistent/devmgr-ca.pem".into());
        let error = missing.load().unwrap_err();
        assert!(
            error.starts_with("cannot read sslrootcert=/nonexistent/devmgr-ca.pem: "),
            "{error}"
        );
        let empty = std::env::temp_dir().join(format!("devmgr-empty-{}.pem", std::process::id()));
        std::fs::write(&empty, "not a certificate\n").unwrap();
        let error = Roots::Given(empty.clone()).load().unwrap_err();
        std::fs::remove_file(&empty).unwrap();
        assert_eq!(
            error,
            format!("sslrootcert={} holds no PEM certificate", empty.display())
        );
    }

    #[test]
    fn the_system_always_gives_authorities() {
        assert!(!Roots::System.load().unwrap().is_empty());
    }
}
