//! Bulk changes of tags: the selected devices of the account lose the
//! tags removed, then gain the tags added, all or nothing, also when
//! changes race.

use crate::{
    Store, account, create_devices, fleet_device, fleet_serial, matching, online_after, race,
    search, tag, tags,
};
use application::ports::Retagged;
use domain::{AccountId, Criteria, Device, Selector, Tag, TagChange};

fn names(list: &[&str]) -> Vec<Tag> {
    list.iter().map(|name| tag(name)).collect()
}

fn change(remove: &[&str], add: &[&str]) -> TagChange {
    TagChange {
        remove: names(remove),
        add: names(add),
    }
}

/// `count` tags `{prefix}00`, `{prefix}01`, …
fn numbered_tags(prefix: &str, count: usize) -> Vec<String> {
    (0..count).map(|n| format!("{prefix}{n:02}")).collect()
}

fn as_strs(list: &[String]) -> Vec<&str> {
    list.iter().map(String::as_str).collect()
}

/// The tag names of each of the owner's devices, in list order.
async fn tag_names(store: &impl Store, owner: AccountId) -> Vec<Vec<String>> {
    store
        .list_for(owner)
        .await
        .unwrap()
        .iter()
        .map(|d| {
            d.tags
                .as_slice()
                .iter()
                .map(|t| t.as_str().to_owned())
                .collect()
        })
        .collect()
}

/// The selected devices lose the removed tags, then gain the added ones
/// (a tag both removed and added stays); the others keep theirs.
pub async fn a_retag_removes_then_adds_on_the_selected_devices_only(store: impl Store) {
    let ann = account(&store, "ann").await;
    create_devices(
        &store,
        &[
            fleet_device(ann.id, 1, "one", "", &["lab", "old", "keep"], None, 0),
            fleet_device(ann.id, 2, "two", "", &["lab"], None, 0),
            fleet_device(ann.id, 3, "three", "", &["old"], None, 0),
        ],
    )
    .await;
    let lab = matching(Criteria {
        tags: names(&["lab"]),
        ..Criteria::default()
    });
    let outcome = store
        .retag(
            ann.id,
            &lab,
            online_after(),
            &change(&["old", "lab", "absent"], &["lab", "new"]),
            &crate::origin(),
        )
        .await
        .unwrap();
    assert_eq!(outcome, Retagged::Matched(2));
    assert_eq!(
        tag_names(&store, ann.id).await,
        [vec!["keep", "lab", "new"], vec!["lab", "new"], vec!["old"]]
    );

    // Selected by a tag the change removes: every selected device changes.
    let by_new = matching(Criteria {
        any_tags: names(&["new"]),
        ..Criteria::default()
    });
    let outcome = store
        .retag(
            ann.id,
            &by_new,
            online_after(),
            &change(&["new", "lab"], &["renewed"]),
            &crate::origin(),
        )
        .await
        .unwrap();
    assert_eq!(outcome, Retagged::Matched(2));
    assert_eq!(
        tag_names(&store, ann.id).await,
        [vec!["keep", "renewed"], vec!["renewed"], vec!["old"]]
    );

    let nobody = matching(Criteria {
        search: search("nobody"),
        ..Criteria::default()
    });
    let outcome = store
        .retag(
            ann.id,
            &nobody,
            online_after(),
            &change(&[], &["x"]),
            &crate::origin(),
        )
        .await
        .unwrap();
    assert_eq!(outcome, Retagged::Matched(0));
    let outcome = store
        .retag(
            ann.id,
            &Selector::All,
            online_after(),
            &change(&["renewed", "old"], &[]),
            &crate::origin(),
        )
        .await
        .unwrap();
    assert_eq!(outcome, Retagged::Matched(3));
    assert_eq!(
        tag_names(&store, ann.id).await,
        [vec!["keep"], vec![], Vec::<&str>::new()]
    );
}

/// A change that would leave one selected device with more than 20 tags
/// changes nothing, on any device, even those it would fit; a change that
/// removes as many as it adds fits.
pub async fn a_retag_past_twenty_tags_changes_nothing(store: impl Store) {
    let ann = account(&store, "ann").await;
    let nineteen = numbered_tags("t", 19);
    let full = fleet_device(ann.id, 1, "full", "", &as_strs(&nineteen), None, 0);
    let bare = fleet_device(ann.id, 2, "bare", "", &[], None, 0);
    let spare = fleet_device(ann.id, 3, "spare", "", &["t00"], None, 0);
    create_devices(&store, &[full.clone(), bare.clone(), spare.clone()]).await;
    let before = store.list_for(ann.id).await.unwrap();

    for too_many in [
        change(&[], &["x", "y"]),
        change(&["absent"], &["x", "y", "x"]),
        change(&["t00"], &["x", "y", "z"]),
    ] {
        let outcome = store
            .retag(
                ann.id,
                &Selector::All,
                online_after(),
                &too_many,
                &crate::origin(),
            )
            .await
            .unwrap();
        assert_eq!(outcome, Retagged::TooManyTags, "{too_many:?}");
        assert_eq!(
            store.list_for(ann.id).await.unwrap(),
            before,
            "{too_many:?}"
        );
    }

    let fits = store
        .retag(
            ann.id,
            &Selector::All,
            online_after(),
            &change(&["t00"], &["x", "y"]),
            &crate::origin(),
        )
        .await
        .unwrap();
    assert_eq!(fits, Retagged::Matched(3));
    let after = store.list_for(ann.id).await.unwrap();
    assert_eq!(after[0].tags.len(), 20);
    assert_eq!(after[1].tags, tags(&["x", "y"]));
    assert_eq!(after[2].tags, tags(&["x", "y"]));

    let already = store
        .retag(
            ann.id,
            &Selector::All,
            online_after(),
            &change(&[], &["x", "t01"]),
            &crate::origin(),
        )
        .await
        .unwrap();
    assert_eq!(
        already,
        Retagged::Matched(3),
        "tags carried already count once"
    );
}

/// Another account's devices are never changed, even when named by serial.
pub async fn a_retag_never_changes_another_accounts_devices(store: impl Store) {
    let ann = account(&store, "ann").await;
    let bob = account(&store, "bob").await;
    let bobs = fleet_device(bob.id, 9, "bob's", "", &["lab"], None, 0);
    let full = numbered_tags("b", 20);
    let bobs_full = fleet_device(bob.id, 8, "bob's full", "", &as_strs(&full), None, 0);
    create_devices(
        &store,
        &[
            fleet_device(ann.id, 1, "ann's", "", &["lab"], None, 0),
            bobs.clone(),
            bobs_full.clone(),
        ],
    )
    .await;
    let by_serial = matching(Criteria {
        serials: Some(vec![
            fleet_serial(9).to_string(),
            fleet_serial(8).to_string(),
        ]),
        ..Criteria::default()
    });
    let lab = matching(Criteria {
        tags: names(&["lab"]),
        ..Criteria::default()
    });
    for (selector, matched) in [(by_serial, 0), (lab, 1), (Selector::All, 1)] {
        let outcome = store
            .retag(
                ann.id,
                &selector,
                online_after(),
                &change(&["lab"], &["ann-was-here"]),
                &crate::origin(),
            )
            .await
            .unwrap();
        assert_eq!(outcome, Retagged::Matched(matched), "{selector:?}");
    }
    assert_eq!(store.list_for(bob.id).await.unwrap(), vec![bobs_full, bobs]);
}

/// Racing changes each adding their own tag to the same devices all land.
pub async fn racing_retags_each_land_whole(store: impl Store) {
    let ann = account(&store, "ann").await;
    let devices: Vec<Device> = (0..50)
        .map(|n| fleet_device(ann.id, n, &format!("pi-{n}"), "", &["base"], None, 0))
        .collect();
    create_devices(&store, &devices).await;
    let outcomes = race(8, |i| {
        let store = store.clone();
        async move {
            let adding = change(&[], &[&format!("racer-{i}")]);
            store
                .retag(
                    ann.id,
                    &Selector::All,
                    online_after(),
                    &adding,
                    &crate::origin(),
                )
                .await
                .unwrap()
        }
    })
    .await;
    assert!(
        outcomes.iter().all(|o| *o == Retagged::Matched(50)),
        "{outcomes:?}"
    );
    let mut expected: Vec<String> = (0..8).map(|i| format!("racer-{i}")).collect();
    expected.push("base".to_owned());
    expected.sort();
    for (n, held) in tag_names(&store, ann.id).await.iter().enumerate() {
        assert_eq!(held, &expected, "device {n}");
    }
}

/// Racing changes of which only some fit: each either changed every
/// device it selected or none, and exactly as many fit as there was room.
pub async fn racing_retags_past_twenty_tags_are_all_or_nothing(store: impl Store) {
    let ann = account(&store, "ann").await;
    let fourteen = numbered_tags("t", 14);
    let devices: Vec<Device> = (0..30)
        .map(|n| {
            fleet_device(
                ann.id,
                n,
                &format!("pi-{n}"),
                "",
                &as_strs(&fourteen),
                None,
                0,
            )
        })
        .collect();
    create_devices(&store, &devices).await;
    // Each adds two tags of its own: three fit (14 + 3 × 2 = 20), no more.
    let outcomes = race(8, |i| {
        let store = store.clone();
        async move {
            let adding = change(&[], &[&format!("r{i}-a"), &format!("r{i}-b")]);
            store
                .retag(
                    ann.id,
                    &Selector::All,
                    online_after(),
                    &adding,
                    &crate::origin(),
                )
                .await
                .unwrap()
        }
    })
    .await;
    let landed: Vec<usize> = (0..8)
        .filter(|i| outcomes[*i] == Retagged::Matched(30))
        .collect();
    assert_eq!(landed.len(), 3, "{outcomes:?}");
    assert_eq!(
        outcomes
            .iter()
            .filter(|o| **o == Retagged::TooManyTags)
            .count(),
        5,
        "{outcomes:?}"
    );
    let mut expected = fourteen.clone();
    for i in &landed {
        expected.extend([format!("r{i}-a"), format!("r{i}-b")]);
    }
    expected.sort();
    for (n, held) in tag_names(&store, ann.id).await.iter().enumerate() {
        assert_eq!(held, &expected, "device {n}");
    }
}
