//! The Debian packages of `devmgr` and `devmgr-agent` (docs/operations.md,
//! "Install from the package"): built from the workspace with cargo-deb as
//! an operator builds them, then taken apart with dpkg-deb and checked: the
//! binaries run, the systemd units say what the documentation promises and
//! `systemd-analyze verify` accepts them, the configuration file is a
//! conffile devmgr reads, and the maintainer scripts' systemd-sysusers and
//! systemd-tmpfiles files make the user and folders, applied to the
//! unpacked tree.

mod agent;
mod build;
mod deb;
mod server;
mod unit;
