//! Where `install` gets the account's install token: `--token TOKEN`,
//! `--token -` (standard input), `--token-file FILE`, or the environment
//! variable [`INSTALL_TOKEN_ENV`]. Exactly one of them must be given; the
//! ones other than `--token TOKEN` keep the token out of the process list
//! and the shell's history.

use std::ffi::OsString;
use std::io::{self, Read};
use std::path::{Path, PathBuf};

/// The environment variable that may hold the install token.
pub const INSTALL_TOKEN_ENV: &str = "DEVMGR_AGENT_INSTALL_TOKEN";

/// The `--token` value that means "read it from standard input".
pub const FROM_STDIN: &str = "-";

/// The longest install token read from a file or standard input, in bytes.
const MAX_TOKEN_BYTES: usize = 4096;

/// Where the install token comes from.
#[derive(Clone, PartialEq, Eq)]
pub enum TokenSource {
    /// `--token TOKEN`.
    Argument(String),
    /// `--token -`.
    Stdin,
    /// `--token-file FILE`.
    File(PathBuf),
    /// [`INSTALL_TOKEN_ENV`].
    Environment(String),
}

impl std::fmt::Debug for TokenSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.describe())
    }
}

/// Why there is no usable install token.
#[derive(Debug, thiserror::Error)]
pub enum TokenError {
    /// No source given.
    #[error(
        "no install token: give --token TOKEN, --token-file FILE, --token - (standard input) \
         or the environment variable {INSTALL_TOKEN_ENV}"
    )]
    Missing,
    /// More than one source given.
    #[error(
        "the install token is given twice ({0} and {1}); give exactly one of --token, \
         --token-file and {INSTALL_TOKEN_ENV}"
    )]
    Ambiguous(String, String),
    /// The environment variable is not UTF-8.
    #[error("{INSTALL_TOKEN_ENV} is not valid UTF-8")]
    NotUtf8Environment,
    /// The file or standard input cannot be read.
    #[error("cannot read the install token from {from}: {source}")]
    Unreadable {
        /// Where it was read from.
        from: String,
        /// What went wrong.
        source: io::Error,
    },
    /// The file or standard input holds more than a token.
    #[error("the install token from {0} is longer than {MAX_TOKEN_BYTES} bytes")]
    TooLong(String),
    /// Nothing is left once the line ending is dropped.
    #[error("the install token from {0} is empty")]
    Empty(String),
}

impl TokenSource {
    /// The one source given by `--token`, `--token-file` and the value of
    /// [`INSTALL_TOKEN_ENV`] (unset or empty counts as not given).
    pub fn choose(
        token: Option<&str>,
        token_file: Option<&Path>,
        environment: Option<OsString>,
    ) -> Result<Self, TokenError> {
        let environment = match environment {
            Some(value) if !value.is_empty() => Some(
                value
                    .into_string()
                    .map_err(|_| TokenError::NotUtf8Environment)?,
            ),
            _ => None,
        };
        let mut given = Vec::new();
        if let Some(token) = token {
            given.push(if token == FROM_STDIN {
                TokenSource::Stdin
            } else {
                TokenSource::Argument(token.to_owned())
            });
        }
        if let Some(path) = token_file {
            given.push(TokenSource::File(path.to_path_buf()));
        }
        if let Some(value) = environment {
            given.push(TokenSource::Environment(value));
        }
        match <[TokenSource; 1]>::try_from(given) {
            Ok([source]) => Ok(source),
            Err(given) if given.is_empty() => Err(TokenError::Missing),
            Err(given) => Err(TokenError::Ambiguous(
                given[0].describe(),
                given[1].describe(),
            )),
        }
    }

    /// Reads the token (from `stdin` for [`TokenSource::Stdin`]), without
    /// the one line ending that may follow it.
    pub fn read(self, stdin: impl Read) -> Result<String, TokenError> {
        let from = self.describe();
        let text = match self {
            TokenSource::Argument(token) | TokenSource::Environment(token) => token,
            TokenSource::Stdin => read_limited(stdin, &from)?,
            TokenSource::File(path) => {
                let file = std::fs::File::open(&path).map_err(|source| TokenError::Unreadable {
                    from: from.clone(),
                    source,
                })?;
                read_limited(file, &from)?
            }
        };
        let token = strip_line_ending(&text);
        if token.is_empty() {
            return Err(TokenError::Empty(from));
        }
        Ok(token.to_owned())
    }

    /// How the source is named in messages (never with the token itself).
    fn describe(&self) -> String {
        match self {
            TokenSource::Argument(_) => "--token".to_owned(),
            TokenSource::Stdin => "standard input (--token -)".to_owned(),
            TokenSource::File(path) => format!("--token-file {}", path.display()),
            TokenSource::Environment(_) => INSTALL_TOKEN_ENV.to_owned(),
        }
    }
}

/// At most [`MAX_TOKEN_BYTES`] of UTF-8 text from `reader`.
fn read_limited(reader: impl Read, from: &str) -> Result<String, TokenError> {
    let mut text = String::new();
    let unreadable = |source| TokenError::Unreadable {
        from: from.to_owned(),
        source,
    };
    reader
        .take(MAX_TOKEN_BYTES as u64 + 1)
        .read_to_string(&mut text)
        .map_err(unreadable)?;
    if text.len() > MAX_TOKEN_BYTES {
        return Err(TokenError::TooLong(from.to_owned()));
    }
    Ok(text)
}

/// `text` without one trailing `\n` or `\r\n` (a file's or a terminal's
/// line ending is not part of the token); anything else is kept.
pub fn strip_line_ending(text: &str) -> &str {
    text.strip_suffix("\r\n")
        .or_else(|| text.strip_suffix('\n'))
        .unwrap_or(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn choose(
        token: Option<&str>,
        file: Option<&str>,
        environment: Option<&str>,
    ) -> Result<TokenSource, TokenError> {
        TokenSource::choose(token, file.map(Path::new), environment.map(OsString::from))
    }

    #[test]
    fn exactly_one_line_ending_is_stripped() {
        assert_eq!(strip_line_ending("k3x9\n"), "k3x9");
        assert_eq!(strip_line_ending("k3x9\r\n"), "k3x9");
        assert_eq!(strip_line_ending("k3x9"), "k3x9");
        assert_eq!(strip_line_ending("k3x9\n\n"), "k3x9\n");
        assert_eq!(strip_line_ending("k3x9\r\n\r\n"), "k3x9\r\n");
        assert_eq!(strip_line_ending("k3x9\r"), "k3x9\r");
        assert_eq!(strip_line_ending(" k3x9 \n"), " k3x9 ");
        assert_eq!(strip_line_ending("\n"), "");
    }

    #[test]
    fn each_source_alone_is_chosen() {
        assert_eq!(
            choose(Some("k3x9"), None, None).unwrap(),
            TokenSource::Argument("k3x9".to_owned())
        );
        assert_eq!(choose(Some("-"), None, None).unwrap(), TokenSource::Stdin);
        assert_eq!(
            choose(None, Some("/run/token"), None).unwrap(),
            TokenSource::File(PathBuf::from("/run/token"))
        );
        assert_eq!(
            choose(None, None, Some("k3x9")).unwrap(),
            TokenSource::Environment("k3x9".to_owned())
        );
        // An empty variable counts as unset.
        assert_eq!(
            choose(Some("k3x9"), None, Some("")).unwrap(),
            TokenSource::Argument("k3x9".to_owned())
        );
    }

    #[test]
    fn no_source_or_two_sources_are_errors() {
        assert!(matches!(choose(None, None, None), Err(TokenError::Missing)));
        assert!(matches!(
            choose(None, None, Some("")),
            Err(TokenError::Missing)
        ));
        for (token, file, environment) in [
            (Some("k3x9"), Some("/run/token"), None),
            (Some("k3x9"), None, Some("k3x9")),
            (Some("-"), None, Some("k3x9")),
            (None, Some("/run/token"), Some("k3x9")),
        ] {
            let error = choose(token, file, environment).unwrap_err();
            assert!(matches!(error, TokenError::Ambiguous(..)), "{error:?}");
            let message = error.to_string();
            assert!(message.contains("exactly one"), "{message}");
            assert!(!message.contains("k3x9"), "{message}");
        }
    }

    #[test]
    fn tokens_are_read_without_their_line_ending() {
        let no_stdin = io::empty();
        assert_eq!(
            TokenSource::Argument("k3x9".to_owned())
                .read(no_stdin)
                .unwrap(),
            "k3x9"
        );
        assert_eq!(
            TokenSource::Environment("k3x9\n".to_owned())
                .read(io::empty())
                .unwrap(),
            "k3x9"
        );
        assert_eq!(TokenSource::Stdin.read(&b"k3x9\r\n"[..]).unwrap(), "k3x9");
        let directory = tempfile::tempdir().unwrap();
        let path = directory.path().join("token");
        std::fs::write(&path, "k3x9\n").unwrap();
        assert_eq!(TokenSource::File(path).read(io::empty()).unwrap(), "k3x9");
    }

    #[test]
    fn empty_unreadable_or_oversized_tokens_are_errors() {
        assert!(matches!(
            TokenSource::Stdin.read(&b"\n"[..]),
            Err(TokenError::Empty(_))
        ));
        assert!(matches!(
            TokenSource::Stdin.read(io::empty()),
            Err(TokenError::Empty(_))
        ));
        assert!(matches!(
            TokenSource::Stdin.read(&[b'x'; MAX_TOKEN_BYTES + 1][..]),
            Err(TokenError::TooLong(_))
        ));
        assert!(matches!(
            TokenSource::Stdin.read(&[0xff, 0xfe][..]),
            Err(TokenError::Unreadable { .. })
        ));
        let directory = tempfile::tempdir().unwrap();
        let missing = directory.path().join("missing");
        let error = TokenSource::File(missing.clone())
            .read(io::empty())
            .unwrap_err();
        assert!(matches!(error, TokenError::Unreadable { .. }), "{error:?}");
        assert!(
            error.to_string().contains(&*missing.to_string_lossy()),
            "{error}"
        );
    }

    #[test]
    fn the_debug_form_hides_the_token() {
        let shown = format!("{:?}", TokenSource::Argument("k3x9".to_owned()));
        assert!(!shown.contains("k3x9"), "{shown}");
    }
}
