use super::*;
use crate::account::AccountId;
use crate::bounded_text::{DeviceDescription, DeviceName};
use crate::device::{DeviceFacts, Serial};
use crate::tag::TagSet;
use chrono::TimeZone;

fn tag(raw: &str) -> Tag {
    Tag::parse(raw).unwrap()
}

fn device(n: u8, name: &str, tags: &[&str], seen: Option<i64>) -> Device {
    let at = |secs| chrono::Utc.timestamp_opt(1_800_000_000 + secs, 0).unwrap();
    Device {
        serial: Serial::from_random_bytes([n.wrapping_mul(0x2b) | 0xa0; 16]),
        owner: AccountId(1),
        name: DeviceName::parse(name).unwrap(),
        description: DeviceDescription::parse("In the Lab").unwrap(),
        wormhole_slug: format!("slug-{n}"),
        facts: DeviceFacts::default(),
        tags: TagSet::new(tags.iter().map(|t| tag(t))).unwrap(),
        last_seen: seen.map(at),
        created_time: at(i64::from(n) / 2),
    }
}

#[test]
fn a_selector_needs_criteria_or_all_but_not_both() {
    let some = Criteria {
        online: Some(true),
        ..Criteria::default()
    };
    assert_eq!(Selector::new(Criteria::default(), true), Ok(Selector::All));
    assert_eq!(
        Selector::new(Criteria::default(), false),
        Err(SelectorError::NoCriteria)
    );
    assert_eq!(
        Selector::new(some.clone(), true),
        Err(SelectorError::AllWithCriteria)
    );
    assert_eq!(
        Selector::new(some.clone(), false),
        Ok(Selector::Matching(some))
    );
    assert_eq!(Selector::filtering(Criteria::default()), Selector::All);
}

#[test]
fn every_criterion_given_must_hold() {
    let pi = device(1, "Gateway Pi", &["lab", "site:berlin"], Some(10));
    let matching = |criteria: Criteria, online| Selector::filtering(criteria).matches(&pi, online);
    assert!(matching(Criteria::default(), false));
    let tags = |t: &[&str]| t.iter().map(|t| tag(t)).collect::<Vec<_>>();
    assert!(matching(
        Criteria {
            tags: tags(&["lab", "site:berlin"]),
            ..Criteria::default()
        },
        true
    ));
    assert!(!matching(
        Criteria {
            tags: tags(&["lab", "prod"]),
            ..Criteria::default()
        },
        true
    ));
    assert!(matching(
        Criteria {
            any_tags: tags(&["prod", "lab"]),
            ..Criteria::default()
        },
        true
    ));
    assert!(!matching(
        Criteria {
            any_tags: tags(&["prod"]),
            ..Criteria::default()
        },
        true
    ));
    let online = Criteria {
        online: Some(true),
        ..Criteria::default()
    };
    assert!(matching(online.clone(), true) && !matching(online, false));
    let serials = |s: Vec<String>| Criteria {
        serials: Some(s),
        ..Criteria::default()
    };
    assert!(matching(serials(vec![pi.serial.to_string()]), true));
    assert!(!matching(
        serials(vec![pi.serial.to_string().to_uppercase()]),
        true
    ));
    let kind = |code| Criteria {
        machine_type: MachineType::from_code(code),
        ..Criteria::default()
    };
    assert!(matching(kind("unknown"), true) && !matching(kind("rpi_4b"), true));
}

#[test]
fn search_ignores_case_in_name_description_and_serial() {
    let pi = device(1, "Gateway Pi", &[], None);
    let found = |text: &str| {
        Selector::filtering(Criteria {
            search: Search::new(text),
            ..Criteria::default()
        })
        .matches(&pi, false)
    };
    assert!(found("GATEWAY") && found("the lab") && found(&pi.serial.as_str()[3..9]));
    assert!(!found("kitchen"));
    assert!(found(""), "an empty search is no filter");
    assert_eq!(Search::new(""), None);
}

#[test]
fn orderings_parse_and_break_ties_by_creation_then_serial() {
    assert_eq!(DeviceOrdering::parse("color"), None);
    assert_eq!(DeviceOrdering::parse("--name"), None);
    let descending_seen = DeviceOrdering::parse("-last_seen_time").unwrap();
    assert_eq!(descending_seen.key, OrderKey::LastSeenTime);
    assert!(descending_seen.descending);

    let mut devices = vec![
        device(5, "b", &[], Some(3)),
        device(4, "a", &[], None),
        device(3, "b", &[], Some(3)),
        device(2, "Z", &[], Some(9)),
        device(1, "b", &[], None),
    ];
    let names = |devices: &[Device]| {
        devices
            .iter()
            .map(|d| {
                format!(
                    "{}{}",
                    d.name.as_str(),
                    d.serial.as_str().as_bytes()[0] as char
                )
            })
            .collect::<Vec<_>>()
            .join(" ")
    };
    let sort = |devices: &mut Vec<Device>, raw: &str| {
        let ordering = DeviceOrdering::parse(raw).unwrap();
        devices.sort_by(|a, b| ordering.compare(a, b));
    };
    sort(&mut devices, "last_seen_time");
    let seen: Vec<_> = devices.iter().map(|d| d.last_seen.is_some()).collect();
    assert_eq!(
        seen,
        [false, false, true, true, true],
        "{}",
        names(&devices)
    );
    sort(&mut devices, "-last_seen_time");
    let seen: Vec<_> = devices.iter().map(|d| d.last_seen.is_some()).collect();
    assert_eq!(
        seen,
        [true, true, true, false, false],
        "{}",
        names(&devices)
    );
    // Ties (the two seen at 3) keep creation order under a descending key.
    assert!(devices[1].created_time <= devices[2].created_time);
    sort(&mut devices, "name");
    assert_eq!(
        devices[0].name.as_str(),
        "Z",
        "code point order: capitals first"
    );
    sort(&mut devices, "-name");
    assert_eq!(devices[4].name.as_str(), "Z");
    let bs: Vec<_> = devices[..3]
        .iter()
        .map(|d| (d.created_time, d.serial.clone()))
        .collect();
    let mut sorted = bs.clone();
    sorted.sort();
    assert_eq!(bs, sorted, "ties ascend by creation, then serial");
}

#[test]
fn a_stored_selector_reads_back_the_same() {
    let tag = |raw: &str| Tag::parse(raw).unwrap();
    let selectors = [
        Selector::All,
        Selector::Matching(Criteria {
            serials: Some(vec![
                "a b".to_owned(),
                "100%\nnew\rline".to_owned(),
                String::new(),
            ]),
            tags: vec![tag("lab"), tag("site-2")],
            any_tags: vec![tag("x")],
            online: Some(false),
            machine_type: MachineType::from_code("rpi4"),
            search: Search::new("Kitchen %0A pi\n"),
        }),
        Selector::Matching(Criteria {
            serials: Some(Vec::new()),
            ..Criteria::default()
        }),
        Selector::Matching(Criteria {
            online: Some(true),
            ..Criteria::default()
        }),
    ];
    for selector in selectors {
        let text = selector.to_stored();
        assert_eq!(Selector::from_stored(&text), Some(selector), "{text:?}");
    }
    for text in [
        "",
        "everything",
        "online maybe",
        "search 100%",
        "serial x",
        "tag UPPER CASE",
    ] {
        assert_eq!(Selector::from_stored(text), None, "{text:?}");
    }
}
