//! The fleet view's queries: each criterion of a selector, alone and
//! combined, the case-insensitive search, and another account's devices,
//! never selected nor counted.

use crate::{
    Store, account, create_devices, fleet_device, fleet_serial, machine, matching, online_after,
    query, search, selected, t0, tag,
};
use domain::{AccountId, Criteria, Device, DeviceOrdering, Selector, Serial};

/// ann's four devices (in list order) and bob's one, stored:
/// 1. "Kitchen Pi", "ground floor", lab and eu, online, a Pi 4 B;
/// 2. "ÉCOLE 12", lab, seen ten minutes ago, an x86-64 PC;
/// 3. "garage", "100% done_ok", eu and prod, never seen, a Pi 4 B;
/// 4. "attic", "spare", no tag, seen just at `online_after` (offline), a Pi 5.
///
/// bob's "Kitchen Bob" (number 9) has lab, eu and prod, is online and a Pi 4 B.
async fn fleet(store: &impl Store) -> (AccountId, AccountId, Vec<Device>) {
    let ann = account(store, "ann").await;
    let bob = account(store, "bob").await;
    let ten_minutes_ago = t0() - chrono::Duration::minutes(10);
    let mut ecole = fleet_device(
        ann.id,
        2,
        "ÉCOLE 12",
        "",
        &["lab"],
        Some(ten_minutes_ago),
        0,
    );
    ecole.facts.machine_type = machine("x86_64");
    let mut attic = fleet_device(ann.id, 4, "attic", "spare", &[], Some(online_after()), 2);
    attic.facts.machine_type = machine("rpi_5");
    let devices = vec![
        fleet_device(
            ann.id,
            1,
            "Kitchen Pi",
            "ground floor",
            &["lab", "eu"],
            Some(t0()),
            0,
        ),
        ecole,
        fleet_device(
            ann.id,
            3,
            "garage",
            "100% done_ok",
            &["eu", "prod"],
            None,
            1,
        ),
        attic,
    ];
    create_devices(store, &devices).await;
    let bobs = fleet_device(
        bob.id,
        9,
        "Kitchen Bob",
        "ground floor",
        &["lab", "eu", "prod"],
        Some(t0()),
        0,
    );
    create_devices(store, &[bobs]).await;
    (ann.id, bob.id, devices)
}

/// The serials of ann's devices by their numbers.
fn numbered(numbers: &[u16]) -> Vec<Serial> {
    numbers.iter().map(|n| fleet_serial(*n)).collect()
}

fn tags(names: &[&str]) -> Vec<domain::Tag> {
    names.iter().map(|name| tag(name)).collect()
}

/// Each criterion alone selects the devices it names, in list order.
pub async fn each_criterion_alone_selects_the_devices_it_names(store: impl Store) {
    let (ann, _, _) = fleet(&store).await;
    let cases: Vec<(&str, Criteria, Vec<u16>)> = vec![
        (
            "tags lab",
            Criteria {
                tags: tags(&["lab"]),
                ..Criteria::default()
            },
            vec![1, 2],
        ),
        (
            "tags lab and eu",
            Criteria {
                tags: tags(&["eu", "lab"]),
                ..Criteria::default()
            },
            vec![1],
        ),
        (
            "tags lab twice",
            Criteria {
                tags: tags(&["lab", "lab"]),
                ..Criteria::default()
            },
            vec![1, 2],
        ),
        (
            "tags nobody has",
            Criteria {
                tags: tags(&["lab", "nope"]),
                ..Criteria::default()
            },
            vec![],
        ),
        (
            "any of prod, lab",
            Criteria {
                any_tags: tags(&["prod", "lab"]),
                ..Criteria::default()
            },
            vec![1, 2, 3],
        ),
        (
            "any of prod twice",
            Criteria {
                any_tags: tags(&["prod", "prod"]),
                ..Criteria::default()
            },
            vec![3],
        ),
        (
            "any of nope",
            Criteria {
                any_tags: tags(&["nope"]),
                ..Criteria::default()
            },
            vec![],
        ),
        (
            "online",
            Criteria {
                online: Some(true),
                ..Criteria::default()
            },
            vec![1],
        ),
        (
            "offline",
            Criteria {
                online: Some(false),
                ..Criteria::default()
            },
            vec![2, 3, 4],
        ),
        (
            "a Pi 4 B",
            Criteria {
                machine_type: Some(machine("rpi_4b")),
                ..Criteria::default()
            },
            vec![1, 3],
        ),
        (
            "a Pi Zero",
            Criteria {
                machine_type: Some(machine("rpi_zero")),
                ..Criteria::default()
            },
            vec![],
        ),
        (
            "search kitchen",
            Criteria {
                search: search("kitchen"),
                ..Criteria::default()
            },
            vec![1],
        ),
        (
            "search in the description",
            Criteria {
                search: search("FLOOR"),
                ..Criteria::default()
            },
            vec![1],
        ),
        (
            "serials 4, 1",
            Criteria {
                serials: Some(vec![
                    fleet_serial(4).to_string(),
                    fleet_serial(1).to_string(),
                ]),
                ..Criteria::default()
            },
            vec![1, 4],
        ),
    ];
    for (what, criteria, expected) in cases {
        assert_eq!(
            selected(&store, ann, matching(criteria)).await,
            numbered(&expected),
            "{what}"
        );
    }
    assert_eq!(
        selected(&store, ann, Selector::All).await,
        numbered(&[1, 2, 3, 4])
    );
}

/// Criteria combine: every one given must hold.
pub async fn criteria_combine_and_every_one_must_hold(store: impl Store) {
    let (ann, _, _) = fleet(&store).await;
    let cases: Vec<(&str, Criteria, Vec<u16>)> = vec![
        (
            "eu and offline",
            Criteria {
                tags: tags(&["eu"]),
                online: Some(false),
                ..Criteria::default()
            },
            vec![3],
        ),
        (
            "any of lab, an x86-64 PC",
            Criteria {
                any_tags: tags(&["lab"]),
                machine_type: Some(machine("x86_64")),
                ..Criteria::default()
            },
            vec![2],
        ),
        (
            "lab, any of eu or prod, online, a Pi 4 B, search i",
            Criteria {
                tags: tags(&["lab"]),
                any_tags: tags(&["eu", "prod"]),
                online: Some(true),
                machine_type: Some(machine("rpi_4b")),
                search: search("I"),
                ..Criteria::default()
            },
            vec![1],
        ),
        (
            "serials 1, 2, 3 with eu",
            Criteria {
                serials: Some(numbered(&[1, 2, 3]).iter().map(Serial::to_string).collect()),
                tags: tags(&["eu"]),
                ..Criteria::default()
            },
            vec![1, 3],
        ),
        (
            "serials 2, 4 offline, search a",
            Criteria {
                serials: Some(numbered(&[2, 4]).iter().map(Serial::to_string).collect()),
                online: Some(false),
                search: search("a"),
                ..Criteria::default()
            },
            vec![4],
        ),
        (
            "tags lab with any of prod",
            Criteria {
                tags: tags(&["lab"]),
                any_tags: tags(&["prod"]),
                ..Criteria::default()
            },
            vec![],
        ),
    ];
    for (what, criteria, expected) in cases {
        assert_eq!(
            selected(&store, ann, matching(criteria)).await,
            numbered(&expected),
            "{what}"
        );
    }
}

/// The search ignores case (beyond ASCII too) in names, descriptions and
/// serials, and `%` and `_` in it are plain characters.
pub async fn the_search_ignores_case_and_takes_percent_and_underscore_literally(store: impl Store) {
    let (ann, _, _) = fleet(&store).await;
    let fourth = fleet_serial(4).to_string();
    let serial_part = fourth[..13].to_uppercase();
    let cases: Vec<(&str, Vec<u16>)> = vec![
        ("école", vec![2]),
        ("ÉCOLE", vec![2]),
        ("Éco", vec![2]),
        ("cole 1", vec![2]),
        ("ecole", vec![]),
        ("%", vec![3]),
        ("0%", vec![3]),
        ("_", vec![3]),
        ("e_o", vec![3]),
        ("k_t", vec![]),
        ("g%e", vec![]),
        ("KITCHEN", vec![1]),
        ("pi", vec![1]),
        ("a", vec![3, 4]),
        (" ", vec![1, 2, 3]),
        (&serial_part, vec![4]),
    ];
    for (text, expected) in cases {
        let criteria = Criteria {
            search: search(text),
            ..Criteria::default()
        };
        assert_eq!(
            selected(&store, ann, matching(criteria)).await,
            numbered(&expected),
            "search {text:?}"
        );
    }
}

/// Serials the account does not have, another account's among them, match
/// nothing, without error.
pub async fn serials_of_another_account_or_unknown_match_nothing(store: impl Store) {
    let (ann, bob, _) = fleet(&store).await;
    let foreign = vec![
        fleet_serial(9).to_string(),
        "not-a-serial".to_owned(),
        fleet_serial(1).to_string().to_uppercase(),
        fleet_serial(77).to_string(),
        "\"]".to_owned(),
    ];
    let criteria = Criteria {
        serials: Some(foreign.clone()),
        ..Criteria::default()
    };
    assert_eq!(selected(&store, ann, matching(criteria)).await, vec![]);
    let with_one = Criteria {
        serials: Some([foreign, vec![fleet_serial(3).to_string()]].concat()),
        ..Criteria::default()
    };
    assert_eq!(
        selected(&store, ann, matching(with_one)).await,
        numbered(&[3])
    );
    let bobs = Criteria {
        serials: Some(vec![fleet_serial(9).to_string()]),
        ..Criteria::default()
    };
    assert_eq!(selected(&store, bob, matching(bobs)).await, numbered(&[9]));
}

/// Another account's devices are never selected nor counted, whatever
/// the criteria; its tags are not counted either.
pub async fn another_accounts_devices_are_never_selected_or_counted(store: impl Store) {
    let (ann, bob, _) = fleet(&store).await;
    let everything = query(Selector::All, DeviceOrdering::default(), None);
    let page = store.query(ann, &everything).await.unwrap();
    assert_eq!((page.count, page.devices.len()), (4, 4));
    assert!(page.devices.iter().all(|d| d.owner == ann));
    for criteria in [
        Criteria {
            search: search("kitchen"),
            ..Criteria::default()
        },
        Criteria {
            tags: tags(&["prod", "lab"]),
            ..Criteria::default()
        },
        Criteria {
            online: Some(true),
            ..Criteria::default()
        },
    ] {
        let page = store
            .query(
                ann,
                &query(matching(criteria.clone()), DeviceOrdering::default(), None),
            )
            .await
            .unwrap();
        assert!(
            page.devices.iter().all(|d| d.owner == ann) && page.count == page.devices.len() as u64,
            "{criteria:?}"
        );
    }
    assert_eq!(selected(&store, bob, Selector::All).await, numbered(&[9]));
    let nobody = AccountId(ann.0.max(bob.0) + 1000);
    let page = store.query(nobody, &everything).await.unwrap();
    assert_eq!((page.count, page.devices), (0, vec![]));
    assert_eq!(store.tag_counts(nobody).await.unwrap(), vec![]);
}
