//! The transfer port (`devmgr copy-store`, docs/operations.md, "Moving
//! between stores"): every row of one store into an empty other one, where
//! the ports then show the same accounts, tokens, devices, commands, keys
//! and mail, and new rows get ids of their own. Each adapter runs these
//! from its tests with two fresh stores (the port is the same whatever the
//! pair; the end-to-end tests copy from one kind of store to the other).

use crate::{Store, account, ack, done, enrol, new_account, queue, serial, t0, tags, take};
use application::ports::{
    AccountRepository, DeviceRepository, StoreTransfer, Table, TransferError,
};
use application::use_cases::copy_store;
use domain::secret::SecretHash;
use domain::{EmailAddress, Serial};

/// Devices of bob's big fleet: more than one batch of an export.
const FLEET: usize = 2050;

fn count(counts: &[(Table, u64)], table: Table) -> u64 {
    counts
        .iter()
        .find(|(t, _)| *t == table)
        .map_or(0, |(_, n)| *n)
}

/// Fills `source`: ann (with an API token, a verification key and its mail
/// in the outbox) and her enrolled device with a command done and one
/// pending; bob (an API token) and his fleet of [`FLEET`] devices, each
/// with two tags.
async fn fill(source: &impl Store) {
    let ann = AccountRepository::create(source, new_account("ann@example.com", Some("ann-token")))
        .await
        .unwrap();
    let bob = account(source, "bob").await;
    source
        .issue(bob.id, &SecretHash::of("bob-token"), t0())
        .await
        .unwrap();
    let pi = serial(1);
    enrol(source, ann.id, &pi, "pi-tok").await;
    assert!(queue(source, &pi, "c1", t0()).await);
    take(source, &pi, t0()).await;
    assert!(
        ack(
            source,
            &pi,
            "c1",
            done("rebooted"),
            t0() + crate::minutes(1)
        )
        .await
    );
    assert!(queue(source, &pi, "c2", t0() + crate::minutes(2)).await);
    for n in 0..FLEET {
        let mut device = crate::device(bob.id, 2, t0());
        let bytes = u16::try_from(n).unwrap().to_be_bytes();
        device.serial = Serial::from_random_bytes([
            0xb0, bytes[0], bytes[1], 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
        ]);
        device.wormhole_slug = format!("fleet-{n}");
        device.tags = tags(&["fleet", &format!("rack-{}", n % 3)]);
        DeviceRepository::create(source, &device).await.unwrap();
    }
}

/// A copy shows through every port what the source showed, and the target
/// goes on from there: new accounts and commands get ids of their own.
pub async fn a_copy_keeps_every_row_and_new_rows_follow<S: Store + StoreTransfer>(
    source: &S,
    target: &S,
) {
    fill(source).await;
    let counts = copy_store(source, target).await.unwrap();
    let expected = [
        (Table::Accounts, 2),
        (Table::ApiTokens, 2),
        (Table::EmailKeys, 1),
        (Table::Devices, FLEET as u64 + 1),
        (Table::DeviceTags, 2 * FLEET as u64),
        (Table::DeviceCommands, 2),
        (Table::Outbox, 1),
    ];
    for (table, n) in expected {
        assert_eq!(count(&counts, table), n, "{table:?} copied");
    }

    let ann_email = EmailAddress::parse("ann@example.com").unwrap();
    let ann = source.find_by_email(&ann_email).await.unwrap().unwrap();
    assert_eq!(
        target.find_by_email(&ann_email).await.unwrap(),
        Some(ann.clone())
    );
    for (token, owner) in [
        ("ann-token", "ann@example.com"),
        ("bob-token", "bob@example.com"),
    ] {
        let found = target.account_for(&SecretHash::of(token)).await.unwrap();
        assert_eq!(
            found.map(|a| a.email.to_string()),
            Some(owner.to_owned()),
            "{token}"
        );
    }
    let pi = serial(1);
    let device = target
        .find_by_token(&SecretHash::of("pi-tok"))
        .await
        .unwrap();
    assert_eq!(device.map(|d| d.serial), Some(pi.clone()));
    assert_eq!(
        target.history(&pi, 10).await.unwrap(),
        source.history(&pi, 10).await.unwrap()
    );
    let bob = target
        .find_by_email(&EmailAddress::parse("bob@example.com").unwrap())
        .await
        .unwrap()
        .unwrap();
    let fleet = target.list_for(bob.id).await.unwrap();
    assert_eq!(fleet.len(), FLEET);
    assert_eq!(fleet, source.list_for(bob.id).await.unwrap());
    let tag_counts = target.tag_counts(bob.id).await.unwrap();
    assert_eq!(tag_counts.len(), 4, "fleet and three racks");
    assert_eq!(tag_counts, source.tag_counts(bob.id).await.unwrap());
    assert_eq!(
        target.next_due().await.unwrap(),
        source.next_due().await.unwrap()
    );
    assert!(
        target
            .verify_email(&SecretHash::of("key-ann@example.com"), t0())
            .await
            .unwrap(),
        "ann's verification key works on the target"
    );

    let carol = account(target, "carol").await;
    assert!(
        carol.id.0 > ann.id.0.max(bob.id.0),
        "a new account follows the copied ids"
    );
    assert!(ack(target, &pi, "c2", done(""), t0() + crate::minutes(3)).await);
    assert!(queue(target, &pi, "c3", t0() + crate::minutes(3)).await);
    let history = target.history(&pi, 10).await.unwrap();
    let newest_first: Vec<String> = history
        .iter()
        .map(|c| crate::label(&c.command.id))
        .collect();
    assert_eq!(newest_first, ["c3", "c2", "c1"]);
}

/// A target with rows is refused before anything is written, and an import
/// abandoned halfway leaves the target as empty as it was.
pub async fn a_target_with_rows_is_refused_and_an_abandoned_import_leaves_nothing<
    S: Store + StoreTransfer,
>(
    source: &S,
    target: &S,
) {
    fill(source).await;
    let mut rows = source.export().await.unwrap();
    let accounts = rows.next_batch().await.unwrap().unwrap();
    assert_eq!(accounts.table, Table::Accounts);
    let mut sink = target.import().await.ok().unwrap();
    sink.write(accounts).await.unwrap();
    drop(sink);
    drop(rows);
    let ann_email = EmailAddress::parse("ann@example.com").unwrap();
    assert_eq!(target.find_by_email(&ann_email).await.unwrap(), None);

    let dana = account(target, "dana").await;
    match copy_store(source, target).await {
        Err(TransferError::NotEmpty(counts)) => {
            assert_eq!(count(&counts, Table::Accounts), 1);
            assert_eq!(count(&counts, Table::Devices), 0);
        }
        other => panic!("a target with rows is refused, not {other:?}"),
    }
    assert_eq!(target.find_by_email(&ann_email).await.unwrap(), None);
    assert_eq!(
        target
            .find_by_email(&dana.email)
            .await
            .unwrap()
            .map(|a| a.id),
        Some(dana.id)
    );
}
