//! A throwaway PostgreSQL server that speaks TLS with certificates made
//! for the test, so the shared test server is never reconfigured: `initdb`
//! into a temporary directory, started on a free port of localhost, stopped
//! and removed when dropped (even when the test fails). Running as root, the
//! server runs as the `postgres` user, as PostgreSQL requires.
//!
//! Its `pg_hba.conf` makes a connection's encryption visible from outside:
//! the role `tls` may log in over TLS only, the role `plain` without TLS
//! only, each to its own database.

use rcgen::{BasicConstraints, CertificateParams, CertifiedIssuer, IsCa, KeyPair};
use std::fs;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use tempfile::TempDir;

/// Two certificate authorities and, signed by the first, the server's
/// certificate for `localhost` only (not `127.0.0.1`), as PEM files.
pub struct Certificates {
    /// The authority that signed the server's certificate.
    pub ca: PathBuf,
    /// An authority that signed nothing the server shows.
    pub other_ca: PathBuf,
    server_certificate: String,
    server_key: String,
}

impl Certificates {
    fn make(dir: &Path) -> Self {
        let authority = |name: &str| {
            let mut params = CertificateParams::new(Vec::<String>::new()).expect("CA parameters");
            params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
            params
                .distinguished_name
                .push(rcgen::DnType::CommonName, name);
            CertifiedIssuer::self_signed(params, KeyPair::generate().expect("a CA key"))
                .expect("a CA certificate")
        };
        let (ca, other) = (authority("devmgr test CA"), authority("another CA"));
        let key = KeyPair::generate().expect("a server key");
        let server = CertificateParams::new(vec!["localhost".to_owned()])
            .expect("server parameters")
            .signed_by(&key, &ca)
            .expect("a server certificate");
        let write = |name: &str, pem: String| {
            let path = dir.join(name);
            fs::write(&path, pem).expect("a certificate file");
            path
        };
        Certificates {
            ca: write("ca.pem", ca.pem()),
            other_ca: write("other-ca.pem", other.pem()),
            server_certificate: server.pem(),
            server_key: key.serialize_pem(),
        }
    }
}

/// A running server of its own; stopped and removed when dropped.
pub struct Cluster {
    /// Where the test may keep files (readable by everyone).
    pub dir: TempDir,
    /// Its port on localhost.
    pub port: u16,
    /// The certificates it was given, and another authority.
    pub certificates: Certificates,
    data: PathBuf,
}

impl Cluster {
    /// Makes and starts a server; panics, saying why, when it cannot.
    pub fn start() -> Self {
        let dir = tempfile::tempdir().expect("a temporary directory");
        fs::set_permissions(dir.path(), fs::Permissions::from_mode(0o755))
            .expect("the directory can be opened to the server's user");
        let home = dir.path().join("pg");
        fs::create_dir(&home).expect("the server's directory");
        if running_as_root() {
            succeed(Command::new("chown").arg("postgres").arg(&home));
        }
        let data = home.join("data");
        let certificates = Certificates::make(dir.path());
        let port = free_port();
        let cluster = Cluster {
            dir,
            port,
            certificates,
            data,
        };
        cluster.initialise(&home);
        let options = format!(
            "-c port={port} -c listen_addresses=localhost -c unix_socket_directories={} \
             -c ssl=on -c ssl_cert_file=server.crt -c ssl_key_file=server.key -c fsync=off",
            home.display()
        );
        let log = home.join("server.log");
        let started = as_server_user(&mut cluster.tool("pg_ctl"))
            .args(["start", "-w", "-t", "60", "-D"])
            .arg(&cluster.data)
            .arg("-l")
            .arg(&log)
            .args(["-o", &options])
            .output()
            .expect("pg_ctl can be run");
        assert!(
            started.status.success(),
            "the TLS test server did not start: {}\n{}",
            String::from_utf8_lossy(&started.stderr),
            fs::read_to_string(&log).unwrap_or_default()
        );
        let mut psql = cluster.tool("psql");
        psql.args(["-X", "-q", "-v", "ON_ERROR_STOP=1", "-U", "postgres", "-d"])
            .arg("postgres")
            .arg("-h")
            .arg(&home)
            .args(["-p", &port.to_string()]);
        for statement in [
            "CREATE ROLE tls LOGIN",
            "CREATE DATABASE tls OWNER tls",
            "CREATE ROLE plain LOGIN",
            "CREATE DATABASE plain OWNER plain",
        ] {
            psql.args(["-c", statement]);
        }
        succeed(&mut psql);
        cluster
    }

    /// `postgres://ROLE:PASSWORD@HOST:PORT/ROLE?QUERY`: the role's database,
    /// with a password the server never asks for (its messages must not show it).
    pub fn url(&self, role: &str, host: &str, query: &str) -> String {
        let port = self.port;
        format!("postgres://{role}:{PASSWORD}@{host}:{port}/{role}?connect_timeout=10&{query}")
    }

    /// initdb, the certificates and who may connect how.
    fn initialise(&self, home: &Path) {
        let mut initdb = self.tool("initdb");
        as_server_user(&mut initdb).arg("-D").arg(&self.data).args([
            "-U",
            "postgres",
            "--auth=trust",
            "--no-sync",
            "-E",
            "UTF8",
        ]);
        succeed(&mut initdb);
        let owner = fs::metadata(home).expect("the server's directory");
        let hba = "local all all trust\n\
                   hostssl all tls 127.0.0.1/32 trust\n\
                   hostssl all tls ::1/128 trust\n\
                   hostnossl all plain 127.0.0.1/32 trust\n\
                   hostnossl all plain ::1/128 trust\n";
        for (name, text, mode) in [
            (
                "server.crt",
                &self.certificates.server_certificate[..],
                0o644,
            ),
            ("server.key", &self.certificates.server_key[..], 0o600),
            ("pg_hba.conf", hba, 0o600),
        ] {
            let path = self.data.join(name);
            fs::write(&path, text).expect("a file of the server");
            fs::set_permissions(&path, fs::Permissions::from_mode(mode)).expect("its mode");
            std::os::unix::fs::chown(&path, Some(owner.uid()), Some(owner.gid()))
                .expect("the server's user owns its files");
        }
    }

    /// A program of the newest PostgreSQL installed (Debian's layout).
    fn tool(&self, name: &str) -> Command {
        let mut versions: Vec<(u32, PathBuf)> = fs::read_dir("/usr/lib/postgresql")
            .expect("PostgreSQL's programs are installed under /usr/lib/postgresql")
            .filter_map(|entry| {
                let entry = entry.ok()?;
                let version = entry.file_name().to_str()?.parse().ok()?;
                Some((version, entry.path().join("bin")))
            })
            .collect();
        versions.sort();
        let (_, bin) = versions
            .pop()
            .expect("a PostgreSQL version under /usr/lib/postgresql");
        let mut command = Command::new(bin.join(name));
        command.current_dir(self.dir.path());
        command
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        let _ = as_server_user(&mut self.tool("pg_ctl"))
            .args(["stop", "-m", "immediate", "-w", "-D"])
            .arg(&self.data)
            .output();
    }
}

/// The password in every URL of these tests.
pub const PASSWORD: &str = "s3cret-pw";

fn running_as_root() -> bool {
    fs::metadata("/proc/self").is_ok_and(|me| me.uid() == 0)
}

/// Runs `command` as the `postgres` user when this process is root (the
/// server refuses to run as root), else as it is.
fn as_server_user(command: &mut Command) -> &mut Command {
    if running_as_root() {
        let program = command.get_program().to_owned();
        let mut wrapped = Command::new("runuser");
        wrapped
            .args(["-u", "postgres", "--"])
            .arg(program)
            .current_dir("/");
        *command = wrapped;
    }
    command
}

#[track_caller]
fn succeed(command: &mut Command) -> Output {
    let output = command.output().expect("the program can be run");
    assert!(
        output.status.success(),
        "{command:?} failed: {}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    output
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .expect("a free port")
        .port()
}
