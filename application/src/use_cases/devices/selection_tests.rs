//! Unit tests of [`super::selection`], over mocked ports.

use super::selection::{Listing, PREVIEW, RetagError};
use crate::Settings;
use crate::ports::{DevicePage, Retagged, Window};
use crate::use_cases::test_support::{Harness, account, announcements, by, device, now};
use chrono::Duration;
use domain::{Criteria, DeviceOrdering, Selector, Tag, TagChange, TagCount};

fn online_only() -> Selector {
    Selector::Matching(Criteria {
        online: Some(true),
        ..Criteria::default()
    })
}

#[tokio::test]
async fn a_listing_asks_the_store_once_with_the_online_cut_and_marks_each_device() {
    let mut h = Harness::new();
    let window = Settings::default().online_window;
    h.devices
        .expect_query()
        .times(1)
        .withf(move |owner, query| {
            owner.0 == 7
                && query.online_after == now() - window
                && query.selector == online_only()
                && query.window
                    == Some(Window {
                        limit: 2,
                        offset: 4,
                    })
        })
        .returning(|_, _| {
            Ok(DevicePage {
                count: 9,
                devices: vec![device(Some(now())), device(Some(now() - Duration::days(1)))],
            })
        });
    let listing = Listing {
        selector: online_only(),
        ordering: DeviceOrdering::parse("-name").unwrap(),
        window: Some(Window {
            limit: 2,
            offset: 4,
        }),
    };
    let page = h
        .app()
        .devices
        .query(&account(true, None), listing)
        .await
        .unwrap();
    assert_eq!(page.count, 9);
    let online: Vec<bool> = page.views.iter().map(|v| v.online).collect();
    assert_eq!(online, [true, false]);
}

#[tokio::test]
async fn a_preview_is_the_first_hundred_in_list_order() {
    let mut h = Harness::new();
    h.devices
        .expect_query()
        .withf(|_, query| {
            query.window
                == Some(Window {
                    limit: PREVIEW,
                    offset: 0,
                })
                && query.ordering == DeviceOrdering::default()
        })
        .returning(|_, _| {
            Ok(DevicePage {
                count: 0,
                devices: vec![],
            })
        });
    let page = h
        .app()
        .devices
        .select(&account(true, None), Selector::All)
        .await
        .unwrap();
    assert_eq!(page.count, 0);
}

#[tokio::test]
async fn tags_come_from_the_store() {
    let mut h = Harness::new();
    h.devices.expect_tag_counts().returning(|_| {
        Ok(vec![TagCount {
            tag: Tag::parse("lab").unwrap(),
            devices: 2,
        }])
    });
    let tags = h.app().devices.tags(&account(true, None)).await.unwrap();
    assert_eq!(tags[0].devices, 2);
}

#[tokio::test]
async fn a_retag_that_changes_devices_is_announced_one_that_would_overflow_is_refused() {
    let change = TagChange {
        remove: vec![],
        add: vec![Tag::parse("lab").unwrap()],
    };
    let mut h = Harness::new();
    h.devices
        .expect_retag()
        .returning(|_, _, _, _, _| Ok(Retagged::Matched(3)));
    h.fleet_signals = announcements(1);
    let matched = h
        .app()
        .devices
        .retag(by(&account(true, None)), &Selector::All, &change)
        .await
        .unwrap();
    assert_eq!(matched, 3);

    let mut h = Harness::new();
    h.devices
        .expect_retag()
        .returning(|_, _, _, _, _| Ok(Retagged::TooManyTags));
    h.fleet_signals = announcements(0);
    let refused = h
        .app()
        .devices
        .retag(by(&account(true, None)), &Selector::All, &change)
        .await;
    assert!(matches!(refused, Err(RetagError::TooManyTags)));
}
