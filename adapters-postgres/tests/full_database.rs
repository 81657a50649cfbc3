//! A database that serves as many clients as it takes refuses new
//! connections (SQLSTATE 53300): that is load, not an outage, so a store
//! whose pool cannot grow waits for its own connections to come back instead
//! of failing. The limit here is a role's `CONNECTION LIMIT`, which
//! PostgreSQL enforces with the same error as `max_connections`. Without
//! `DEVMGR_TEST_POSTGRES_URL` at build time the test is reported as ignored
//! (see `build.rs`).

use adapters_postgres::PgStore;
use application::ports::EmailKeyRepository;
use domain::secret::SecretHash;
use std::time::Duration;
use tokio::time::{Instant, timeout};
use tokio_postgres::NoTls;

/// Connections the role may hold: the store's first pooled connection, its
/// listening session, and one more.
const ROLE_LIMIT: usize = 3;
/// Writes at once: more than the pool can open under the limit.
const WRITES: usize = 8;
/// How long the writes are held up behind a lock, so that they all want a
/// connection at the same time (under a unit's usual time limit).
const HELD: Duration = Duration::from_millis(800);
/// Longer than any wait of this test.
const LONG: Duration = Duration::from_secs(30);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    not(postgres_tests),
    ignore = "PostgreSQL tests skipped: set DEVMGR_TEST_POSTGRES_URL=postgres://USER@HOST:PORT/DB (a server where USER may create databases) and build again"
)]
async fn writes_beyond_the_connections_the_database_takes_wait_for_a_pooled_one() {
    let database = tokio::task::spawn_blocking(scratch_postgres::TestDatabase::create)
        .await
        .expect("creating a PostgreSQL database panicked");
    let admin = PgStore::connect(database.url()).await.unwrap();
    admin.migrate().await.unwrap();
    let role = format!("{}_limited", database.name());
    database.execute(&format!(
        "CREATE ROLE {role} LOGIN PASSWORD 'limited' CONNECTION LIMIT {ROLE_LIMIT}; \
         GRANT ALL ON ALL TABLES IN SCHEMA public TO {role}; \
         GRANT ALL ON ALL SEQUENCES IN SCHEMA public TO {role}"
    ));
    let limited_url = format!(
        "postgres://{role}:limited@{}/{}",
        database.server_address(),
        database.name()
    );
    let store = PgStore::connect(&limited_url).await.unwrap();

    let (locker, connection) = tokio_postgres::connect(database.url(), NoTls)
        .await
        .unwrap();
    tokio::spawn(connection);
    locker
        .batch_execute("BEGIN; LOCK TABLE email_keys IN ACCESS EXCLUSIVE MODE")
        .await
        .unwrap();
    let writes: Vec<_> = (0..WRITES)
        .map(|_| {
            let store = store.clone();
            tokio::spawn(async move {
                store
                    .verify_email(&SecretHash::of("no such key"), chrono::Utc::now())
                    .await
            })
        })
        .collect();
    let started = Instant::now();
    tokio::time::sleep(HELD).await;
    let held: i64 = locker
        .query_one(
            "SELECT count(*) FROM pg_stat_activity WHERE usename = $1",
            &[&role],
        )
        .await
        .unwrap()
        .get(0);
    locker.batch_execute("COMMIT").await.unwrap();
    for write in writes {
        let outcome = timeout(LONG, write).await.unwrap().unwrap();
        let verified = outcome.unwrap_or_else(|error| {
            panic!(
                "a write failed after {:?} instead of waiting for a connection: {error:?}",
                started.elapsed()
            )
        });
        assert!(!verified, "no such key was verified");
    }
    assert_eq!(
        usize::try_from(held).unwrap(),
        ROLE_LIMIT,
        "the writes used every connection the role may hold"
    );

    drop(store);
    drop(admin);
    drop(database);
    let server = scratch_postgres::server_url().unwrap();
    let (client, connection) = tokio_postgres::connect(&server, NoTls).await.unwrap();
    tokio::spawn(connection);
    client
        .batch_execute(&format!("DROP ROLE IF EXISTS {role}"))
        .await
        .unwrap();
}
