//! The fleet view against its reference, on seeded random fleets: every
//! query answers what `Selector::matches` and `DeviceOrdering::compare`
//! say, and every bulk change of tags does what `TagSet::changed` says.

use crate::{
    Draws, Store, account, create_devices, fleet_device, fleet_serial, machine, online_after,
    query, reference_page, t0, tag, window,
};
use application::ports::{DeviceQuery, Retagged};
use domain::{AccountId, Criteria, Device, DeviceOrdering, Search, Selector, Serial, TagChange};

/// Characters of names, descriptions and searches: capitals, a letter
/// whose capital is not ASCII, the characters `LIKE` would treat as
/// wildcards, and a space (never first in a name).
const ALPHABET: &[char] = &['a', 'b', 'A', 'B', 'é', 'É', '%', '_', ' '];
const TAGS: &[&str] = &["lab", "eu", "us", "prod", "test", "edge"];
const MACHINES: &[&str] = &["rpi_4b", "rpi_5", "x86_64"];
const ORDERINGS: &[&str] = &[
    "created_time",
    "-created_time",
    "name",
    "-name",
    "last_seen_time",
    "-last_seen_time",
];

/// A device numbered `n` with random name, description, tags among
/// `tag_pool` (each one time in `tag_odds`), machine type, last heartbeat
/// (never, or up to 3.5 minutes before t0, online or not) and creation
/// second (among five, so many share one).
fn random_device(
    draws: &mut Draws,
    owner: AccountId,
    n: u16,
    tag_pool: &[&str],
    tag_odds: u64,
) -> Device {
    let mut name = draws.text(&ALPHABET[..8], 1);
    let rest = draws.below(4);
    name.push_str(&draws.text(ALPHABET, rest));
    let description_length = draws.below(4);
    let description = draws.text(ALPHABET, description_length);
    let tag_names = draws.some_of(tag_pool, tag_odds);
    let last_seen = (!draws.one_in(4))
        .then(|| t0() - chrono::Duration::seconds(30 * i64::try_from(draws.below(8)).unwrap()));
    let created = i64::try_from(draws.below(5)).unwrap();
    let mut device = fleet_device(
        owner,
        n,
        &name,
        &description,
        &tag_names,
        last_seen,
        created,
    );
    let kind = draws.pick(MACHINES);
    device.facts.machine_type = machine(kind);
    device
}

/// Random criteria, each given one time in three or four; serials among
/// `serials` (and one no device has).
fn random_criteria(draws: &mut Draws, serials: &[Serial], tag_pool: &[&str]) -> Criteria {
    let mut criteria = Criteria::default();
    if draws.one_in(4) {
        let mut chosen: Vec<String> = draws
            .some_of(serials, 8)
            .iter()
            .map(Serial::to_string)
            .collect();
        if draws.one_in(2) {
            chosen.push(fleet_serial(999).to_string());
        }
        criteria.serials = Some(chosen);
    }
    if draws.one_in(3) {
        criteria.tags = draws.some_of(tag_pool, 4).iter().map(|t| tag(t)).collect();
    }
    if draws.one_in(3) {
        criteria.any_tags = draws.some_of(tag_pool, 3).iter().map(|t| tag(t)).collect();
    }
    if draws.one_in(4) {
        criteria.online = Some(draws.one_in(2));
    }
    if draws.one_in(4) {
        let kind = draws.pick(MACHINES);
        criteria.machine_type = Some(machine(kind));
    }
    if draws.one_in(3) {
        let length = 1 + draws.below(2);
        criteria.search = Search::new(&draws.text(ALPHABET, length));
    }
    criteria
}

/// `count` random devices of `owner`, numbered from `first`, stored.
async fn random_fleet(
    store: &impl Store,
    draws: &mut Draws,
    owner: AccountId,
    first: u16,
    count: u16,
    tag_pool: &[&str],
    tag_odds: u64,
) -> Vec<Device> {
    let devices: Vec<Device> = (first..first + count)
        .map(|n| random_device(draws, owner, n, tag_pool, tag_odds))
        .collect();
    create_devices(store, &devices).await;
    devices
}

/// Many random queries (criteria, orderings, windows) over ann's 80
/// random devices, beside bob's 20, answer what the reference answers.
pub async fn random_queries_agree_with_the_reference(store: impl Store) {
    let mut draws = Draws::new(0x5EED_0001);
    let ann = account(&store, "ann").await;
    let bob = account(&store, "bob").await;
    let mut anns = random_fleet(&store, &mut draws, ann.id, 0, 80, TAGS, 3).await;
    let bobs = random_fleet(&store, &mut draws, bob.id, 100, 20, TAGS, 3).await;
    anns.sort_by(|a, b| DeviceOrdering::default().compare(a, b));
    assert_eq!(store.list_for(ann.id).await.unwrap(), anns);
    let serials: Vec<Serial> = anns.iter().chain(&bobs).map(|d| d.serial.clone()).collect();

    let mut nonempty = 0;
    for round in 0..400 {
        let selector = if draws.one_in(10) {
            Selector::All
        } else {
            Selector::filtering(random_criteria(&mut draws, &serials, TAGS))
        };
        let ordering = draws.pick(ORDERINGS);
        let ordering = DeviceOrdering::parse(ordering).unwrap();
        let window = if draws.one_in(4) {
            None
        } else {
            let (limit, offset) = (1 + draws.below(30), draws.below(90));
            window(u32::try_from(limit).unwrap(), offset)
        };
        let asked: DeviceQuery = query(selector, ordering, window);
        let expected = reference_page(&anns, &asked);
        let page = store.query(ann.id, &asked).await.unwrap();
        assert_eq!(page, expected, "round {round}: {asked:?}");
        if !page.devices.is_empty() {
            nonempty += 1;
        }
    }
    assert!(
        nonempty > 100,
        "the draws select devices often enough: {nonempty}"
    );
}

/// Many random bulk changes of tags over ann's 40 random devices, beside
/// bob's 10, do what the reference says, and nothing when one selected
/// device would carry more than 20 tags.
pub async fn random_retags_agree_with_the_reference(store: impl Store) {
    let mut draws = Draws::new(0x5EED_0002);
    let pool: Vec<String> = (0..24).map(|n| format!("p{n:02}")).collect();
    let pool: Vec<&str> = pool.iter().map(String::as_str).collect();
    let ann = account(&store, "ann").await;
    let bob = account(&store, "bob").await;
    let mut anns = random_fleet(&store, &mut draws, ann.id, 0, 40, &pool, 3).await;
    let bobs = random_fleet(&store, &mut draws, bob.id, 100, 10, &pool, 3).await;
    anns.sort_by(|a, b| DeviceOrdering::default().compare(a, b));
    let serials: Vec<Serial> = anns.iter().chain(&bobs).map(|d| d.serial.clone()).collect();

    let (mut refused, mut changed) = (0, 0);
    for round in 0..120 {
        let selector = if draws.one_in(5) {
            Selector::All
        } else {
            Selector::filtering(random_criteria(&mut draws, &serials, &pool))
        };
        let remove = draws.some_of(&pool, 24).iter().map(|t| tag(t)).collect();
        let adding = 1 + draws.below(10);
        let add = (0..adding).map(|_| tag(draws.pick(&pool))).collect();
        let change = TagChange { remove, add };

        let is_online = |d: &Device| d.last_seen.is_some_and(|seen| seen > online_after());
        let selected: Vec<usize> = (0..anns.len())
            .filter(|i| selector.matches(&anns[*i], is_online(&anns[*i])))
            .collect();
        let changed_sets: Result<Vec<_>, _> = selected
            .iter()
            .map(|i| anns[*i].tags.changed(&change))
            .collect();
        let expected = match changed_sets {
            Err(_) => Retagged::TooManyTags,
            Ok(sets) => {
                for (i, set) in selected.iter().zip(sets) {
                    anns[*i].tags = set;
                }
                Retagged::Matched(selected.len() as u64)
            }
        };
        let outcome = store
            .retag(ann.id, &selector, online_after(), &change, &crate::origin())
            .await
            .unwrap();
        assert_eq!(outcome, expected, "round {round}: {selector:?} {change:?}");
        assert_eq!(
            store.list_for(ann.id).await.unwrap(),
            anns,
            "round {round}: {selector:?} {change:?}"
        );
        match outcome {
            Retagged::TooManyTags => refused += 1,
            Retagged::Matched(n) if n > 0 => changed += 1,
            Retagged::Matched(_) => {}
        }
    }
    assert!(
        refused > 10 && changed > 30,
        "the draws cover both: {refused}, {changed}"
    );
    let mut bobs = bobs;
    bobs.sort_by(|a, b| DeviceOrdering::default().compare(a, b));
    assert_eq!(store.list_for(bob.id).await.unwrap(), bobs);
}
