//! `devmgr-agent install`: enrol this machine (or re-key it) and write the configuration.

use crate::cli::InstallArgs;
use crate::client::{ApiError, ClientSetupError, ServerClient};
use crate::config::{self, Config, ConfigError};
use crate::endpoints::{Endpoints, InvalidServerUrl};
use crate::facts;
use crate::install_token::{INSTALL_TOKEN_ENV, TokenError, TokenSource};
use crate::protocol::InstallRequest;
use reqwest::StatusCode;
use serde::Serialize;
use std::path::Path;

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
    let answer = client
        .install(&request)
        .await
        .map_err(|error| match error {
            ApiError::Refused {
                status: StatusCode::BAD_REQUEST,
                detail,
            } => InstallError::Refused(detail),
            error => InstallError::Server(error),
        })?;
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
    fn no_or_a_broken_configuration_gives_no_serial() {
        let directory = tempfile::tempdir().unwrap();
        let path = directory.path().join("config.json");
        assert_eq!(configured_serial(&path, "http://h"), None);
        std::fs::write(&path, "{").unwrap();
        assert_eq!(configured_serial(&path, "http://h"), None);
    }
}
