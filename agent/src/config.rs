//! The configuration file: which server, which device, and its secret token.
//!
//! It is written atomically with mode 0600 ([`crate::private_file`]), so a
//! crash never leaves a half written file and the device token is never
//! readable by other users.

use crate::private_file::{self, WriteError};
use serde::{Deserialize, Serialize};
use std::fmt;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

/// What `install` stores and `run` needs.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Config {
    /// Base URL of the server, without a trailing slash.
    pub server: String,
    /// The device's serial on that server.
    pub serial: String,
    /// The device's secret credential (`Authorization: Device <device_token>`).
    pub device_token: String,
}

impl fmt::Debug for Config {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Config")
            .field("server", &self.server)
            .field("serial", &self.serial)
            .field("device_token", &"<redacted>")
            .finish()
    }
}

/// Why the configuration cannot be read or written.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The file is missing or unreadable.
    #[error(
        "cannot read the agent configuration {}: {source}; enrol this machine first with `devmgr-agent install --server URL --token INSTALL_TOKEN`",
        path.display()
    )]
    Read {
        /// The configuration file.
        path: PathBuf,
        /// What went wrong.
        source: io::Error,
    },
    /// The file is not a configuration written by `devmgr-agent install`.
    #[error(
        "the agent configuration {} is malformed ({reason}); enrol this machine again with `devmgr-agent install --server URL --token INSTALL_TOKEN`",
        path.display()
    )]
    Malformed {
        /// The configuration file.
        path: PathBuf,
        /// What is wrong with it.
        reason: String,
    },
    /// The file (or its directory) cannot be written.
    #[error("cannot write the agent configuration {}: {source}", path.display())]
    Write {
        /// The file or directory that could not be written.
        path: PathBuf,
        /// What went wrong.
        source: io::Error,
    },
}

impl From<WriteError> for ConfigError {
    fn from(WriteError { path, source }: WriteError) -> Self {
        ConfigError::Write { path, source }
    }
}

impl Config {
    /// Reads and checks the configuration file.
    pub fn load(path: &Path) -> Result<Self, ConfigError> {
        let text = fs::read_to_string(path).map_err(|source| ConfigError::Read {
            path: path.to_path_buf(),
            source,
        })?;
        let malformed = |reason: String| ConfigError::Malformed {
            path: path.to_path_buf(),
            reason,
        };
        let mut config: Config =
            serde_json::from_str(&text).map_err(|error| malformed(error.to_string()))?;
        config.server = normalize_server(&config.server).to_owned();
        for (field, value) in [
            ("server", &config.server),
            ("serial", &config.serial),
            ("device_token", &config.device_token),
        ] {
            if value.trim().is_empty() {
                return Err(malformed(format!("`{field}` is empty")));
            }
        }
        Ok(config)
    }

    /// Writes the configuration atomically with mode 0600, creating the
    /// directory (mode 0700) when it is missing.
    pub fn save(&self, path: &Path) -> Result<(), ConfigError> {
        let mut text = serde_json::to_string_pretty(self).expect("a Config always serializes");
        text.push('\n');
        private_file::write_atomically(path, text.as_bytes()).map_err(ConfigError::from)
    }

    /// Whether this configuration is for `server` (trailing slashes aside).
    pub fn is_for_server(&self, server: &str) -> bool {
        normalize_server(&self.server) == normalize_server(server)
    }
}

/// A server URL as stored: without trailing slashes.
pub fn normalize_server(server: &str) -> &str {
    server.trim().trim_end_matches('/')
}

/// Checks, before anything is sent to a server, that `path` can be written:
/// creates its directory if needed and creates (then removes) a temporary
/// file next to it.
pub fn check_writable(path: &Path) -> Result<(), ConfigError> {
    private_file::check_writable(path).map_err(ConfigError::from)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    fn example() -> Config {
        Config {
            server: "https://devmgr.example.com".to_owned(),
            serial: "0f8fad5b-d9cb-469f-a165-70867728950e".to_owned(),
            device_token: "0123456789abcdef0123456789abcdef01234567".to_owned(),
        }
    }

    fn mode_of(path: &Path) -> u32 {
        fs::metadata(path).unwrap().permissions().mode() & 0o777
    }

    #[test]
    fn a_saved_configuration_loads_back_and_is_private() {
        let directory = tempfile::tempdir().unwrap();
        let path = directory.path().join("config.json");
        example().save(&path).unwrap();
        assert_eq!(Config::load(&path).unwrap(), example());
        assert_eq!(mode_of(&path), 0o600);
        let on_disk: serde_json::Value =
            serde_json::from_str(&fs::read_to_string(&path).unwrap()).unwrap();
        assert_eq!(
            on_disk,
            serde_json::json!({
                "server": "https://devmgr.example.com",
                "serial": "0f8fad5b-d9cb-469f-a165-70867728950e",
                "device_token": "0123456789abcdef0123456789abcdef01234567",
            })
        );
    }

    #[test]
    fn saving_creates_a_private_directory_and_leaves_no_temporary_file() {
        let directory = tempfile::tempdir().unwrap();
        let nested = directory.path().join("etc").join("devmgr-agent");
        let path = nested.join("config.json");
        example().save(&path).unwrap();
        assert_eq!(mode_of(&nested), 0o700);
        let names: Vec<_> = fs::read_dir(&nested)
            .unwrap()
            .map(|entry| entry.unwrap().file_name())
            .collect();
        assert_eq!(names, vec!["config.json"]);
    }

    #[test]
    fn saving_replaces_a_readable_file_with_a_private_one() {
        let directory = tempfile::tempdir().unwrap();
        let path = directory.path().join("config.json");
        fs::write(&path, "old").unwrap();
        fs::set_permissions(&path, fs::Permissions::from_mode(0o644)).unwrap();
        example().save(&path).unwrap();
        assert_eq!(mode_of(&path), 0o600);
        assert_eq!(Config::load(&path).unwrap(), example());
    }

    #[test]
    fn a_missing_file_names_the_path_and_install() {
        let directory = tempfile::tempdir().unwrap();
        let path = directory.path().join("absent.json");
        let message = Config::load(&path).unwrap_err().to_string();
        assert!(message.contains(&*path.to_string_lossy()), "{message}");
        assert!(message.contains("devmgr-agent install"), "{message}");
    }

    #[test]
    fn a_malformed_file_names_the_path_and_install() {
        let directory = tempfile::tempdir().unwrap();
        let path = directory.path().join("config.json");
        for contents in [
            "not json",
            r#"{"server": "http://x"}"#,
            r#"{"server": "http://x", "serial": "s", "device_token": ""}"#,
        ] {
            fs::write(&path, contents).unwrap();
            let error = Config::load(&path).unwrap_err();
            assert!(matches!(error, ConfigError::Malformed { .. }), "{error:?}");
            let message = error.to_string();
            assert!(message.contains(&*path.to_string_lossy()), "{message}");
            assert!(message.contains("devmgr-agent install"), "{message}");
        }
    }

    #[test]
    fn loading_drops_trailing_slashes_of_the_server() {
        let directory = tempfile::tempdir().unwrap();
        let path = directory.path().join("config.json");
        let mut config = example();
        config.server.push_str("//");
        config.save(&path).unwrap();
        assert_eq!(Config::load(&path).unwrap().server, example().server);
    }

    #[test]
    fn servers_compare_without_trailing_slashes() {
        let config = example();
        assert!(config.is_for_server("https://devmgr.example.com/"));
        assert!(config.is_for_server("https://devmgr.example.com"));
        assert!(!config.is_for_server("https://other.example.com"));
    }

    #[test]
    fn the_debug_form_hides_the_token() {
        let shown = format!("{:?}", example());
        assert!(!shown.contains(&example().device_token), "{shown}");
    }

    #[test]
    fn check_writable_creates_the_directory_and_leaves_nothing_else() {
        let directory = tempfile::tempdir().unwrap();
        let nested = directory.path().join("new");
        check_writable(&nested.join("config.json")).unwrap();
        assert!(nested.is_dir());
        assert_eq!(fs::read_dir(&nested).unwrap().count(), 0);
    }
}
