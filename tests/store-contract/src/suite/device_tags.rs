//! Tags on devices: stored with a device, read back by every read,
//! replaced by an update that gives them, counted per account, and gone
//! with their device.

use crate::{
    Store, account, create_devices, enrolment, fleet_device, fleet_serial, matching, query, report,
    t0, tag, tags, text,
};
use application::ports::{DeviceChanges, Enrolment};
use domain::secret::SecretHash;
use domain::{Criteria, DeviceOrdering, Selector, TagCount};

fn counted(counts: &[(&str, u64)]) -> Vec<TagCount> {
    counts
        .iter()
        .map(|(name, devices)| TagCount {
            tag: tag(name),
            devices: *devices,
        })
        .collect()
}

/// Every read of a device, whatever the port, holds its tags, sorted.
pub async fn every_read_holds_the_devices_tags(store: impl Store) {
    let ann = account(&store, "ann").await;
    let tagged = fleet_device(ann.id, 1, "pi", "", &["zeta", "lab", "eu-west:2"], None, 0);
    let bare = fleet_device(ann.id, 2, "bare", "", &[], None, 0);
    create_devices(&store, &[tagged.clone(), bare.clone()]).await;
    let expected = tags(&["eu-west:2", "lab", "zeta"]);
    assert_eq!(
        tagged.tags.as_slice(),
        expected.as_slice(),
        "a set is sorted"
    );

    assert_eq!(
        store.list_for(ann.id).await.unwrap(),
        vec![tagged.clone(), bare.clone()]
    );
    assert_eq!(
        store.find_for(ann.id, &tagged.serial).await.unwrap(),
        Some(tagged.clone())
    );
    let page = store
        .query(
            ann.id,
            &query(Selector::All, DeviceOrdering::default(), None),
        )
        .await
        .unwrap();
    assert_eq!(page.devices, vec![tagged.clone(), bare.clone()]);
    let renamed = store
        .update(
            ann.id,
            &tagged.serial,
            &DeviceChanges {
                name: Some(text("renamed")),
                ..DeviceChanges::default()
            },
            &crate::origin(),
        )
        .await
        .unwrap()
        .unwrap();
    assert_eq!(renamed.tags, expected, "an update without tags keeps them");

    let enrolled = store
        .enroll(
            &Enrolment {
                online_after: t0(),
                ..enrolment(ann.id, &tagged.serial, "tok")
            },
            &crate::noted(domain::AuditAction::DeviceInstall),
        )
        .await
        .unwrap();
    assert_eq!(enrolled.tags, expected, "enrolling again keeps the tags");
    let by_token = store
        .find_by_token(&SecretHash::of("tok"))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(by_token, enrolled);

    store
        .record_heartbeat(&tagged.serial, &report(), t0())
        .await
        .unwrap();
    let seen = store
        .find_for(ann.id, &tagged.serial)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(seen.tags, expected, "a heartbeat keeps the tags");
    assert_eq!(seen.last_seen, Some(t0()));

    let new = store
        .enroll(
            &enrolment(ann.id, &fleet_serial(3), "tok-3"),
            &crate::noted(domain::AuditAction::DeviceInstall),
        )
        .await
        .unwrap();
    assert!(new.tags.is_empty(), "a new device has no tags");
}

/// An update with tags replaces the set (an empty one clears it); one
/// without keeps it; another account cannot change them.
pub async fn an_update_replaces_the_tags_only_when_it_gives_them(store: impl Store) {
    let ann = account(&store, "ann").await;
    let bob = account(&store, "bob").await;
    let pi = fleet_device(ann.id, 1, "pi", "", &["lab", "eu"], None, 0);
    let other = fleet_device(ann.id, 2, "other", "", &["lab"], None, 0);
    create_devices(&store, &[pi.clone(), other.clone()]).await;

    let retagged = |names: &[&str]| DeviceChanges {
        tags: Some(tags(names)),
        ..DeviceChanges::default()
    };
    let updated = store
        .update(
            ann.id,
            &pi.serial,
            &retagged(&["prod", "lab"]),
            &crate::origin(),
        )
        .await
        .unwrap()
        .unwrap();
    assert_eq!(updated.tags, tags(&["lab", "prod"]));
    assert_eq!((updated.name.as_str(), updated.last_seen), ("pi", None));

    let kept = store
        .update(
            ann.id,
            &pi.serial,
            &DeviceChanges::default(),
            &crate::origin(),
        )
        .await
        .unwrap()
        .unwrap();
    assert_eq!(kept.tags, tags(&["lab", "prod"]));

    let twenty: Vec<String> = (0..20).map(|n| format!("t{n:02}")).collect();
    let twenty: Vec<&str> = twenty.iter().map(String::as_str).collect();
    let full = store
        .update(ann.id, &pi.serial, &retagged(&twenty), &crate::origin())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(full.tags, tags(&twenty));

    let foreign = store
        .update(bob.id, &pi.serial, &retagged(&["bob"]), &crate::origin())
        .await
        .unwrap();
    assert_eq!(foreign, None);

    let cleared = store
        .update(ann.id, &pi.serial, &retagged(&[]), &crate::origin())
        .await
        .unwrap()
        .unwrap();
    assert!(cleared.tags.is_empty());
    assert_eq!(
        store.find_for(ann.id, &pi.serial).await.unwrap(),
        Some(cleared)
    );
    assert_eq!(
        store.find_for(ann.id, &other.serial).await.unwrap(),
        Some(other),
        "the other device keeps its tags"
    );
    assert_eq!(
        store.tag_counts(ann.id).await.unwrap(),
        counted(&[("lab", 1)])
    );
}

/// Tags are counted by name, over the account's devices only.
pub async fn tags_are_counted_by_name_over_the_accounts_devices(store: impl Store) {
    let ann = account(&store, "ann").await;
    let bob = account(&store, "bob").await;
    assert_eq!(store.tag_counts(ann.id).await.unwrap(), vec![]);
    create_devices(
        &store,
        &[
            fleet_device(ann.id, 1, "a", "", &["lab", "eu"], None, 0),
            fleet_device(ann.id, 2, "b", "", &["lab", "9lives"], None, 0),
            fleet_device(ann.id, 3, "c", "", &[], None, 0),
            fleet_device(ann.id, 4, "d", "", &["lab"], None, 0),
            fleet_device(bob.id, 5, "e", "", &["lab", "bob-only", "eu"], None, 0),
        ],
    )
    .await;
    assert_eq!(
        store.tag_counts(ann.id).await.unwrap(),
        counted(&[("9lives", 1), ("eu", 1), ("lab", 3)])
    );
    assert_eq!(
        store.tag_counts(bob.id).await.unwrap(),
        counted(&[("bob-only", 1), ("eu", 1), ("lab", 1)])
    );
}

/// A deleted device takes its tags along: they are counted no more, and a
/// device made again with its serial starts with its own.
pub async fn a_deleted_device_takes_its_tags_along(store: impl Store) {
    let ann = account(&store, "ann").await;
    let pi = fleet_device(ann.id, 1, "pi", "", &["lab", "eu"], None, 0);
    let other = fleet_device(ann.id, 2, "other", "", &["lab"], None, 0);
    create_devices(&store, &[pi.clone(), other]).await;
    assert!(
        store
            .delete(
                ann.id,
                &pi.serial,
                &crate::noted(domain::AuditAction::DeviceDelete)
            )
            .await
            .unwrap()
    );
    assert_eq!(
        store.tag_counts(ann.id).await.unwrap(),
        counted(&[("lab", 1)])
    );
    let lab = matching(Criteria {
        tags: vec![tag("lab")],
        ..Criteria::default()
    });
    let page = store
        .query(ann.id, &query(lab, DeviceOrdering::default(), None))
        .await
        .unwrap();
    assert_eq!((page.count, page.devices.len()), (1, 1));

    let again = fleet_device(ann.id, 1, "again", "", &["prod"], None, 0);
    create_devices(&store, std::slice::from_ref(&again)).await;
    assert_eq!(
        store.find_for(ann.id, &again.serial).await.unwrap(),
        Some(again)
    );
    assert_eq!(
        store.tag_counts(ann.id).await.unwrap(),
        counted(&[("lab", 1), ("prod", 1)])
    );
}
