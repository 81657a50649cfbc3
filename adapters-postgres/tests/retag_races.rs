//! Bulk tag changes racing on PostgreSQL, where they run side by side: each
//! selects with the result of every one before it in sight, so of racing
//! changes that each take away the tag they select by, one finds devices.

use adapters_postgres::PgStore;
use application::ports::{AccountRepository, DeviceRepository, Retagged};
use domain::{AuditAction, Criteria, Selector, TagChange};
use store_contract::{
    RACERS, create_devices, fleet_device, new_account, noted, online_after, origin, race, tag, tags,
};

/// A fresh, migrated store on a database of its own (dropped with it).
async fn postgres() -> (PgStore, scratch_postgres::TestDatabase) {
    let database = tokio::task::spawn_blocking(scratch_postgres::TestDatabase::create)
        .await
        .unwrap();
    let store = PgStore::connect(database.url()).await.unwrap();
    store.migrate().await.unwrap();
    (store, database)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    not(postgres_tests),
    ignore = "PostgreSQL tests skipped: set DEVMGR_TEST_POSTGRES_URL=postgres://USER@HOST:PORT/DB (a server where USER may create databases) and build again"
)]
async fn racing_retags_each_select_after_the_one_before() {
    let (store, _database) = postgres().await;
    let ann = AccountRepository::create(
        &store,
        new_account("ann@example.com", None),
        &noted(AuditAction::AccountCreate),
    )
    .await
    .unwrap();
    let fleet: Vec<_> = (0..30)
        .map(|n| fleet_device(ann.id, n, "kiosk", "", &["new"], None, 0))
        .collect();
    create_devices(&store, &fleet).await;

    // Each racer moves every "new" device to its own batch tag.
    let outcomes = race(RACERS, |i| {
        let store = store.clone();
        async move {
            let new = Selector::Matching(Criteria {
                tags: vec![tag("new")],
                ..Criteria::default()
            });
            let change = TagChange {
                remove: vec![tag("new")],
                add: vec![tag(&format!("batch-{i}"))],
            };
            store
                .retag(ann.id, &new, online_after(), &change, &origin())
                .await
                .unwrap()
        }
    })
    .await;

    let winners: Vec<usize> = (0..RACERS)
        .filter(|&i| outcomes[i] != Retagged::Matched(0))
        .collect();
    assert_eq!(
        winners.len(),
        1,
        "one racer finds the devices: {outcomes:?}"
    );
    let winner = winners[0];
    assert_eq!(outcomes[winner], Retagged::Matched(30));
    let batch = format!("batch-{winner}");
    for device in store.list_for(ann.id).await.unwrap() {
        assert_eq!(device.tags, tags(&[&batch]), "{}", device.serial);
    }
}
