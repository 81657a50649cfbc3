//! The fleet version: a store that keeps one moves an account's version on
//! every committed change of the account's devices or their tags, and on
//! nothing else; a store that keeps none says so every time.

use crate::{
    Store, account, create_devices, enrolment, fleet_device, online_after, query, report, t0, tag,
    tags, text,
};
use application::ports::{DeviceChanges, Enrolment, FleetVersion};
use domain::{AccountId, AuditAction, DeviceOrdering, Selector, TagChange};

async fn version(store: &impl Store, owner: AccountId) -> Option<FleetVersion> {
    store.fleet_version(owner).await.unwrap()
}

/// The versions of two accounts, and every version the first has had.
struct Versions {
    ann: AccountId,
    bob: AccountId,
    seen: Vec<FleetVersion>,
    bob_at: FleetVersion,
}

impl Versions {
    /// After a change of ann's fleet: her version is new, bob's unchanged.
    async fn moved(&mut self, store: &impl Store, what: &str) {
        let now = version(store, self.ann).await.expect("a version");
        assert!(!self.seen.contains(&now), "{what}: {now:?} was seen before");
        self.seen.push(now);
        assert_eq!(
            version(store, self.bob).await,
            Some(self.bob_at),
            "{what}: bob's"
        );
    }

    /// After something that changes neither fleet.
    async fn held(&self, store: &impl Store, what: &str) {
        assert_eq!(
            version(store, self.ann).await.as_ref(),
            self.seen.last(),
            "{what}"
        );
        assert_eq!(
            version(store, self.bob).await,
            Some(self.bob_at),
            "{what}: bob's"
        );
    }
}

/// Creating, editing, tagging, enrolling, heartbeats and deleting each move
/// the owner's version; reads and another account's changes do not.
pub async fn every_change_of_an_accounts_devices_moves_its_version(store: impl Store) {
    let (ann, bob) = (account(&store, "ann").await, account(&store, "bob").await);
    let pi = fleet_device(ann.id, 1, "pi", "", &["lab"], None, 0);
    let (Some(first), Some(bob_at)) =
        (version(&store, ann.id).await, version(&store, bob.id).await)
    else {
        create_devices(&store, std::slice::from_ref(&pi)).await;
        assert_eq!(
            version(&store, ann.id).await,
            None,
            "a store keeps versions or none"
        );
        return;
    };
    let mut versions = Versions {
        ann: ann.id,
        bob: bob.id,
        seen: vec![first],
        bob_at,
    };
    create_devices(&store, std::slice::from_ref(&pi)).await;
    versions.moved(&store, "a device created").await;

    let changes = |name: &str, tag_names: Option<&[&str]>| DeviceChanges {
        name: Some(text(name)),
        tags: tag_names.map(tags),
        ..DeviceChanges::default()
    };
    for (what, change) in [
        ("renamed", changes("renamed", None)),
        (
            "its tags replaced",
            changes("renamed", Some(&["eu", "lab"])),
        ),
    ] {
        store
            .update(ann.id, &pi.serial, &change, &crate::origin())
            .await
            .unwrap()
            .expect("ann's device");
        versions.moved(&store, what).await;
    }
    let change = TagChange {
        remove: vec![tag("eu")],
        add: vec![tag("new")],
    };
    store
        .retag(
            ann.id,
            &Selector::All,
            online_after(),
            &change,
            &crate::origin(),
        )
        .await
        .unwrap();
    versions.moved(&store, "retagged").await;
    store
        .record_heartbeat(&pi.serial, &report(), t0())
        .await
        .unwrap();
    versions.moved(&store, "a heartbeat").await;
    store
        .enroll(
            &Enrolment {
                online_after: t0(),
                ..enrolment(ann.id, &pi.serial, "tok")
            },
            &crate::noted(AuditAction::DeviceInstall),
        )
        .await
        .unwrap();
    versions.moved(&store, "enrolled").await;

    let all = query(Selector::All, DeviceOrdering::default(), None);
    assert_eq!(store.query(ann.id, &all).await.unwrap().count, 1);
    store.find_for(ann.id, &pi.serial).await.unwrap();
    versions.held(&store, "reads").await;

    create_devices(
        &store,
        &[fleet_device(bob.id, 2, "bob's", "", &["x"], None, 0)],
    )
    .await;
    let bob_now = version(&store, bob.id).await.expect("bob's version");
    assert_ne!(bob_now, versions.bob_at, "bob's device created");
    versions.bob_at = bob_now;
    versions
        .held(&store, "another account's device created")
        .await;

    let deleted = store
        .delete(ann.id, &pi.serial, &crate::noted(AuditAction::DeviceDelete))
        .await
        .unwrap();
    assert!(deleted);
    versions.moved(&store, "deleted").await;
}
