//! Test support: the npm packages a test needs (linters, client generators,
//! a browser driver), the way `python-tools` provides Python packages.
//!
//! Each set is a `package.json` that pins every direct dependency to one
//! version and a `package-lock.json` that pins the rest; it is installed once
//! with `npm ci` (which refuses a lock that disagrees with the manifest, and
//! runs no install scripts here) into `target/<profile>/node/<name>-<hash of
//! both files>`, with npm's cache beside it, so nothing outside `target/` is
//! touched and every machine runs the same code. Only `node` and `npm` come
//! from the machine.

use serde_json::Value;
use std::fs::File;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// A set of npm packages a test needs.
#[derive(Debug, Clone, Copy)]
pub struct Packages {
    /// Names the install folder: `node/<name>-<hash>`.
    pub name: &'static str,
    /// The `package.json` (usually `include_str!` of a file kept beside the test).
    pub manifest: &'static str,
    /// Its `package-lock.json`.
    pub lock: &'static str,
}

/// An installed set.
#[derive(Debug, Clone)]
pub struct Node {
    dir: PathBuf,
}

/// Written into the install folder once `npm ci` has succeeded.
const MARKER: &str = ".installed";

impl Node {
    /// The folder holding `package.json` and `node_modules`.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The path of a package's command (`node_modules/.bin/<name>`).
    pub fn bin(&self, name: &str) -> PathBuf {
        self.dir.join("node_modules").join(".bin").join(name)
    }

    /// A command running one of the packages' commands, with the system's
    /// temporary folder as working directory (callers may choose another).
    pub fn command(&self, name: &str) -> Command {
        let mut command = Command::new(self.bin(name));
        command
            .env("NODE_PATH", self.dir.join("node_modules"))
            .current_dir(std::env::temp_dir());
        command
    }
}

/// Installs the packages unless an earlier run did. Several test processes
/// may call it at once: the install is locked. The error says what failed
/// and how to fix it.
pub fn prepare(packages: Packages) -> Result<Node, String> {
    check_pins(packages)?;
    let dir = install_dir(packages);
    let node = Node { dir: dir.clone() };
    if dir.join(MARKER).is_file() {
        return Ok(node);
    }
    let parent = dir.parent().unwrap_or(&dir);
    std::fs::create_dir_all(parent)
        .map_err(|e| format!("cannot create {}: {e}", parent.display()))?;
    let lock_path = dir.with_extension("lock");
    let lock = File::create(&lock_path)
        .map_err(|e| format!("cannot create {}: {e}", lock_path.display()))?;
    lock.lock()
        .map_err(|e| format!("cannot lock {}: {e}", lock_path.display()))?;
    if !dir.join(MARKER).is_file() {
        install(packages, &dir)?;
    }
    Ok(node)
}

/// Every direct dependency is pinned to one version, so no run gets another
/// (the lock pins the indirect ones).
fn check_pins(packages: Packages) -> Result<(), String> {
    let manifest: Value = serde_json::from_str(packages.manifest)
        .map_err(|e| format!("the {} package.json is not JSON: {e}", packages.name))?;
    let exact = |version: &str| {
        let core = version.split(['-', '+']).next().unwrap_or_default();
        let parts: Vec<&str> = core.split('.').collect();
        parts.len() == 3
            && parts
                .iter()
                .all(|part| !part.is_empty() && part.bytes().all(|b| b.is_ascii_digit()))
    };
    let mut loose = Vec::new();
    for section in ["dependencies", "devDependencies", "optionalDependencies"] {
        for (name, version) in manifest[section].as_object().into_iter().flatten() {
            let version = version.as_str().unwrap_or_default();
            if !exact(version) {
                loose.push(format!("{name}@{version}"));
            }
        }
    }
    if !loose.is_empty() {
        return Err(format!(
            "the {} package.json must pin exact versions (`\"name\": \"x.y.z\"`): {}",
            packages.name,
            loose.join(", ")
        ));
    }
    let lock: Value = serde_json::from_str(packages.lock)
        .map_err(|e| format!("the {} package-lock.json is not JSON: {e}", packages.name))?;
    if lock["lockfileVersion"].as_u64().is_none_or(|v| v < 2) {
        return Err(format!(
            "the {} package-lock.json must be a lockfile of npm 7 or later",
            packages.name
        ));
    }
    Ok(())
}

/// `target/<profile>/node/<name>-<hash>`, next to the `deps` folder that
/// holds the test binaries (the system's temporary folder otherwise).
fn install_dir(packages: Packages) -> PathBuf {
    let mut hasher = DefaultHasher::new();
    (packages.manifest, packages.lock).hash(&mut hasher);
    std::env::current_exe()
        .ok()
        .and_then(|exe| {
            exe.ancestors()
                .find(|dir| dir.file_name().is_some_and(|n| n == "deps"))
                .and_then(Path::parent)
                .map(Path::to_path_buf)
        })
        .unwrap_or_else(std::env::temp_dir)
        .join("node")
        .join(format!("{}-{:016x}", packages.name, hasher.finish()))
}

fn install(packages: Packages, dir: &Path) -> Result<(), String> {
    // A leftover of an interrupted install would mix versions.
    if dir.exists() {
        std::fs::remove_dir_all(dir).map_err(|e| format!("cannot empty {}: {e}", dir.display()))?;
    }
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    for (file, text) in [
        ("package.json", packages.manifest),
        ("package-lock.json", packages.lock),
    ] {
        std::fs::write(dir.join(file), text)
            .map_err(|e| format!("cannot write {}: {e}", dir.join(file).display()))?;
    }
    let cache = dir.with_extension("npm-cache");
    let output = Command::new("npm")
        .args([
            "ci",
            "--ignore-scripts",
            "--no-audit",
            "--no-fund",
            "--no-update-notifier",
        ])
        .arg("--cache")
        .arg(&cache)
        .current_dir(dir)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| {
            format!(
                "cannot run npm ({e}); these tests need Node.js 20 or later with npm on the PATH"
            )
        })?;
    if !output.status.success() {
        return Err(format!(
            "`npm ci` in {} failed ({}); these tests need Node.js with npm and access to the npm registry. \
             npm said:\n{}",
            dir.display(),
            output.status,
            String::from_utf8_lossy(&output.stderr).trim()
        ));
    }
    std::fs::write(dir.join(MARKER), "")
        .map_err(|e| format!("cannot write {}: {e}", dir.join(MARKER).display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    const LOCK: &str = r#"{"lockfileVersion": 3}"#;

    fn packages(manifest: &'static str, lock: &'static str) -> Packages {
        Packages {
            name: "example",
            manifest,
            lock,
        }
    }

    #[test]
    fn exact_versions_pass_and_ranges_are_named() {
        let pinned = r#"{"dependencies": {"a": "1.2.3", "b": "0.17.0-beta.1"}}"#;
        assert_eq!(check_pins(packages(pinned, LOCK)), Ok(()));
        let loose = r#"{"dependencies": {"a": "^1.2.3", "b": "1.2.3"}, "devDependencies": {"c": "latest"}}"#;
        let problem = check_pins(packages(loose, LOCK)).unwrap_err();
        assert!(problem.contains("a@^1.2.3, c@latest"), "{problem}");
    }

    #[test]
    fn an_old_or_missing_lock_is_refused() {
        let pinned = r#"{"dependencies": {"a": "1.2.3"}}"#;
        assert!(check_pins(packages(pinned, r#"{"lockfileVersion": 1}"#)).is_err());
        assert!(check_pins(packages(pinned, "")).is_err());
    }

    #[test]
    fn the_folder_changes_with_either_file() {
        let one = install_dir(packages("{}", LOCK));
        assert_eq!(one, install_dir(packages("{}", LOCK)));
        assert_ne!(one, install_dir(packages("{ }", LOCK)));
        assert_ne!(
            one,
            install_dir(packages("{}", r#"{"lockfileVersion": 2}"#))
        );
        assert!(
            one.to_string_lossy().contains("example-"),
            "{}",
            one.display()
        );
    }
}
