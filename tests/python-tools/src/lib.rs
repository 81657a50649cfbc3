//! Test support: a `python3` with exactly the Python packages a test needs
//! (aiosmtpd for the SMTP sink, schemathesis for contract tests, …).
//!
//! The packages are never taken from the system: each set is a requirements
//! file that pins every package, dependencies included, and is installed once
//! with pip into `target/<profile>/python/<name>-<hash of the file>`, which
//! the child process gets on `PYTHONPATH`. Whether a set is installed is
//! asked in isolated mode (`python3 -I`: no working directory, no
//! `PYTHONPATH`, no user site on the path) and every module must come from
//! that folder, so no folder of the repository, and no package the machine
//! happens to have, can pass for it. So `cargo test` works on a fresh machine
//! with Python 3 and pip, and gives the same answer on every machine.

use std::ffi::OsString;
use std::fs::File;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// A set of Python packages a test needs.
#[derive(Debug, Clone, Copy)]
pub struct Packages {
    /// Names the install folder: `python/<name>-<hash>`.
    pub name: &'static str,
    /// Modules that must import from the install folder.
    pub imports: &'static [&'static str],
    /// A pip requirements file pinning every package with `==`
    /// (usually `include_str!` of a file kept beside the test).
    pub requirements: &'static str,
}

/// How to run `python3` with the packages importable.
#[derive(Debug, Clone)]
pub struct Python {
    /// `PYTHONPATH` for the child: the install folder first.
    pub pythonpath: OsString,
}

impl Python {
    /// A `python3` command that imports the pinned packages: no user site
    /// packages (`-s`), the install folder first on `PYTHONPATH`, and the
    /// system's temporary folder as working directory (callers may choose
    /// another), so nothing in the repository shadows a package.
    pub fn command(&self) -> Command {
        let mut command = Command::new("python3");
        command
            .arg("-s")
            .env("PYTHONPATH", &self.pythonpath)
            .current_dir(std::env::temp_dir());
        command
    }
}

/// Installs the packages unless an earlier run did, and checks that they
/// import from their folder. Several test processes may call it at once: the
/// install is locked. The error says what failed and how to fix it.
pub fn prepare(packages: Packages) -> Result<Python, String> {
    check_pins(packages)?;
    let dir = install_dir(packages);
    let pythonpath = pythonpath_with(&dir)?;
    let python = Python { pythonpath };
    if installed(packages, &dir)? {
        return Ok(python);
    }
    let parent = dir.parent().unwrap_or(&dir);
    std::fs::create_dir_all(parent)
        .map_err(|e| format!("cannot create {}: {e}", parent.display()))?;
    let lock_path = dir.with_extension("lock");
    let lock = File::create(&lock_path)
        .map_err(|e| format!("cannot create {}: {e}", lock_path.display()))?;
    lock.lock()
        .map_err(|e| format!("cannot lock {}: {e}", lock_path.display()))?;
    if !installed(packages, &dir)? {
        install(packages, &dir)?;
        if !installed(packages, &dir)? {
            return Err(format!(
                "the {} packages were installed into {} but python3 -I still cannot import {} from there",
                packages.name,
                dir.display(),
                packages.imports.join(", ")
            ));
        }
    }
    Ok(python)
}

/// Every requirement is pinned to one version, so no run gets another.
fn check_pins(packages: Packages) -> Result<(), String> {
    let loose: Vec<&str> = requirement_lines(packages.requirements)
        .filter(|line| !line.contains("=="))
        .collect();
    if loose.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "the {} requirements must pin exact versions (`name==x.y.z`): {}",
            packages.name,
            loose.join(", ")
        ))
    }
}

fn requirement_lines(requirements: &str) -> impl Iterator<Item = &str> {
    requirements
        .lines()
        .map(str::trim)
        .filter(|line| !line.is_empty() && !line.starts_with('#'))
}

/// `target/<profile>/python/<name>-<hash>`, next to the `deps` folder that
/// holds the test binaries (the system's temporary folder otherwise). The
/// hash of the requirements names the folder, so changing a pin installs
/// anew.
fn install_dir(packages: Packages) -> PathBuf {
    let mut hasher = DefaultHasher::new();
    requirement_lines(packages.requirements)
        .collect::<Vec<_>>()
        .hash(&mut hasher);
    std::env::current_exe()
        .ok()
        .and_then(|exe| {
            exe.ancestors()
                .find(|dir| dir.file_name().is_some_and(|n| n == "deps"))
                .and_then(Path::parent)
                .map(Path::to_path_buf)
        })
        .unwrap_or_else(std::env::temp_dir)
        .join("python")
        .join(format!("{}-{:016x}", packages.name, hasher.finish()))
}

/// `dir` in front of whatever `PYTHONPATH` the tests run with.
fn pythonpath_with(dir: &Path) -> Result<OsString, String> {
    let inherited = std::env::var_os("PYTHONPATH").unwrap_or_default();
    let paths = std::iter::once(dir.to_path_buf()).chain(std::env::split_paths(&inherited));
    std::env::join_paths(paths).map_err(|e| format!("cannot build PYTHONPATH: {e}"))
}

/// Asked in isolated mode: each module must be a real module or package
/// found in `dir` (a namespace package, such as a folder that happens to
/// have the module's name, has no origin and does not count).
const CHECK: &str = r#"
import importlib.util, os, sys
folder = os.path.realpath(sys.argv[1])
sys.path.insert(0, folder)
for name in sys.argv[2:]:
    spec = importlib.util.find_spec(name)
    origin = spec and spec.origin
    if not origin or not os.path.realpath(origin).startswith(folder + os.sep):
        sys.exit(f"{name} does not come from {folder}: {origin}")
"#;

fn installed(packages: Packages, dir: &Path) -> Result<bool, String> {
    if !dir.is_dir() {
        return Ok(false);
    }
    let status = Command::new("python3")
        .args(["-I", "-c", CHECK])
        .arg(dir)
        .args(packages.imports)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .map_err(|e| format!("cannot run python3 ({e}); these tests need Python 3 on the PATH"))?;
    Ok(status.success())
}

fn install(packages: Packages, dir: &Path) -> Result<(), String> {
    // A leftover of an interrupted install would make pip refuse or mix versions.
    if dir.exists() {
        std::fs::remove_dir_all(dir).map_err(|e| format!("cannot empty {}: {e}", dir.display()))?;
    }
    let requirements = dir.with_extension("txt");
    std::fs::write(&requirements, packages.requirements)
        .map_err(|e| format!("cannot write {}: {e}", requirements.display()))?;
    let output = Command::new("python3")
        .args([
            "-I",
            "-m",
            "pip",
            "install",
            "--quiet",
            "--disable-pip-version-check",
            "--no-input",
        ])
        .arg("--target")
        .arg(dir)
        .arg("--requirement")
        .arg(&requirements)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("cannot run python3 -m pip: {e}"))?;
    if output.status.success() {
        Ok(())
    } else {
        Err(format!(
            "`python3 -m pip install --target {} --requirement {}` failed ({}); \
             these tests need Python 3 with pip and access to the Python package index. \
             pip said:\n{}",
            dir.display(),
            requirements.display(),
            output.status,
            String::from_utf8_lossy(&output.stderr).trim()
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PINNED: &str = "# a comment\nalpha==1.0\n\n  beta==2.3.4  \n";

    fn packages(requirements: &'static str) -> Packages {
        Packages {
            name: "example",
            imports: &["alpha"],
            requirements,
        }
    }

    #[test]
    fn pinned_requirements_pass_and_loose_ones_are_named() {
        assert_eq!(check_pins(packages(PINNED)), Ok(()));
        let problem = check_pins(packages("alpha==1.0\nbeta>=2\ngamma\n")).unwrap_err();
        assert!(problem.contains("beta>=2, gamma"), "{problem}");
    }

    #[test]
    fn the_folder_changes_with_the_pins_and_not_with_comments() {
        let one = install_dir(packages(PINNED));
        let same = install_dir(packages("alpha==1.0\n# another comment\nbeta==2.3.4\n"));
        let other = install_dir(packages("alpha==1.1\nbeta==2.3.4\n"));
        assert_eq!(one, same);
        assert_ne!(one, other);
        assert!(
            one.to_string_lossy().contains("example-"),
            "{}",
            one.display()
        );
    }

    #[test]
    fn a_folder_named_like_the_module_does_not_count_as_installed() {
        let dir = tempfile_dir();
        // What fooled the first version: a folder with the module's name,
        // which Python imports as a namespace package.
        std::fs::create_dir_all(dir.join("alpha")).unwrap();
        assert_eq!(installed(packages(PINNED), &dir), Ok(false));
        std::fs::write(dir.join("alpha").join("__init__.py"), "").unwrap();
        assert_eq!(installed(packages(PINNED), &dir), Ok(true));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    fn tempfile_dir() -> PathBuf {
        let dir = std::env::temp_dir().join(format!(
            "python-tools-test-{}-{:?}",
            std::process::id(),
            std::thread::current().id()
        ));
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }
}
