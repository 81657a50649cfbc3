//! The `devmgr` package: the server, its hardened unit under its own user,
//! its configuration file, its user and data folder.

use crate::build::{packages, run};
use crate::deb::{self, Unpacked};
use crate::unit::Unit;
use std::os::unix::fs::MetadataExt;
use std::process::Command;

const UNIT: &str = "devmgr.service";
const CONFIG: &str = "/etc/devmgr/devmgr.toml";

#[test]
fn the_server_package_holds_the_binary_the_unit_and_a_private_conffile() {
    let deb = &packages().server;
    assert_eq!(deb::field(deb, "Package"), "devmgr");
    assert_eq!(
        deb::field(deb, "Version"),
        format!("{}-1", env!("CARGO_PKG_VERSION"))
    );
    let depends = deb::field(deb, "Depends");
    assert!(
        depends.contains("libc6") && depends.contains("systemd"),
        "{depends}"
    );
    let contents = deb::contents(deb);
    let binary = deb::entry(&contents, "/usr/bin/devmgr");
    assert_eq!(binary.mode, "-rwxr-xr-x");
    deb::assert_root_owns(binary);
    let config = deb::entry(&contents, CONFIG);
    assert_eq!(config.mode, "-rw-r-----", "it may hold passwords");
    for path in [
        "/usr/lib/sysusers.d/devmgr.conf",
        "/usr/lib/tmpfiles.d/devmgr.conf",
        "/usr/share/doc/devmgr/operations.md",
    ] {
        deb::entry(&contents, path);
    }
    let unpacked = Unpacked::new(deb);
    unpacked.unit_path(UNIT);
    let conffiles = unpacked.control_text("conffiles");
    assert_eq!(conffiles.lines().collect::<Vec<_>>(), [CONFIG]);
}

#[test]
fn the_packaged_server_runs_and_reads_the_packaged_configuration() {
    let unpacked = Unpacked::new(&packages().server);
    let devmgr = unpacked.file("/usr/bin/devmgr");
    let version = run(Command::new(&devmgr).arg("--version")).unwrap_or_else(|p| panic!("{p}"));
    assert_eq!(
        String::from_utf8_lossy(&version.stdout).trim(),
        format!("devmgr {}", env!("CARGO_PKG_VERSION"))
    );
    // Every key of the shipped file is one devmgr knows (an unknown key
    // stops it); the database is moved to a scratch folder by a flag, which
    // beats the file.
    let data = tempfile::tempdir().expect("a temporary folder");
    let migrated = run(Command::new(&devmgr)
        .arg("--config")
        .arg(unpacked.file(CONFIG))
        .arg(format!(
            "--database-url=sqlite://{}",
            data.path().join("devmgr.db").display()
        ))
        .arg("migrate")
        .env_remove("DEVMGR_DATABASE_URL")
        .env_remove("DEVMGR_CONFIG"))
    .unwrap_or_else(|p| panic!("{p}"));
    let answer: serde_json::Value =
        serde_json::from_slice(&migrated.stdout).expect("migrate prints one JSON object");
    assert_eq!(answer["migrated"], true, "{answer}");
    let text = unpacked.text(CONFIG);
    assert!(
        text.lines()
            .any(|line| line == r#"database_url = "sqlite:///var/lib/devmgr/devmgr.db""#),
        "the database lives in /var/lib/devmgr:\n{text}"
    );
}

#[test]
fn the_server_unit_runs_devmgr_as_its_own_user_with_no_privilege() {
    let unpacked = Unpacked::new(&packages().server);
    let path = unpacked.unit_path(UNIT);
    let unit = Unit::parse(&unpacked.text(&path));
    unit.assert_service(&[
        (
            "ExecStart",
            "/usr/bin/devmgr --config /etc/devmgr/devmgr.toml serve",
        ),
        ("User", "devmgr"),
        ("Group", "devmgr"),
        ("StateDirectory", "devmgr"),
        ("StateDirectoryMode", "0750"),
        ("ReadWritePaths", "/var/lib/devmgr"),
        ("ProtectSystem", "strict"),
        ("ProtectHome", "yes"),
        ("PrivateTmp", "yes"),
        ("PrivateDevices", "yes"),
        ("NoNewPrivileges", "yes"),
        ("CapabilityBoundingSet", ""),
        ("AmbientCapabilities", ""),
        ("RestrictAddressFamilies", "AF_INET AF_INET6 AF_UNIX"),
        ("Restart", "on-failure"),
    ]);
    assert_eq!(
        unit.values("Service", "SystemCallFilter"),
        ["@system-service", "~@privileged"]
    );
    let files: u64 = unit
        .value("Service", "LimitNOFILE")
        .parse()
        .expect("LimitNOFILE is a number");
    assert!(files >= 65_536, "one connection per online device: {files}");
    assert_eq!(unit.value("Install", "WantedBy"), "multi-user.target");
    deb::assert_systemd_accepts(&unpacked, &path);
}

#[test]
fn the_maintainer_scripts_make_the_user_its_data_folder_and_keep_the_configuration_private() {
    let unpacked = Unpacked::new(&packages().server);
    let postinst = unpacked.control_text("postinst");
    for step in [
        "systemd-sysusers ${DPKG_ROOT:+--root=\"$DPKG_ROOT\"} devmgr.conf",
        "systemd-tmpfiles --create devmgr.conf",
        "deb-systemd-helper enable devmgr.service",
        "deb-systemd-invoke $_dh_action devmgr.service",
    ] {
        assert!(
            postinst.contains(step),
            "postinst lacks `{step}`:\n{postinst}"
        );
    }
    for script in ["postinst", "prerm", "postrm"] {
        deb::assert_maintainer_script(&unpacked.control.join(script));
    }
    // What those steps do, done to the unpacked tree.
    let root = &unpacked.root;
    run(Command::new("systemd-sysusers")
        .arg(format!("--root={}", root.display()))
        .arg(unpacked.file("/usr/lib/sysusers.d/devmgr.conf")))
    .unwrap_or_else(|p| panic!("{p}"));
    let passwd = unpacked.text("/etc/passwd");
    let user: Vec<&str> = passwd
        .lines()
        .find(|line| line.starts_with("devmgr:"))
        .unwrap_or_else(|| panic!("no devmgr user:\n{passwd}"))
        .split(':')
        .collect();
    let uid: u32 = user[2].parse().expect("a uid");
    let gid: u32 = user[3].parse().expect("a gid");
    assert!(uid > 0 && uid < 1000, "a system user: {uid}");
    assert_eq!(&user[5..], ["/var/lib/devmgr", "/usr/sbin/nologin"]);
    if !is_root() {
        eprintln!("not root: the folder's and file's owners are not checked");
        return;
    }
    run(Command::new("systemd-tmpfiles")
        .arg(format!("--root={}", root.display()))
        .arg("--create")
        .arg(unpacked.file("/usr/lib/tmpfiles.d/devmgr.conf")))
    .unwrap_or_else(|p| panic!("{p}"));
    let data = unpacked
        .file("/var/lib/devmgr")
        .metadata()
        .expect("/var/lib/devmgr");
    assert!(data.is_dir());
    assert_eq!(
        (data.mode() & 0o7777, data.uid(), data.gid()),
        (0o750, uid, gid)
    );
    let config = unpacked.file(CONFIG).metadata().expect(CONFIG);
    assert_eq!(
        (config.mode() & 0o7777, config.uid(), config.gid()),
        (0o640, 0, gid)
    );
}

/// Whether the tests run as root (only root may give files to another user).
pub fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|out| String::from_utf8_lossy(&out.stdout).trim() == "0")
}
