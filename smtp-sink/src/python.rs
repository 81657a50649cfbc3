//! A `python3` that can import aiosmtpd, installing aiosmtpd under `target/`
//! when the system does not have it.

use std::ffi::OsString;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;

/// How to run the sink's script.
#[derive(Debug)]
pub(crate) struct Python {
    /// `PYTHONPATH` for the child, when aiosmtpd had to be installed apart.
    pub(crate) pythonpath: Option<OsString>,
}

/// Checked (and, if need be, installed) once per process; later calls wait
/// for the first to finish. Panics with a hint when that is impossible.
pub(crate) fn python() -> &'static Python {
    static PYTHON: OnceLock<Result<Python, String>> = OnceLock::new();
    match PYTHON.get_or_init(prepare) {
        Ok(python) => python,
        Err(problem) => panic!("smtp-sink: {problem}"),
    }
}

fn prepare() -> Result<Python, String> {
    if imports_aiosmtpd(None)? {
        return Ok(Python { pythonpath: None });
    }
    let dir = pydeps_dir();
    let pythonpath = pythonpath_with(&dir)?;
    std::fs::create_dir_all(dir.parent().unwrap_or(&dir))
        .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    // Other test processes may be installing at the same time.
    let lock_path = dir.with_extension("lock");
    let lock = File::create(&lock_path)
        .map_err(|e| format!("cannot create {}: {e}", lock_path.display()))?;
    lock.lock()
        .map_err(|e| format!("cannot lock {}: {e}", lock_path.display()))?;
    if !imports_aiosmtpd(Some(&pythonpath))? {
        install(&dir)?;
        if !imports_aiosmtpd(Some(&pythonpath))? {
            return Err(format!(
                "aiosmtpd was installed into {} but python3 still cannot import it",
                dir.display()
            ));
        }
    }
    Ok(Python {
        pythonpath: Some(pythonpath),
    })
}

/// `target/<profile>/smtp-sink-pydeps`, next to the `deps` folder that holds
/// the test binaries; the system's temporary folder otherwise.
fn pydeps_dir() -> PathBuf {
    std::env::current_exe()
        .ok()
        .and_then(|exe| {
            exe.ancestors()
                .find(|dir| dir.file_name().is_some_and(|name| name == "deps"))
                .and_then(Path::parent)
                .map(Path::to_path_buf)
        })
        .unwrap_or_else(std::env::temp_dir)
        .join("smtp-sink-pydeps")
}

/// `dir` in front of whatever `PYTHONPATH` the tests run with.
fn pythonpath_with(dir: &Path) -> Result<OsString, String> {
    let inherited = std::env::var_os("PYTHONPATH").unwrap_or_default();
    let paths = std::iter::once(dir.to_path_buf()).chain(std::env::split_paths(&inherited));
    std::env::join_paths(paths).map_err(|e| format!("cannot build PYTHONPATH: {e}"))
}

fn imports_aiosmtpd(pythonpath: Option<&OsString>) -> Result<bool, String> {
    let mut command = Command::new("python3");
    command
        .args(["-c", "import aiosmtpd"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    if let Some(pythonpath) = pythonpath {
        command.env("PYTHONPATH", pythonpath);
    }
    let status = command.status().map_err(|e| {
        format!("cannot run python3 ({e}); the SMTP sink needs Python 3 on the PATH")
    })?;
    Ok(status.success())
}

fn install(dir: &Path) -> Result<(), String> {
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
        .arg("aiosmtpd")
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("cannot run python3 -m pip: {e}"))?;
    if output.status.success() {
        Ok(())
    } else {
        Err(format!(
            "aiosmtpd is not installed and `python3 -m pip install --target {} aiosmtpd` \
             failed ({}); install it with `python3 -m pip install aiosmtpd` \
             (or the python3-aiosmtpd package). pip said:\n{}",
            dir.display(),
            output.status,
            String::from_utf8_lossy(&output.stderr).trim()
        ))
    }
}
