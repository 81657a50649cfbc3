//! Test support: a `python3` that can import the packages a test needs
//! (aiosmtpd for the SMTP sink, schemathesis for contract tests, …).
//!
//! When the system's `python3` cannot import them, they are installed once
//! with pip into `target/<profile>/pydeps-<name>` and put on `PYTHONPATH`,
//! so `cargo test` works on a fresh machine with Python 3 and pip.

use std::ffi::OsString;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// A set of Python packages a test needs.
#[derive(Debug, Clone, Copy)]
pub struct Packages {
    /// Names the install folder: `pydeps-<name>`.
    pub name: &'static str,
    /// Modules that must import.
    pub imports: &'static [&'static str],
    /// What to give `pip install` when they do not.
    pub pip: &'static [&'static str],
}

/// How to run `python3` with the packages importable.
#[derive(Debug, Clone)]
pub struct Python {
    /// `PYTHONPATH` for the child, when the packages had to be installed apart.
    pub pythonpath: Option<OsString>,
}

impl Python {
    /// A `python3` command that can import the packages.
    pub fn command(&self) -> Command {
        let mut command = Command::new("python3");
        if let Some(pythonpath) = &self.pythonpath {
            command.env("PYTHONPATH", pythonpath);
        }
        command
    }
}

/// Checks that `python3` can import the packages, installing them when it
/// cannot. Several test processes may call it at once: the install is
/// locked. The error says what failed and how to fix it.
pub fn prepare(packages: Packages) -> Result<Python, String> {
    if imports(packages, None)? {
        return Ok(Python { pythonpath: None });
    }
    let dir = pydeps_dir(packages.name);
    let pythonpath = pythonpath_with(&dir)?;
    std::fs::create_dir_all(dir.parent().unwrap_or(&dir))
        .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let lock_path = dir.with_extension("lock");
    let lock = File::create(&lock_path)
        .map_err(|e| format!("cannot create {}: {e}", lock_path.display()))?;
    lock.lock()
        .map_err(|e| format!("cannot lock {}: {e}", lock_path.display()))?;
    if !imports(packages, Some(&pythonpath))? {
        install(packages, &dir)?;
        if !imports(packages, Some(&pythonpath))? {
            return Err(format!(
                "{} was installed into {} but python3 still cannot import it",
                packages.pip.join(" "),
                dir.display()
            ));
        }
    }
    Ok(Python {
        pythonpath: Some(pythonpath),
    })
}

/// `target/<profile>/pydeps-<name>`, next to the `deps` folder that holds
/// the test binaries; the system's temporary folder otherwise.
fn pydeps_dir(name: &str) -> PathBuf {
    std::env::current_exe()
        .ok()
        .and_then(|exe| {
            exe.ancestors()
                .find(|dir| dir.file_name().is_some_and(|n| n == "deps"))
                .and_then(Path::parent)
                .map(Path::to_path_buf)
        })
        .unwrap_or_else(std::env::temp_dir)
        .join(format!("pydeps-{name}"))
}

/// `dir` in front of whatever `PYTHONPATH` the tests run with.
fn pythonpath_with(dir: &Path) -> Result<OsString, String> {
    let inherited = std::env::var_os("PYTHONPATH").unwrap_or_default();
    let paths = std::iter::once(dir.to_path_buf()).chain(std::env::split_paths(&inherited));
    std::env::join_paths(paths).map_err(|e| format!("cannot build PYTHONPATH: {e}"))
}

fn imports(packages: Packages, pythonpath: Option<&OsString>) -> Result<bool, String> {
    let mut command = Command::new("python3");
    command
        .args(["-c", &format!("import {}", packages.imports.join(", "))])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    if let Some(pythonpath) = pythonpath {
        command.env("PYTHONPATH", pythonpath);
    }
    let status = command
        .status()
        .map_err(|e| format!("cannot run python3 ({e}); these tests need Python 3 on the PATH"))?;
    Ok(status.success())
}

fn install(packages: Packages, dir: &Path) -> Result<(), String> {
    // A leftover of an interrupted install would make pip refuse or mix versions.
    if dir.exists() {
        std::fs::remove_dir_all(dir).map_err(|e| format!("cannot empty {}: {e}", dir.display()))?;
    }
    let output = Command::new("python3")
        .args([
            "-m",
            "pip",
            "install",
            "--quiet",
            "--disable-pip-version-check",
        ])
        .arg("--target")
        .arg(dir)
        .args(packages.pip)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("cannot run python3 -m pip: {e}"))?;
    if output.status.success() {
        Ok(())
    } else {
        let wanted = packages.pip.join(" ");
        Err(format!(
            "{wanted} is not installed and `python3 -m pip install --target {} {wanted}` \
             failed ({}); install it with `python3 -m pip install {wanted}`. pip said:\n{}",
            dir.display(),
            output.status,
            String::from_utf8_lossy(&output.stderr).trim()
        ))
    }
}
