//! `devmgr-agent install`: enrol this machine (or re-key it) and write the configuration.

use crate::cli::InstallArgs;
use crate::client::{ApiError, ClientSetupError, ServerClient};
use crate::config::{self, Config, ConfigError};
use crate::endpoints::{Endpoints, InvalidServerUrl};
use crate::facts;
use crate::install_token::{INSTALL_TOKEN_ENV, TokenError, TokenSource};
use crate::protocol::{InstallAnswer, InstallRequest};
use crate::retry::{self, RetryBudget};
use reqwest::StatusCode;
use serde::Serialize;
use std::path::Path;
use std::time::{Duration, Instant};

/// Why `install` failed.
#[derive(Debug, thiserror::Error)]
pub enum InstallError {
    /// `--server` is not a usable URL.
    #[error(transparent)]
    InvalidServer(#[from] InvalidServerUrl),
    /// No usable install token, or more than one.
    #[error(transparent)]
    Token(#[from] TokenError),
    /// The configuration file cannot be written (checked before enrolling).
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// The HTTP client cannot be made.
    #[error(transparent)]
    Client(#[from] ClientSetupError),
    /// The server refused the enrolment (400): its field errors.
    #[error("the server refused the installation: {0}")]
    Refused(String),
    /// The server could not be reached or failed.
    #[error("the installation failed: {0}")]
    Server(ApiError),
    /// The server was busy, failing or out of reach until `--retry-for` ran out.
    #[error(
        "the installation failed: {error} (gave up after {attempts} attempts in {} s; \
         --retry-for {retry_for})",
        elapsed.as_secs()
    )]
    GaveUp {
        /// The last attempt's failure.
        error: ApiError,
        /// How many attempts were made.
        attempts: u32,
        /// How long they took.
        elapsed: Duration,
        /// The limit, in seconds.
        retry_for: u64,
    },
    /// Enrolled, but the configuration could not be written afterwards.
    #[error(
        "the device was enrolled as {serial}, but its configuration could not be saved: {source}; \
         fix that and run `devmgr-agent install` again with `--serial {serial}`"
    )]
    Unsaved {
        /// The device's serial.
        serial: String,
        /// Why saving failed.
        source: ConfigError,
    },
}

/// What `install` prints on success: never the device token.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Installed {
    /// The device's serial.
    pub serial: String,
    /// The device's URL in the user API.
    pub url: String,
    /// Where the configuration was written.
    pub config: String,
}

/// Enrols this machine with `args.server` and writes the configuration file.
/// The install token comes from `args`, the environment or standard input.
pub async fn install(args: &InstallArgs) -> Result<Installed, InstallError> {
    let server = config::normalize_server(&args.server).to_owned();
    let endpoints = Endpoints::new(&server)?;
    endpoints.warn_if_cleartext();
    let install_token = TokenSource::choose(
        args.token.as_deref(),
        args.token_file.as_deref(),
        std::env::var_os(INSTALL_TOKEN_ENV),
    )?
    .read(std::io::stdin().lock())?;
    let config_path = &args.config.path;
    let request = InstallRequest {
        install_token,
        name: args.name.clone().unwrap_or_else(facts::system::host_name),
        machine_type: args
            .machine_type
            .clone()
            .unwrap_or_else(|| facts::detect_machine_type().to_owned()),
        serial: args
            .serial
            .clone()
            .or_else(|| configured_serial(config_path, &server)),
    };
    // Fail before enrolling rather than leave an enrolled device without a token.
    config::check_writable(config_path)?;
    let client = ServerClient::new(endpoints)?;
    let answer = enrol(&client, &request, args.retry_for).await?;
    let config = Config {
        server,
        serial: answer.serial.clone(),
        device_token: answer.device_token,
    };
    config
        .save(config_path)
        .map_err(|source| InstallError::Unsaved {
            serial: answer.serial.clone(),
            source,
        })?;
    tracing::info!(serial = %answer.serial, config = %config_path.display(), "enrolled");
    Ok(Installed {
        serial: answer.serial,
        url: answer.url,
        config: config_path.display().to_string(),
    })
}

/// `POST /install/`, tried again while the server is busy (429), failing
/// (5xx) or out of reach, for up to `retry_for` seconds.
async fn enrol(
    client: &ServerClient,
    request: &InstallRequest,
    retry_for: u64,
) -> Result<InstallAnswer, InstallError> {
    let started = Instant::now();
    let mut budget = RetryBudget::new(Duration::from_secs(retry_for), started);
    loop {
        let error = match client.install(request).await {
            Ok(answer) => return Ok(answer),
            Err(ApiError::Refused {
                status: StatusCode::BAD_REQUEST,
                detail,
            }) => return Err(InstallError::Refused(detail)),
            Err(error) if !is_worth_retrying(&error) => return Err(InstallError::Server(error)),
            Err(error) => error,
        };
        let retry_after = match &error {
            ApiError::Unavailable { retry_after, .. } => *retry_after,
            _ => None,
        };
        let Some(wait) = budget.next_wait(retry_after, retry::random_fraction(), Instant::now())
        else {
            return Err(match budget.failures() {
                1 => InstallError::Server(error),
                attempts => InstallError::GaveUp {
                    error,
                    attempts,
                    elapsed: started.elapsed(),
                    retry_for,
                },
            });
        };
        tracing::warn!(
            %error,
            attempt = budget.failures(),
            retry_in_seconds = wait.as_secs_f64(),
            "the installation failed; trying again"
        );
        tokio::time::sleep(wait).await;
    }
}

/// Whether another attempt may succeed: the server is busy or failing
/// (429, 5xx) or could not be reached. A refusal, a redirect, a garbled or
/// oversized answer would only come again.
fn is_worth_retrying(error: &ApiError) -> bool {
    matches!(
        error,
        ApiError::Unavailable { .. } | ApiError::Unreachable(_)
    )
}

/// The serial of an existing configuration for the same server, so that
/// installing again re-keys this device instead of making a new one.
fn configured_serial(path: &Path, server: &str) -> Option<String> {
    if !path.exists() {
        return None;
    }
    match Config::load(path) {
        Ok(existing) if existing.is_for_server(server) => Some(existing.serial),
        Ok(_) => None,
        Err(error) => {
            tracing::warn!(%error, "ignoring the existing configuration");
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write_config(path: &Path, server: &str) {
        Config {
            server: server.to_owned(),
            serial: "0f8fad5b-d9cb-469f-a165-70867728950e".to_owned(),
            device_token: "secret".to_owned(),
        }
        .save(path)
        .unwrap();
    }

    #[test]
    fn the_serial_of_a_configuration_for_the_same_server_is_reused() {
        let directory = tempfile::tempdir().unwrap();
        let path = directory.path().join("config.json");
        write_config(&path, "http://127.0.0.1:8000");
        assert_eq!(
            configured_serial(&path, "http://127.0.0.1:8000").as_deref(),
            Some("0f8fad5b-d9cb-469f-a165-70867728950e")
        );
        assert_eq!(configured_serial(&path, "http://other:8000"), None);
    }

    #[test]
    fn only_a_busy_failing_or_absent_server_is_worth_another_attempt() {
        let unavailable = |status| ApiError::Unavailable {
            status,
            detail: String::new(),
            retry_after: None,
        };
        assert!(is_worth_retrying(&unavailable(
            StatusCode::TOO_MANY_REQUESTS
        )));
        assert!(is_worth_retrying(&unavailable(StatusCode::BAD_GATEWAY)));
        assert!(is_worth_retrying(&ApiError::Unreachable(
            "connection refused".to_owned()
        )));
        for error in [
            ApiError::Refused {
                status: StatusCode::FORBIDDEN,
                detail: String::new(),
            },
            ApiError::Redirected {
                status: StatusCode::FOUND,
                location: None,
            },
            ApiError::AnswerTooLarge {
                status: StatusCode::CREATED,
            },
            ApiError::UnexpectedAnswer {
                status: StatusCode::CREATED,
                reason: String::new(),
            },
        ] {
            assert!(!is_worth_retrying(&error), "{error:?}");
        }
    }

    #[test]
    fn no_or_a_broken_configuration_gives_no_serial() {
        let directory = tempfile::tempdir().unwrap();
        let path = directory.path().join("config.json");
        assert_eq!(configured_serial(&path, "http://h"), None);
        std::fs::write(&path, "{").unwrap();
        assert_eq!(configured_serial(&path, "http://h"), None);
    }
}
