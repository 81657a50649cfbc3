//! An account's audit log as `GET /audit/` reads it (docs/audit.md): its
//! own entries only, newest first, a window at a time with the count of all
//! that match, filtered by action and target; a deleted device's entries
//! stay.

use crate::{Store, account, created_device, note_on, noted, origin};
use application::ports::{AuditFilter, DeviceChanges, DeviceRepository, Window};
use domain::{AccountId, AuditAction, AuditTarget, Device};

/// The ids of a page of `owner`'s log.
async fn page_ids(
    store: &impl Store,
    owner: AccountId,
    filter: &AuditFilter,
    limit: u32,
    offset: u64,
) -> (u64, Vec<u64>) {
    let page = store
        .audit_page(owner, filter, Window { limit, offset })
        .await
        .unwrap();
    (page.count, page.entries.iter().map(|e| e.id).collect())
}

fn filter(action: Option<&str>, target: Option<&str>) -> AuditFilter {
    AuditFilter {
        action: action.map(str::to_owned),
        target: target.map(str::to_owned),
    }
}

/// Creates the device, renames it, and deletes it, by `owner`.
async fn device_lifecycle(store: &impl Store, owner: AccountId, byte: u8) -> Device {
    let pi = created_device(owner, byte);
    let target = AuditTarget::device(&pi.serial);
    let create = note_on(AuditAction::DeviceCreate, target.clone());
    DeviceRepository::create(store, &pi, &create).await.unwrap();
    let rename = DeviceChanges {
        name: Some(crate::text(&format!("renamed-{byte}"))),
        ..DeviceChanges::default()
    };
    let renamed = store.update(owner, &pi.serial, &rename, &origin()).await;
    assert!(renamed.unwrap().is_some());
    let delete = note_on(AuditAction::DeviceDelete, target);
    assert!(store.delete(owner, &pi.serial, &delete).await.unwrap());
    pi
}

/// Ann's log shows her entries, newest first, paged, with the count of
/// all, those of her deleted devices too; never Bob's.
pub async fn a_page_holds_the_owners_entries_newest_first(store: impl Store) {
    let ann = account(&store, "ann").await; // 1
    let bob = account(&store, "bob").await; // 2
    device_lifecycle(&store, ann.id, 1).await; // 3, 4, 5
    device_lifecycle(&store, bob.id, 2).await; // 6, 7, 8
    store
        .record(ann.id, &noted(AuditAction::AuthLoginFailed))
        .await
        .unwrap(); // 9
    let everything = AuditFilter::default();
    assert_eq!(
        page_ids(&store, ann.id, &everything, 100, 0).await,
        (5, vec![9, 5, 4, 3, 1])
    );
    assert_eq!(
        page_ids(&store, ann.id, &everything, 2, 0).await,
        (5, vec![9, 5])
    );
    assert_eq!(
        page_ids(&store, ann.id, &everything, 2, 3).await,
        (5, vec![3, 1])
    );
    assert_eq!(
        page_ids(&store, ann.id, &everything, 2, 5).await,
        (5, vec![])
    );
    assert_eq!(
        page_ids(&store, bob.id, &everything, 100, 0).await,
        (4, vec![8, 7, 6, 2])
    );
    let nobody = AccountId(bob.id.0 + 1000);
    assert_eq!(
        page_ids(&store, nobody, &everything, 100, 0).await,
        (0, vec![])
    );
    let page = store.audit_page(ann.id, &everything, crate::all()).await;
    let newest = page.unwrap().entries.remove(0);
    assert_eq!(newest.action, "auth.login_failed");
    assert_eq!(newest.ip.as_deref(), Some("192.0.2.7"));
}

/// `action` and `target` keep the entries equal to them, each alone or
/// both; a value no entry has gives an empty page; another account's
/// target gives nothing either.
pub async fn filters_keep_the_entries_equal_to_their_values(store: impl Store) {
    let ann = account(&store, "ann").await; // 1
    let bob = account(&store, "bob").await; // 2
    let one = device_lifecycle(&store, ann.id, 1).await; // 3, 4, 5
    let two = device_lifecycle(&store, ann.id, 2).await; // 6, 7, 8
    let theirs = device_lifecycle(&store, bob.id, 3).await; // 9, 10, 11
    let target = |device: &Device| AuditTarget::device(&device.serial).as_str().to_owned();
    let (one, two, theirs) = (target(&one), target(&two), target(&theirs));

    let by_action = filter(Some("device.update"), None);
    assert_eq!(
        page_ids(&store, ann.id, &by_action, 100, 0).await,
        (2, vec![7, 4])
    );
    let by_target = filter(None, Some(&two));
    assert_eq!(
        page_ids(&store, ann.id, &by_target, 100, 0).await,
        (3, vec![8, 7, 6])
    );
    assert_eq!(
        page_ids(&store, ann.id, &by_target, 1, 1).await,
        (3, vec![7])
    );
    let both = filter(Some("device.delete"), Some(&one));
    assert_eq!(page_ids(&store, ann.id, &both, 100, 0).await, (1, vec![5]));
    let unknown = filter(Some("device.reboot"), None);
    assert_eq!(
        page_ids(&store, ann.id, &unknown, 100, 0).await,
        (0, vec![])
    );
    let prefix = filter(None, Some("device:"));
    assert_eq!(page_ids(&store, ann.id, &prefix, 100, 0).await, (0, vec![]));
    let foreign = filter(None, Some(&theirs));
    assert_eq!(
        page_ids(&store, ann.id, &foreign, 100, 0).await,
        (0, vec![])
    );
    assert_eq!(
        page_ids(&store, bob.id, &foreign, 100, 0).await,
        (3, vec![11, 10, 9])
    );
    let created = filter(Some("account.create"), None);
    assert_eq!(
        page_ids(&store, bob.id, &created, 100, 0).await,
        (1, vec![2])
    );
}
