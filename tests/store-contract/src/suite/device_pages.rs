//! The fleet view's orderings and pages: ties broken by creation time then
//! serial, devices never seen first ascending and last descending, and
//! windows at and past the end.

use crate::{
    Store, account, create_devices, fleet_device, fleet_serial, matching, query, serials, t0,
    window,
};
use domain::{AccountId, Criteria, DeviceOrdering, Selector, Serial};

/// ann's six devices, numbered so that serials sort as the numbers:
///
/// | n | name | last seen      | created |
/// |---|------|----------------|---------|
/// | 5 | b    | 5 minutes ago  | t0      |
/// | 2 | b    | never          | t0 + 1s |
/// | 3 | B    | 5 minutes ago  | t0      |
/// | 4 | é    | never          | t0      |
/// | 1 | Z    | t0             | t0 + 1s |
/// | 6 | a    | 5 minutes ago  | t0 + 1s |
///
/// and bob's device 7, named "A", never seen, created before them all.
async fn fleet(store: &impl Store) -> AccountId {
    let ann = account(store, "ann").await;
    let bob = account(store, "bob").await;
    let earlier = Some(t0() - chrono::Duration::minutes(5));
    let devices = [
        fleet_device(ann.id, 5, "b", "", &[], earlier, 0),
        fleet_device(ann.id, 2, "b", "", &[], None, 1),
        fleet_device(ann.id, 3, "B", "", &[], earlier, 0),
        fleet_device(ann.id, 4, "é", "", &[], None, 0),
        fleet_device(ann.id, 1, "Z", "", &[], Some(t0()), 1),
        fleet_device(ann.id, 6, "a", "", &[], earlier, 1),
        fleet_device(bob.id, 7, "A", "", &[], None, -10),
    ];
    create_devices(store, &devices).await;
    ann.id
}

fn numbered(numbers: &[u16]) -> Vec<Serial> {
    numbers.iter().map(|n| fleet_serial(*n)).collect()
}

/// Every ordering, with its ties and devices never seen.
pub async fn each_ordering_breaks_ties_by_creation_then_serial(store: impl Store) {
    let ann = fleet(&store).await;
    let cases = [
        ("created_time", vec![3, 4, 5, 1, 2, 6]),
        ("-created_time", vec![1, 2, 6, 3, 4, 5]),
        ("name", vec![3, 1, 6, 5, 2, 4]),
        ("-name", vec![4, 5, 2, 6, 1, 3]),
        ("last_seen_time", vec![4, 2, 3, 5, 6, 1]),
        ("-last_seen_time", vec![1, 3, 5, 6, 4, 2]),
    ];
    for (ordering, expected) in cases {
        let parsed = DeviceOrdering::parse(ordering).unwrap();
        let page = store
            .query(ann, &query(Selector::All, parsed, None))
            .await
            .unwrap();
        assert_eq!(page.count, 6, "{ordering}");
        assert_eq!(serials(&page), numbered(&expected), "{ordering}");
        let second = store
            .query(ann, &query(Selector::All, parsed, window(2, 1)))
            .await
            .unwrap();
        assert_eq!(second.count, 6, "{ordering}, a page");
        assert_eq!(
            serials(&second),
            numbered(&expected[1..3]),
            "{ordering}, a page"
        );
    }
}

/// A page holds its window of the ordered selection and counts all of it,
/// also when the window starts at or past the end.
pub async fn a_page_holds_its_window_and_counts_every_match(store: impl Store) {
    let ann = fleet(&store).await;
    let order = DeviceOrdering::default();
    let all = [3, 4, 5, 1, 2, 6];
    let cases: Vec<(Option<application::ports::Window>, &[u16])> = vec![
        (window(1, 0), &all[..1]),
        (window(1, 5), &all[5..]),
        (window(2, 2), &all[2..4]),
        (window(4, 4), &all[4..]),
        (window(1000, 0), &all[..]),
        (window(10, 6), &[]),
        (window(1, 7), &[]),
        (window(1000, 1_000_000), &[]),
        (window(1, u64::MAX), &[]),
        (None, &all[..]),
    ];
    for (window, expected) in cases {
        let page = store
            .query(ann, &query(Selector::All, order, window))
            .await
            .unwrap();
        assert_eq!(page.count, 6, "{window:?}");
        assert_eq!(serials(&page), numbered(expected), "{window:?}");
    }

    let offline = matching(Criteria {
        online: Some(false),
        ..Criteria::default()
    });
    let never_seen_first = DeviceOrdering::parse("last_seen_time").unwrap();
    for (window, expected) in [
        (window(2, 0), vec![4, 2]),
        (window(2, 4), vec![6]),
        (window(2, 5), vec![]),
        (window(3, 50), vec![]),
    ] {
        let page = store
            .query(ann, &query(offline.clone(), never_seen_first, window))
            .await
            .unwrap();
        assert_eq!(page.count, 5, "offline, {window:?}");
        assert_eq!(serials(&page), numbered(&expected), "offline, {window:?}");
    }

    let nothing = matching(Criteria {
        tags: vec![crate::tag("none")],
        ..Criteria::default()
    });
    for window in [window(5, 0), window(5, 5), None] {
        let page = store
            .query(ann, &query(nothing.clone(), order, window))
            .await
            .unwrap();
        assert_eq!((page.count, page.devices), (0, vec![]), "{window:?}");
    }
}
