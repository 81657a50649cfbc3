//! Builds both packages once per test run with cargo-deb, installed under
//! `target/` when missing (a pinned release, like the tests' Python and Node
//! tools).
//!
//! Operators build with `cargo deb -p devmgr`: the release profile, with LTO,
//! which takes many minutes. The test builds with the dev profile instead, so
//! that it reuses the dependencies `cargo test` has compiled; cargo-deb
//! strips the binaries either way, and everything else in the package is
//! the same.

use std::ffi::OsString;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::OnceLock;

/// The cargo-deb release the test uses.
const CARGO_DEB_VERSION: &str = "3.8.0";

/// The two packages, built.
pub struct Packages {
    /// `devmgr_<version>-1_<arch>.deb`.
    pub server: PathBuf,
    /// `devmgr-agent_<version>-1_<arch>.deb`.
    pub agent: PathBuf,
}

/// Both packages, built by the first test that asks; the others wait for it.
pub fn packages() -> &'static Packages {
    static BUILT: OnceLock<Result<Packages, String>> = OnceLock::new();
    match BUILT.get_or_init(build) {
        Ok(packages) => packages,
        Err(problem) => panic!("{problem}"),
    }
}

fn build() -> Result<Packages, String> {
    let profile_dir = profile_dir();
    let cargo_deb = cargo_deb(&profile_dir)?;
    let output = profile_dir.join("debian-packages-test");
    if output.exists() {
        std::fs::remove_dir_all(&output)
            .map_err(|e| format!("cannot empty {}: {e}", output.display()))?;
    }
    std::fs::create_dir_all(&output)
        .map_err(|e| format!("cannot create {}: {e}", output.display()))?;
    Ok(Packages {
        server: build_package(&cargo_deb, &output, "devmgr")?,
        agent: build_package(&cargo_deb, &output, "devmgr-agent")?,
    })
}

/// `cargo deb -p PACKAGE` from the workspace's root, into `output`; the
/// package's path, which cargo-deb prints last.
fn build_package(cargo_deb: &Path, output: &Path, package: &str) -> Result<PathBuf, String> {
    let mut command = Command::new(cargo_deb);
    command
        .args([
            "-p",
            package,
            "--profile",
            "dev",
            "--fast",
            "--locked",
            "--quiet",
        ])
        .arg("--output")
        .arg(output)
        .current_dir(workspace_root());
    let out = run(&mut command)?;
    let printed = String::from_utf8_lossy(&out.stdout);
    let deb = PathBuf::from(printed.lines().last().unwrap_or_default().trim());
    if deb.is_file() && deb.starts_with(output) {
        Ok(deb)
    } else {
        Err(format!(
            "cargo-deb -p {package} printed no package path in {}: {printed}",
            output.display()
        ))
    }
}

/// cargo-deb from `target/<profile>/tools/cargo-deb-<version>`, installed
/// there first when missing (a minute or two of compiling, once). Several
/// test processes may ask at once: the install is locked.
fn cargo_deb(profile_dir: &Path) -> Result<PathBuf, String> {
    let root = profile_dir
        .join("tools")
        .join(format!("cargo-deb-{CARGO_DEB_VERSION}"));
    let exe = root.join("bin").join("cargo-deb");
    if reports_version(&exe) {
        return Ok(exe);
    }
    std::fs::create_dir_all(&root).map_err(|e| format!("cannot create {}: {e}", root.display()))?;
    let lock_path = root.with_extension("lock");
    let lock = File::create(&lock_path)
        .map_err(|e| format!("cannot create {}: {e}", lock_path.display()))?;
    lock.lock()
        .map_err(|e| format!("cannot lock {}: {e}", lock_path.display()))?;
    if !reports_version(&exe) {
        let mut install = Command::new(cargo());
        install
            .args(["install", "cargo-deb", "--locked", "--force", "--version"])
            .arg(format!("={CARGO_DEB_VERSION}"))
            .arg("--root")
            .arg(&root);
        run(&mut install).map_err(|problem| {
            format!("{problem}\n(installing cargo-deb needs access to crates.io)")
        })?;
    }
    if reports_version(&exe) {
        Ok(exe)
    } else {
        Err(format!(
            "{} does not report version {CARGO_DEB_VERSION} after its install",
            exe.display()
        ))
    }
}

fn reports_version(exe: &Path) -> bool {
    Command::new(exe)
        .arg("--version")
        .stdin(Stdio::null())
        .output()
        .is_ok_and(|out| {
            out.status.success()
                && String::from_utf8_lossy(&out.stdout)
                    .split_whitespace()
                    .any(|word| word == CARGO_DEB_VERSION)
        })
}

/// Runs a command to its end; its output, or what it said when it failed.
pub fn run(command: &mut Command) -> Result<Output, String> {
    let out = command
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("cannot run {command:?}: {e}"))?;
    if out.status.success() {
        Ok(out)
    } else {
        Err(format!(
            "{command:?} failed ({}):\n{}\n{}",
            out.status,
            String::from_utf8_lossy(&out.stdout).trim(),
            String::from_utf8_lossy(&out.stderr).trim()
        ))
    }
}

/// The cargo that runs the tests (cargo sets CARGO for them).
fn cargo() -> OsString {
    std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into())
}

/// The repository's root: the tests crate's parent.
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the tests crate is inside the workspace")
        .to_path_buf()
}

/// `target/<profile>`, which holds the `deps` folder of this test binary.
fn profile_dir() -> PathBuf {
    std::env::current_exe()
        .ok()
        .and_then(|exe| {
            exe.ancestors()
                .find(|dir| dir.file_name().is_some_and(|name| name == "deps"))
                .and_then(Path::parent)
                .map(Path::to_path_buf)
        })
        .unwrap_or_else(|| workspace_root().join("target").join("debug"))
}
