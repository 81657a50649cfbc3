//! The `devmgr-agent` package: the agent, and its unit, which runs it as
//! root with no capability but CAP_SYS_BOOT.

use crate::build::{packages, run};
use crate::deb::{self, Unpacked};
use crate::server::is_root;
use crate::unit::Unit;
use std::os::unix::fs::MetadataExt;
use std::process::Command;

const UNIT: &str = "devmgr-agent.service";

#[test]
fn the_agent_package_holds_the_agent_and_its_unit() {
    let deb = &packages().agent;
    assert_eq!(deb::field(deb, "Package"), "devmgr-agent");
    assert_eq!(
        deb::field(deb, "Version"),
        format!("{}-1", env!("CARGO_PKG_VERSION"))
    );
    let contents = deb::contents(deb);
    let binary = deb::entry(&contents, "/usr/bin/devmgr-agent");
    assert_eq!(binary.mode, "-rwxr-xr-x");
    deb::assert_root_owns(binary);
    deb::entry(&contents, "/usr/lib/tmpfiles.d/devmgr-agent.conf");
    assert!(
        contents
            .iter()
            .all(|entry| !entry.path.starts_with("/usr/bin/devmgr ")
                && entry.path != "/usr/bin/devmgr"),
        "the agent's package does not carry the server"
    );
    let unpacked = Unpacked::new(deb);
    let version = run(Command::new(unpacked.file("/usr/bin/devmgr-agent")).arg("--version"))
        .unwrap_or_else(|p| panic!("{p}"));
    assert_eq!(
        String::from_utf8_lossy(&version.stdout).trim(),
        format!("devmgr-agent {}", env!("CARGO_PKG_VERSION"))
    );
}

#[test]
fn the_agent_unit_keeps_only_cap_sys_boot_and_writes_only_its_folder() {
    let unpacked = Unpacked::new(&packages().agent);
    let path = unpacked.unit_path(UNIT);
    let unit = Unit::parse(&unpacked.text(&path));
    unit.assert_service(&[
        ("ExecStart", "/usr/bin/devmgr-agent run"),
        ("CapabilityBoundingSet", "CAP_SYS_BOOT"),
        ("AmbientCapabilities", ""),
        ("NoNewPrivileges", "yes"),
        ("ProtectSystem", "strict"),
        ("ReadWritePaths", "/etc/devmgr-agent"),
        (
            "Environment",
            "\"DEVMGR_AGENT_REBOOT_COMMAND=systemctl reboot\"",
        ),
    ]);
    assert!(
        unit.values("Service", "User").is_empty(),
        "root: the configuration it writes is root's"
    );
    assert_eq!(
        unit.value("Unit", "ConditionPathExists"),
        "/etc/devmgr-agent/config.json",
        "it starts once `devmgr-agent install` has run"
    );
    assert_eq!(unit.value("Install", "WantedBy"), "multi-user.target");
    deb::assert_systemd_accepts(&unpacked, &path);
}

#[test]
fn the_agent_package_makes_its_folder_for_root_only() {
    let unpacked = Unpacked::new(&packages().agent);
    let postinst = unpacked.control_text("postinst");
    for step in [
        "systemd-tmpfiles --create devmgr-agent.conf",
        "deb-systemd-helper enable devmgr-agent.service",
    ] {
        assert!(
            postinst.contains(step),
            "postinst lacks `{step}`:\n{postinst}"
        );
    }
    for script in ["postinst", "prerm", "postrm"] {
        deb::assert_maintainer_script(&unpacked.control.join(script));
    }
    if !is_root() {
        eprintln!("not root: the folder's owner is not checked");
        return;
    }
    run(Command::new("systemd-tmpfiles")
        .arg(format!("--root={}", unpacked.root.display()))
        .arg("--create")
        .arg(unpacked.file("/usr/lib/tmpfiles.d/devmgr-agent.conf")))
    .unwrap_or_else(|p| panic!("{p}"));
    let folder = unpacked
        .file("/etc/devmgr-agent")
        .metadata()
        .expect("/etc/devmgr-agent");
    assert!(folder.is_dir());
    assert_eq!(
        (folder.mode() & 0o7777, folder.uid(), folder.gid()),
        (0o700, 0, 0)
    );
}
