//! Unit tests of [`super::relisting`], over mocked ports.

use super::relisting::{ListingStamp, Relisted};
use super::selection::Listing;
use crate::Settings;
use crate::ports::{DevicePage, FleetVersion};
use crate::use_cases::test_support::{Harness, account, device, now};
use chrono::Duration;
use domain::{Criteria, DeviceOrdering, Selector};

fn every_device() -> Listing {
    Listing {
        selector: Selector::All,
        ordering: DeviceOrdering::default(),
        window: None,
    }
}

fn stamp(version: i64, read_at: i64, changes_at: Option<i64>) -> ListingStamp {
    ListingStamp {
        version: FleetVersion(version),
        read_at: now() + Duration::seconds(read_at),
        changes_at: changes_at.map(|secs| now() + Duration::seconds(secs)),
    }
}

/// A harness whose store is at `version`, asked for it once, and lists
/// devices last seen `seen` seconds from now `reads` times.
fn store_at(version: Option<i64>, reads: usize, seen: Vec<Option<i64>>) -> Harness {
    store_asked(1, version, reads, seen)
}

/// [`store_at`], asked for its version `asked` times.
fn store_asked(
    asked: usize,
    version: Option<i64>,
    reads: usize,
    seen: Vec<Option<i64>>,
) -> Harness {
    let mut h = Harness::new();
    h.devices
        .expect_fleet_version()
        .times(asked)
        .withf(|owner| owner.0 == 7)
        .returning(move |_| Ok(version.map(FleetVersion)));
    h.devices
        .expect_query()
        .times(reads)
        .returning(move |_, _| {
            Ok(DevicePage {
                count: seen.len() as u64,
                devices: seen
                    .iter()
                    .map(|secs| device(secs.map(|secs| now() + Duration::seconds(secs))))
                    .collect(),
            })
        });
    h
}

async fn relist(
    h: Harness,
    listing: Listing,
    since: Option<ListingStamp>,
) -> Relisted<&'static str> {
    h.app()
        .devices
        .query_since(
            &account(true, None),
            listing,
            since.map(|stamp| (stamp, "kept")),
        )
        .await
        .unwrap()
}

#[tokio::test]
async fn a_first_listing_is_read_and_stamped_until_its_first_online_device_goes_offline() {
    let window = Settings::default().online_window.num_seconds();
    let h = store_at(Some(3), 1, vec![Some(-10), Some(-86_400), None, Some(-40)]);
    let Relisted::Read { page, stamp: got } = relist(h, every_device(), None).await else {
        panic!("a first listing is read");
    };
    let online: Vec<bool> = page.views.iter().map(|v| v.online).collect();
    assert_eq!(online, [true, false, false, true]);
    assert_eq!(got, Some(stamp(3, 0, Some(window - 40))));
}

#[tokio::test]
async fn a_listing_with_no_device_online_is_stamped_without_an_end() {
    let h = store_at(Some(3), 1, vec![None, Some(-86_400)]);
    let Relisted::Read { stamp: got, .. } = relist(h, every_device(), None).await else {
        panic!("a first listing is read");
    };
    assert_eq!(got, Some(stamp(3, 0, None)));
}

#[tokio::test]
async fn the_same_version_before_any_device_goes_offline_answers_unchanged() {
    let h = store_at(Some(3), 0, vec![]);
    let since = stamp(3, -30, Some(1));
    assert_eq!(
        relist(h, every_device(), Some(since)).await,
        Relisted::Unchanged("kept")
    );
    let h = store_at(Some(3), 0, vec![]);
    assert_eq!(
        relist(h, every_device(), Some(stamp(3, 0, None))).await,
        Relisted::Unchanged("kept")
    );
}

#[tokio::test]
async fn a_listing_is_read_again_when_the_version_moved_or_the_time_did() {
    let cases = [
        ("another version", stamp(2, -30, Some(60))),
        (
            "a listed device went offline just now",
            stamp(3, -30, Some(0)),
        ),
        ("long after it went offline", stamp(3, -300, Some(-200))),
        ("the clock set back before the stamp", stamp(3, 1, None)),
    ];
    for (case, since) in cases {
        let h = store_at(Some(3), 1, vec![Some(-10)]);
        let relisted = relist(h, every_device(), Some(since)).await;
        assert!(
            matches!(relisted, Relisted::Read { stamp: Some(_), .. }),
            "{case}: {relisted:?}"
        );
    }
}

#[tokio::test]
async fn a_listing_filtered_on_being_online_or_over_a_store_without_versions_gets_no_stamp() {
    let online = Listing {
        selector: Selector::Matching(Criteria {
            online: Some(false),
            ..Criteria::default()
        }),
        ..every_device()
    };
    let h = store_asked(0, Some(3), 1, vec![None]);
    let relisted = relist(h, online, Some(stamp(3, 0, None))).await;
    assert!(
        matches!(relisted, Relisted::Read { stamp: None, .. }),
        "{relisted:?}"
    );
    let h = store_at(None, 1, vec![None]);
    let relisted = relist(h, every_device(), Some(stamp(0, 0, None))).await;
    assert!(
        matches!(relisted, Relisted::Read { stamp: None, .. }),
        "{relisted:?}"
    );
}
