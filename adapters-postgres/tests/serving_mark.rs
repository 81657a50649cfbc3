//! The mark of a served database (docs/operations.md, "Moving between
//! stores"): servers share it, a tool that must be alone with the database
//! cannot claim it while one holds it, and a server whose session was lost
//! (the database restarted) takes it again once the database is back.

use adapters_postgres::{MarkError, PgStore};
use std::time::Duration;
use tcp_proxy::TcpProxy;
use tokio::time::Instant;

/// How soon a server takes its mark again after the database came back
/// (it checks its session every 5 s).
const RETAKEN_WITHIN: Duration = Duration::from_secs(20);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    not(postgres_tests),
    ignore = "PostgreSQL tests skipped: set DEVMGR_TEST_POSTGRES_URL=postgres://USER@HOST:PORT/DB (a server where USER may create databases) and build again"
)]
async fn servers_share_the_mark_tools_wait_their_turn_and_a_lost_mark_is_taken_again() {
    let database = tokio::task::spawn_blocking(scratch_postgres::TestDatabase::create)
        .await
        .unwrap();
    let direct = PgStore::connect(database.url()).await.unwrap();
    direct.migrate().await.unwrap();
    let proxy = TcpProxy::start(database.server_address()).await.unwrap();
    let through = PgStore::connect(&database.url_via(proxy.address()))
        .await
        .unwrap();

    let one = through.hold_serving_mark().await.unwrap();
    let two = direct.hold_serving_mark().await.unwrap();
    assert!(matches!(
        direct.claim_exclusive().await,
        Err(MarkError::Busy)
    ));
    drop(two);
    assert!(matches!(
        direct.claim_exclusive().await,
        Err(MarkError::Busy)
    ));

    // The database "restarts" for the server behind the proxy: its session
    // ends, and with it the mark, until it takes it again.
    proxy.cut();
    let claimed = loop {
        match direct.claim_exclusive().await {
            Ok(claim) => break claim,
            Err(MarkError::Busy) => tokio::time::sleep(Duration::from_millis(100)).await,
            Err(other) => panic!("{other}"),
        }
    };
    // A tool holds it: a starting server is refused.
    assert!(matches!(
        direct.hold_serving_mark().await,
        Err(MarkError::Busy)
    ));
    drop(claimed);
    proxy.restore();
    let deadline = Instant::now() + RETAKEN_WITHIN;
    loop {
        match direct.claim_exclusive().await {
            Err(MarkError::Busy) => break,
            Ok(claim) => drop(claim),
            Err(other) => panic!("{other}"),
        }
        assert!(
            Instant::now() < deadline,
            "the server took its mark again once the database was back"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    drop(one);
    // Its end releases the mark.
    let deadline = Instant::now() + Duration::from_secs(5);
    while direct.claim_exclusive().await.is_err() {
        assert!(Instant::now() < deadline, "a dropped mark is released");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}
