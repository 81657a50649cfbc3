//! The TLS options of a connection string, read as libpq reads them:
//! `sslmode` and `sslrootcert`. They are taken out of the string before
//! tokio-postgres parses the rest, which knows neither `verify-ca`,
//! `verify-full` nor `sslrootcert`. Both forms libpq takes are read: the URL
//! (`postgres://…?sslmode=verify-full&sslrootcert=/etc/ca.pem`) and
//! key=value pairs (`host=db sslmode=require`).

use super::pairs::{self, Pair};
use percent_encoding::percent_decode_str;
use std::path::PathBuf;

/// libpq's `sslmode`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mode {
    /// No TLS.
    Disable,
    /// TLS when the server offers it, plain otherwise; no certificate check.
    Prefer,
    /// TLS or nothing; no certificate check, unless a root certificate file
    /// is there (then as [`Mode::VerifyCa`]).
    Require,
    /// TLS, and the server's certificate signed by a trusted authority.
    VerifyCa,
    /// As [`Mode::VerifyCa`], and the certificate names the host connected to.
    VerifyFull,
}

impl Mode {
    const ALL: [Mode; 5] = [
        Mode::Disable,
        Mode::Prefer,
        Mode::Require,
        Mode::VerifyCa,
        Mode::VerifyFull,
    ];

    /// The value of `sslmode` that means this mode.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Mode::Disable => "disable",
            Mode::Prefer => "prefer",
            Mode::Require => "require",
            Mode::VerifyCa => "verify-ca",
            Mode::VerifyFull => "verify-full",
        }
    }

    fn parse(value: &str) -> Result<Self, String> {
        Self::ALL
            .into_iter()
            .find(|mode| mode.name() == value)
            .ok_or_else(|| {
                format!(
                    "sslmode \"{value}\" is not one of disable, prefer, require, verify-ca, \
                     verify-full"
                )
            })
    }
}

/// `sslrootcert`: the trusted certificate authorities.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum RootCert {
    /// A file of PEM certificates.
    File(PathBuf),
    /// `system`: the system's trusted authorities.
    System,
}

/// What a connection string says about TLS, with libpq's defaults applied.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct TlsOptions {
    /// `sslmode`: `prefer` when not given (`verify-full` with `sslrootcert=system`).
    pub(crate) mode: Mode,
    /// `sslrootcert`, when given and not empty.
    pub(crate) root_cert: Option<RootCert>,
}

/// Takes `sslmode` and `sslrootcert` out of a connection string: returns
/// the rest, for tokio-postgres, and the options. An error names what is
/// wrong (never the rest of the string, which may hold a password).
pub(crate) fn split(connection: &str) -> Result<(String, TlsOptions), String> {
    let (rest, mode, root_cert) = match url_parameters(connection) {
        Some((head, parameters)) => split_url(head, parameters),
        None => split_pairs(connection),
    };
    let root_cert = root_cert
        .filter(|value| !value.is_empty())
        .map(|value| match value.as_str() {
            "system" => RootCert::System,
            _ => RootCert::File(PathBuf::from(value)),
        });
    let mode = match (mode.as_deref().map(Mode::parse).transpose()?, &root_cert) {
        (None, Some(RootCert::System)) => Mode::VerifyFull,
        (None, _) => Mode::Prefer,
        // libpq 16: the system's authorities vouch for any name, so only a
        // check of the name makes them mean something.
        (Some(mode), Some(RootCert::System)) if mode != Mode::VerifyFull => {
            return Err(format!(
                "weak sslmode \"{}\" may not be used with sslrootcert=system (use \"verify-full\")",
                mode.name()
            ));
        }
        (Some(mode), _) => mode,
    };
    Ok((rest, TlsOptions { mode, root_cert }))
}

/// The values of `sslmode` and `sslrootcert`, when given (the last one wins, as in libpq).
type Found = (Option<String>, Option<String>);

/// A URL split before its parameters (`?…`): `None` when the string is not a
/// URL. The credentials may hold a `?`: as tokio-postgres does, they end at
/// the first `@`.
fn url_parameters(connection: &str) -> Option<(&str, Option<&str>)> {
    let scheme = ["postgres://", "postgresql://"]
        .into_iter()
        .find(|scheme| connection.starts_with(scheme))?;
    let after_credentials = connection[scheme.len()..]
        .find('@')
        .map_or(scheme.len(), |at| scheme.len() + at + 1);
    Some(match connection[after_credentials..].find('?') {
        Some(question) => {
            let question = after_credentials + question;
            (&connection[..question], Some(&connection[question + 1..]))
        }
        None => (connection, None),
    })
}

fn split_url(head: &str, parameters: Option<&str>) -> (String, Option<String>, Option<String>) {
    let (mut mode, mut root_cert) = (None, None);
    let mut kept = Vec::new();
    for parameter in parameters.into_iter().flat_map(|p| p.split('&')) {
        let (key, value) = parameter.split_once('=').unwrap_or((parameter, ""));
        let decode = |s: &str| percent_decode_str(s).decode_utf8_lossy().into_owned();
        match decode(key).as_str() {
            "sslmode" => mode = Some(decode(value)),
            "sslrootcert" => root_cert = Some(decode(value)),
            _ => kept.push(parameter),
        }
    }
    let rest = if kept.is_empty() {
        head.to_owned()
    } else {
        format!("{head}?{}", kept.join("&"))
    };
    (rest, mode, root_cert)
}

/// Key=value pairs: the TLS ones are cut out, the rest is left as written.
/// A string that does not read as pairs is left whole, for tokio-postgres to
/// say what is wrong with it.
fn split_pairs(connection: &str) -> (String, Option<String>, Option<String>) {
    let Some(pairs) = pairs::read(connection) else {
        return (connection.to_owned(), None, None);
    };
    let (mut found, mut rest, mut from): (Found, String, usize) = ((None, None), String::new(), 0);
    for Pair { key, value, span } in pairs {
        let slot = match key.as_str() {
            "sslmode" => &mut found.0,
            "sslrootcert" => &mut found.1,
            _ => continue,
        };
        *slot = Some(value);
        rest.push_str(&connection[from..span.start]);
        from = span.end;
    }
    rest.push_str(&connection[from..]);
    (rest, found.0, found.1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn options(mode: Mode, root_cert: Option<RootCert>) -> TlsOptions {
        TlsOptions { mode, root_cert }
    }

    #[test]
    fn url_parameters_are_taken_out_and_the_rest_is_kept() {
        let (rest, tls) = split(
            "postgres://devmgr:pw@db.example:5432/devmgr?connect_timeout=5&sslmode=verify-full\
             &sslrootcert=%2Fetc%2Fdevmgr%2Frds-ca.pem&application_name=devmgr",
        )
        .unwrap();
        assert_eq!(
            rest,
            "postgres://devmgr:pw@db.example:5432/devmgr?connect_timeout=5&application_name=devmgr"
        );
        let ca = RootCert::File("/etc/devmgr/rds-ca.pem".into());
        assert_eq!(tls, options(Mode::VerifyFull, Some(ca)));

        let (rest, tls) = split("postgresql://db/devmgr?sslmode=require").unwrap();
        assert_eq!(rest, "postgresql://db/devmgr");
        assert_eq!(tls, options(Mode::Require, None));
    }

    #[test]
    fn without_sslmode_tls_is_preferred_and_with_sslrootcert_system_verified_fully() {
        for url in ["postgres://db/devmgr", "postgres://db/devmgr?sslrootcert="] {
            assert_eq!(split(url).unwrap().1, options(Mode::Prefer, None), "{url}");
        }
        let (rest, tls) = split("postgres://db/devmgr?sslrootcert=system").unwrap();
        assert_eq!(rest, "postgres://db/devmgr");
        assert_eq!(tls, options(Mode::VerifyFull, Some(RootCert::System)));
    }

    #[test]
    fn every_mode_of_libpq_reads_and_others_are_refused_by_name() {
        for mode in Mode::ALL {
            let url = format!("postgres://db/devmgr?sslmode={}", mode.name());
            assert_eq!(split(&url).unwrap().1.mode, mode);
        }
        for bogus in ["bogus", "allow", "VERIFY-FULL", ""] {
            let error =
                split(&format!("postgres://u:s3cret@db/devmgr?sslmode={bogus}")).unwrap_err();
            assert!(error.contains(&format!("sslmode \"{bogus}\"")), "{error}");
            assert!(!error.contains("s3cret"), "{error}");
        }
    }

    #[test]
    fn sslrootcert_system_takes_verify_full_only() {
        let error = split("postgres://db/devmgr?sslmode=require&sslrootcert=system").unwrap_err();
        assert_eq!(
            error,
            "weak sslmode \"require\" may not be used with sslrootcert=system (use \"verify-full\")"
        );
        assert!(split("postgres://db/devmgr?sslmode=verify-full&sslrootcert=system").is_ok());
    }

    #[test]
    fn a_question_mark_in_the_password_is_not_the_start_of_the_parameters() {
        let url = "postgres://devmgr:pa?ss@db/devmgr?sslmode=disable";
        let (rest, tls) = split(url).unwrap();
        assert_eq!(rest, "postgres://devmgr:pa?ss@db/devmgr");
        assert_eq!(tls.mode, Mode::Disable);
        let (rest, tls) = split("postgres://devmgr:pa?ss@db/devmgr").unwrap();
        assert_eq!(rest, "postgres://devmgr:pa?ss@db/devmgr");
        assert_eq!(tls.mode, Mode::Prefer);
    }

    #[test]
    fn key_value_pairs_lose_their_tls_pairs_only() {
        let (rest, tls) = split(
            r"host=db.example sslmode = 'verify-ca' password='it\'s' sslrootcert=/etc/ca.pem dbname=devmgr",
        )
        .unwrap();
        assert_eq!(rest, r"host=db.example  password='it\'s'  dbname=devmgr");
        let ca = RootCert::File("/etc/ca.pem".into());
        assert_eq!(tls, options(Mode::VerifyCa, Some(ca)));
        let parsed: tokio_postgres::Config = rest.parse().unwrap();
        assert_eq!(parsed.get_dbname(), Some("devmgr"));
    }

    #[test]
    fn a_string_that_is_not_pairs_is_left_for_the_driver_to_refuse() {
        let (rest, tls) = split("host=db sslmode=verify-full password='open").unwrap();
        assert_eq!(rest, "host=db sslmode=verify-full password='open");
        assert_eq!(tls.mode, Mode::Prefer);
    }
}
