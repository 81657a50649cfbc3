//! Reading `smtp://` and `smtps://` URLs.

use super::SmtpConfigError;
use percent_encoding::percent_decode_str;
use url::{Host, Url};

/// How the connection is protected.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Security {
    /// `smtp://`: plain TCP, upgraded by STARTTLS as configured.
    StartTls(super::StartTls),
    /// `smtps://`: TLS from the first byte.
    Wrapper,
}

/// Where and how to deliver, from the URL.
/// No `Debug`: it holds the password.
#[derive(Clone)]
pub(super) struct Endpoint {
    pub(super) security: Security,
    /// A domain name or IP address, without brackets.
    pub(super) host: String,
    pub(super) port: u16,
    /// User and password, percent-decoded.
    pub(super) credentials: Option<(String, String)>,
    /// The URL without the password, for logs and errors.
    pub(super) display: String,
}

const ENCODE_HINT: &str =
    "percent-encode / ? # @ : in the user and password as %2F %3F %23 %40 %3A";

impl Endpoint {
    /// Parses the URL. Error messages never repeat any part of the URL but
    /// its scheme, since a malformed URL may put the password anywhere.
    pub(super) fn parse(text: &str, starttls: super::StartTls) -> Result<Self, SmtpConfigError> {
        let url = Url::parse(text).map_err(|e| {
            SmtpConfigError(format!(
                "the URL is not valid ({e}); expected smtp://[user:password@]host[:port] \
                 or smtps://…; {ENCODE_HINT}"
            ))
        })?;
        let (security, default_port) = match url.scheme() {
            "smtp" => (Security::StartTls(starttls), 25),
            "smtps" => (Security::Wrapper, 465),
            other => {
                return Err(SmtpConfigError(format!(
                    "the URL must start with smtp:// or smtps://, not {other}://"
                )));
            }
        };
        let host = match url.host() {
            Some(Host::Domain("")) | None => {
                return Err(SmtpConfigError(
                    "the URL has no host (smtp://host or smtps://host)".into(),
                ));
            }
            Some(Host::Domain(name)) => name.to_owned(),
            Some(Host::Ipv4(ip)) => ip.to_string(),
            Some(Host::Ipv6(ip)) => ip.to_string(),
        };
        if !matches!(url.path(), "" | "/") || url.query().is_some() || url.fragment().is_some() {
            return Err(SmtpConfigError(format!(
                "the URL may hold only user, password, host and port \
                 (no path, ?query or #fragment); {ENCODE_HINT}"
            )));
        }
        let port = url.port().unwrap_or(default_port);
        let credentials = credentials(&url)?;
        let user = match &credentials {
            Some(_) => format!("{}@", url.username()),
            None => String::new(),
        };
        let display = format!(
            "{}://{user}{}:{port}",
            url.scheme(),
            url.host_str().unwrap_or_default()
        );
        Ok(Self {
            security,
            host,
            port,
            credentials,
            display,
        })
    }
}

fn credentials(url: &Url) -> Result<Option<(String, String)>, SmtpConfigError> {
    let decode = |part: &str, what: &str| {
        percent_decode_str(part)
            .decode_utf8()
            .map(|text| text.into_owned())
            .map_err(|_| SmtpConfigError(format!("the {what} in the URL is not UTF-8")))
    };
    match (url.username(), url.password()) {
        ("", None) => Ok(None),
        ("", Some(_)) => Err(SmtpConfigError("the URL has a password but no user".into())),
        (_, None) => Err(SmtpConfigError(
            "the URL has a user but no password (smtp://user:password@host)".into(),
        )),
        (user, Some(password)) => Ok(Some((decode(user, "user")?, decode(password, "password")?))),
    }
}

#[cfg(test)]
mod tests {
    use super::super::StartTls;
    use super::*;

    fn parse(url: &str) -> Endpoint {
        match Endpoint::parse(url, StartTls::Opportunistic) {
            Ok(endpoint) => endpoint,
            Err(e) => panic!("{url}: {e}"),
        }
    }

    #[test]
    fn smtp_defaults_to_port_25_and_the_given_starttls_mode() {
        let endpoint = parse("smtp://relay.example.com");
        assert_eq!(
            endpoint.security,
            Security::StartTls(StartTls::Opportunistic)
        );
        assert_eq!(
            (endpoint.host.as_str(), endpoint.port),
            ("relay.example.com", 25)
        );
        assert!(endpoint.credentials.is_none());
        assert_eq!(endpoint.display, "smtp://relay.example.com:25");
    }

    #[test]
    fn smtps_defaults_to_port_465_and_ignores_starttls() {
        let endpoint = Endpoint::parse("smtps://smtp.example.com/", StartTls::Off).unwrap();
        assert_eq!(endpoint.security, Security::Wrapper);
        assert_eq!(endpoint.port, 465);
    }

    #[test]
    fn an_explicit_port_wins() {
        assert_eq!(parse("smtp://relay.example.com:587").port, 587);
        assert_eq!(parse("smtps://smtp.example.com:2465").port, 2465);
        // url drops a port equal to the scheme's default, so ours must too.
        assert_eq!(parse("smtp://relay.example.com:25").port, 25);
    }

    #[test]
    fn ip_addresses_are_kept_without_brackets() {
        assert_eq!(parse("smtp://127.0.0.1:2525").host, "127.0.0.1");
        let endpoint = parse("smtp://[::1]:2525");
        assert_eq!((endpoint.host.as_str(), endpoint.port), ("::1", 2525));
        assert_eq!(endpoint.display, "smtp://[::1]:2525");
    }

    #[test]
    fn user_and_password_are_percent_decoded() {
        let endpoint =
            parse("smtp://mailer%40example.com:p%2Fa%3Fs%23s%3Aw%25rd@relay.example.com");
        assert_eq!(
            endpoint.credentials,
            Some(("mailer@example.com".into(), "p/a?s#s:w%rd".into()))
        );
        assert_eq!(
            endpoint.display,
            "smtp://mailer%40example.com@relay.example.com:25"
        );
    }

    #[test]
    fn an_unencoded_at_sign_in_the_password_still_works() {
        let endpoint = parse("smtp://mailer:p@ss@relay.example.com");
        assert_eq!(endpoint.credentials, Some(("mailer".into(), "p@ss".into())));
        assert_eq!(endpoint.host, "relay.example.com");
    }

    #[test]
    fn credentials_that_are_not_utf8_are_refused() {
        let Err(error) = Endpoint::parse("smtp://u:%FF@relay.example.com", StartTls::Off) else {
            panic!("accepted");
        };
        assert!(
            error
                .to_string()
                .contains("password in the URL is not UTF-8")
        );
    }

    #[test]
    fn a_missing_host_is_refused() {
        for url in ["smtp://", "smtp://:25", "smtp:relay.example.com"] {
            let Err(error) = Endpoint::parse(url, StartTls::Off) else {
                panic!("{url} accepted");
            };
            let message = error.to_string();
            assert!(
                message.contains("no host") || message.contains("not valid"),
                "{url}: {message}"
            );
        }
    }
}
