//! A package taken apart with dpkg-deb: its control fields, its list of
//! files, and its files and control files unpacked in a folder of their own.

use crate::build::run;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;

/// One line of `dpkg-deb --contents`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// Like `-rwxr-xr-x`.
    pub mode: String,
    /// Like `root/root`.
    pub owner: String,
    /// The path without its leading `./`: `/usr/bin/devmgr`.
    pub path: String,
}

/// A control field of the package (`Package`, `Depends`, …).
pub fn field(deb: &Path, name: &str) -> String {
    let out = run(Command::new("dpkg-deb").arg("--field").arg(deb).arg(name))
        .unwrap_or_else(|problem| panic!("{problem}"));
    String::from_utf8_lossy(&out.stdout).trim().to_owned()
}

/// The files and folders the package installs.
pub fn contents(deb: &Path) -> Vec<Entry> {
    let out = run(Command::new("dpkg-deb").arg("--contents").arg(deb))
        .unwrap_or_else(|problem| panic!("{problem}"));
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|line| {
            let words: Vec<&str> = line.split_whitespace().collect();
            assert!(
                words.len() >= 6,
                "unexpected dpkg-deb --contents line: {line}"
            );
            Entry {
                mode: words[0].to_owned(),
                owner: words[1].to_owned(),
                path: words[5].trim_start_matches('.').to_owned(),
            }
        })
        .collect()
}

/// Asserts that root owns an entry (dpkg-deb shows `root/root` or `0/0`).
pub fn assert_root_owns(entry: &Entry) {
    assert!(
        ["root/root", "0/0"].contains(&entry.owner.as_str()),
        "{} belongs to {}",
        entry.path,
        entry.owner
    );
}

/// The entry for `path` (like `/usr/bin/devmgr`); fails when it is missing.
pub fn entry<'a>(entries: &'a [Entry], path: &str) -> &'a Entry {
    entries
        .iter()
        .find(|entry| entry.path == path)
        .unwrap_or_else(|| panic!("the package has no {path}: {entries:#?}"))
}

/// A package unpacked: its files under `root`, its control files under
/// `control`; both removed on drop.
pub struct Unpacked {
    _dir: tempfile::TempDir,
    /// The files as installed: `root/usr/bin/devmgr`, …
    pub root: PathBuf,
    /// `control`, `conffiles`, `postinst`, …
    pub control: PathBuf,
}

impl Unpacked {
    /// Unpacks `deb` with `dpkg-deb -x` and, for the control files, its
    /// control archive (`dpkg-deb --ctrl-tarfile`).
    pub fn new(deb: &Path) -> Self {
        let dir = tempfile::tempdir().expect("a temporary folder");
        let root = dir.path().join("root");
        let control = dir.path().join("control");
        std::fs::create_dir_all(&control).expect("a control folder");
        run(Command::new("dpkg-deb").arg("-x").arg(deb).arg(&root))
            .unwrap_or_else(|problem| panic!("{problem}"));
        let tar = run(Command::new("dpkg-deb").arg("--ctrl-tarfile").arg(deb))
            .unwrap_or_else(|problem| panic!("{problem}"));
        let tar_path = dir.path().join("control.tar");
        std::fs::write(&tar_path, &tar.stdout).expect("the control archive is written");
        run(Command::new("tar")
            .arg("-xf")
            .arg(&tar_path)
            .arg("-C")
            .arg(&control))
        .unwrap_or_else(|problem| panic!("{problem}"));
        Self {
            _dir: dir,
            root,
            control,
        }
    }

    /// A file of the package, by its installed path (`/etc/devmgr/devmgr.toml`).
    pub fn file(&self, path: &str) -> PathBuf {
        self.root.join(path.trim_start_matches('/'))
    }

    /// A file's text, by its installed path.
    pub fn text(&self, path: &str) -> String {
        std::fs::read_to_string(self.file(path))
            .unwrap_or_else(|e| panic!("cannot read {path} from the package: {e}"))
    }

    /// A control file's text (`conffiles`, `postinst`, …).
    pub fn control_text(&self, name: &str) -> String {
        std::fs::read_to_string(self.control.join(name))
            .unwrap_or_else(|e| panic!("the package has no {name} control file: {e}"))
    }

    /// Where the package puts a systemd unit: `/lib/systemd/system/NAME` or
    /// `/usr/lib/systemd/system/NAME`.
    pub fn unit_path(&self, name: &str) -> String {
        ["/lib/systemd/system/", "/usr/lib/systemd/system/"]
            .iter()
            .map(|dir| format!("{dir}{name}"))
            .find(|path| self.file(path).is_file())
            .unwrap_or_else(|| panic!("the package has no systemd unit {name}"))
    }
}

/// A maintainer script is executable, is valid shell (`sh -n`), and has
/// cargo-deb's fragments on lines of their own (a `#DEBHELPER#` token left
/// in a comment, say, would put them in the middle of a line).
pub fn assert_maintainer_script(script: &Path) {
    let mode = script
        .metadata()
        .unwrap_or_else(|e| panic!("{}: {e}", script.display()))
        .permissions()
        .mode();
    assert!(mode & 0o111 != 0, "{} is not executable", script.display());
    run(Command::new("sh").arg("-n").arg(script)).unwrap_or_else(|problem| panic!("{problem}"));
    let text = std::fs::read_to_string(script).expect("the script is text");
    for line in text.lines() {
        assert!(
            !line.contains("Automatically added by cargo-deb")
                || line == "# Automatically added by cargo-deb",
            "{}: a fragment starts inside a line: {line}",
            script.display()
        );
    }
}

/// `systemd-analyze verify` of a unit of the unpacked tree, with that tree
/// as root (so that it finds the unit's programs there), not following the
/// unit's dependencies (systemd's own units are not in the tree). It must
/// say nothing at all: an unknown setting, a value it cannot parse or a
/// missing program is a complaint. Where systemd-analyze is missing (not a
/// systemd machine), says so and checks nothing.
pub fn assert_systemd_accepts(unpacked: &Unpacked, unit_path: &str) {
    if Command::new("systemd-analyze")
        .arg("--version")
        .output()
        .is_err()
    {
        eprintln!("systemd-analyze is not installed: {unit_path} is not verified");
        return;
    }
    let out = Command::new("systemd-analyze")
        .arg("verify")
        .arg("--recursive-errors=no")
        .arg(format!("--root={}", unpacked.root.display()))
        .arg(unpacked.file(unit_path))
        .output()
        .expect("systemd-analyze runs");
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        out.status.success() && said.trim().is_empty(),
        "systemd-analyze verify {unit_path} ({}):\n{said}",
        out.status
    );
}
