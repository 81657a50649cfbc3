//! Scratch PostgreSQL databases for devmgr's tests.
//!
//! `DEVMGR_TEST_POSTGRES_URL` names a database on the server to use
//! (`postgres://user@127.0.0.1:5432/dbname`); each [`TestDatabase`] is a fresh
//! database beside it, dropped when the value goes.
//!
//! Test crates decide at build time whether their PostgreSQL tests run: their
//! `build.rs` sets the `postgres_tests` cfg when the variable is set (and
//! reruns when it changes), and each PostgreSQL test carries
//! `#[cfg_attr(not(postgres_tests), ignore = "…")]`, so that without a server
//! the tests are reported as ignored, never as passed.

use rand::Rng;
use url::Url;

/// The environment variable naming the PostgreSQL server of the tests.
pub const URL_VARIABLE: &str = "DEVMGR_TEST_POSTGRES_URL";

/// The server URL from [`URL_VARIABLE`], if set and not empty.
pub fn server_url() -> Option<String> {
    std::env::var(URL_VARIABLE)
        .ok()
        .filter(|url| !url.is_empty())
}

/// A fresh, empty database, dropped (with whatever is connected to it) when
/// this value is dropped.
#[derive(Debug)]
pub struct TestDatabase {
    name: String,
    url: String,
    admin_url: String,
}

impl TestDatabase {
    /// Creates a database with a random name on the server of
    /// [`URL_VARIABLE`]. Panics, saying why, when the variable is not set or
    /// the server refuses: a test that asked for PostgreSQL must not pass
    /// without it.
    pub fn create() -> Self {
        let admin_url = server_url().unwrap_or_else(|| {
            panic!("{URL_VARIABLE} is not set: PostgreSQL tests need a server to run against")
        });
        let name = scratch_name(&admin_url);
        let url = with_database(&admin_url, &name);
        admin(&admin_url, format!("CREATE DATABASE {name}"));
        TestDatabase {
            name,
            url,
            admin_url,
        }
    }

    /// The URL of the new database, in the form `devmgr --database-url` takes.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// The server's TCP address (port 5432 when the URL names none).
    /// Panics when the URL names a Unix socket: a proxy needs an address.
    pub fn server_address(&self) -> std::net::SocketAddr {
        let url = Url::parse(&self.url).expect("the database URL parses");
        let host = url.host_str().expect("the database URL names a host");
        let port = url.port().unwrap_or(5432);
        std::net::ToSocketAddrs::to_socket_addrs(&(host, port))
            .ok()
            .and_then(|mut addresses| addresses.next())
            .unwrap_or_else(|| panic!("{host}:{port} is not a TCP address"))
    }

    /// The database's URL with `address` in place of the server's: the
    /// same database reached through a proxy listening there.
    pub fn url_via(&self, address: std::net::SocketAddr) -> String {
        let mut url = Url::parse(&self.url).expect("the database URL parses");
        url.set_ip_host(address.ip())
            .expect("a postgres:// URL takes an IP address");
        url.set_port(Some(address.port()))
            .expect("a postgres:// URL takes a port");
        url.to_string()
    }

    /// The database's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Runs SQL statements in the database, on a connection of their own;
    /// panics, saying why, when PostgreSQL refuses them.
    pub fn execute(&self, statements: &str) {
        admin(&self.url, statements.to_owned());
    }
}

impl Drop for TestDatabase {
    fn drop(&mut self) {
        let statement = format!("DROP DATABASE IF EXISTS {} WITH (FORCE)", self.name);
        if let Err(error) = run_admin(&self.admin_url, statement) {
            eprintln!("could not drop the test database {}: {error}", self.name);
        }
    }
}

/// A new database name: the server URL's database name (so a CI run can
/// find what its tests left behind), `_t` and 16 random hex digits, within
/// PostgreSQL's 63 characters.
fn scratch_name(url: &str) -> String {
    let base: String = Url::parse(url)
        .ok()
        .map(|url| url.path().trim_start_matches('/').to_owned())
        .filter(|name| {
            !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        })
        .unwrap_or_else(|| "devmgr_test".to_owned())
        .chars()
        .take(40)
        .collect();
    format!(
        "{}_t{:016x}",
        base.to_ascii_lowercase(),
        rand::thread_rng().r#gen::<u64>()
    )
}

/// `url` with its database name replaced by `name`.
fn with_database(url: &str, name: &str) -> String {
    let mut parsed = Url::parse(url).unwrap_or_else(|e| {
        panic!("{URL_VARIABLE} must be a postgres:// URL ({e})");
    });
    parsed.set_path(&format!("/{name}"));
    parsed.into()
}

fn admin(url: &str, statement: String) {
    if let Err(error) = run_admin(url, statement.clone()) {
        panic!("PostgreSQL at {URL_VARIABLE} refused `{statement}`: {error}");
    }
}

/// Runs one statement on its own connection, on a thread of its own: the
/// blocking client must not run inside an async test's runtime.
fn run_admin(url: &str, statement: String) -> Result<(), String> {
    let url = url.to_owned();
    std::thread::spawn(move || {
        let mut client =
            postgres::Client::connect(&url, postgres::NoTls).map_err(|e| e.to_string())?;
        client.batch_execute(&statement).map_err(|e| e.to_string())
    })
    .join()
    .map_err(|_| "the admin connection panicked".to_owned())?
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scratch_databases_are_named_after_the_servers_database() {
        let name = scratch_name("postgres://root@127.0.0.1:5432/devmgr_ci_17_42");
        assert!(name.starts_with("devmgr_ci_17_42_t"), "{name}");
        assert_eq!(name.len(), "devmgr_ci_17_42_t".len() + 16);
        assert!(scratch_name("postgres://root@host/").starts_with("devmgr_test_t"));
        assert!(scratch_name("postgres://root@host/we%20ird").starts_with("devmgr_test_t"));
    }

    #[test]
    fn the_database_name_is_replaced_and_everything_else_kept() {
        assert_eq!(
            with_database(
                "postgres://root@127.0.0.1:5432/test?connect_timeout=5",
                "scratch"
            ),
            "postgres://root@127.0.0.1:5432/scratch?connect_timeout=5"
        );
        assert_eq!(
            with_database("postgresql://u:p%40ss@db/x", "scratch"),
            "postgresql://u:p%40ss@db/scratch"
        );
    }
}
