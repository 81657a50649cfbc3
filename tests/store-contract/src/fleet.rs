//! Fixtures of the fleet view: devices with names, tags and heartbeats,
//! queries over them, the reference answer of a query, and a seeded
//! random source for the tests that compare the two.

use crate::{Store, amount, rpi_4b, t0, tags, text};
use application::ports::{DevicePage, DeviceQuery, DeviceRepository, Window};
use domain::{
    AccountId, Criteria, Device, DeviceFacts, DeviceOrdering, MachineType, Search, Selector,
    Serial, Timestamp,
};

/// The serial of the fleet device numbered `n`: serials sort as their numbers.
pub fn fleet_serial(n: u16) -> Serial {
    let [high, low] = n.to_be_bytes();
    Serial::from_random_bytes([0xf1, high, low, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0])
}

/// A device of `owner` numbered `n` (serial [`fleet_serial`]`(n)`, slug
/// `fleet-{n}`), named `name`, described `description`, with the tags
/// `tag_names`, a Raspberry Pi 4 B last seen at `last_seen`, created at
/// [`t0`] plus `created_secs` seconds.
pub fn fleet_device(
    owner: AccountId,
    n: u16,
    name: &str,
    description: &str,
    tag_names: &[&str],
    last_seen: Option<Timestamp>,
    created_secs: i64,
) -> Device {
    Device {
        serial: fleet_serial(n),
        owner,
        name: text(name),
        description: text(description),
        wormhole_slug: format!("fleet-{n}"),
        tags: tags(tag_names),
        facts: DeviceFacts {
            agent_version: text("1.0"),
            operating_system: text("Debian"),
            uname: text("Linux"),
            machine_type: rpi_4b(),
            disk_capacity: Some(amount(1 << 35)),
            disk_used: None,
            processor_speed: amount(1500),
            ram_capacity: amount(4096),
        },
        last_seen,
        created_time: t0() + chrono::Duration::seconds(created_secs),
    }
}

/// Stores each device.
pub async fn create_devices(store: &impl Store, devices: &[Device]) {
    for device in devices {
        DeviceRepository::create(
            store,
            device,
            &crate::noted(domain::AuditAction::DeviceCreate),
        )
        .await
        .unwrap();
    }
}

/// A device last heard from later than this is online, in fleet tests:
/// 90 seconds before [`t0`].
pub fn online_after() -> Timestamp {
    t0() - chrono::Duration::seconds(90)
}

/// A machine type by its code.
pub fn machine(code: &str) -> MachineType {
    MachineType::from_code(code).expect("a machine type")
}

/// A search for `text` (not empty).
pub fn search(text: &str) -> Option<Search> {
    Some(Search::new(text).expect("a search"))
}

/// The selector of the devices meeting `criteria`.
pub fn matching(criteria: Criteria) -> Selector {
    Selector::Matching(criteria)
}

/// A query of the devices `selector` selects, in `ordering`, in `window`
/// (`None`: all), online after [`online_after`].
pub fn query(selector: Selector, ordering: DeviceOrdering, window: Option<Window>) -> DeviceQuery {
    DeviceQuery {
        selector,
        ordering,
        window,
        online_after: online_after(),
    }
}

/// A window of `limit` devices after `offset`.
pub fn window(limit: u32, offset: u64) -> Option<Window> {
    Some(Window { limit, offset })
}

/// The serials `owner`'s devices that `selector` selects, all, in list
/// order; checks that the count is theirs.
pub async fn selected(store: &impl Store, owner: AccountId, selector: Selector) -> Vec<Serial> {
    let page = store
        .query(owner, &query(selector, DeviceOrdering::default(), None))
        .await
        .unwrap();
    assert_eq!(page.count, page.devices.len() as u64, "the count of all");
    serials(&page)
}

/// The serials of a page's devices, in order.
pub fn serials(page: &DevicePage) -> Vec<Serial> {
    page.devices.iter().map(|d| d.serial.clone()).collect()
}

/// The serials of `devices`, in order.
pub fn serials_of<'a>(devices: impl IntoIterator<Item = &'a Device>) -> Vec<Serial> {
    devices.into_iter().map(|d| d.serial.clone()).collect()
}

/// What a query answers, by the domain's own rules (`Selector::matches`,
/// `DeviceOrdering::compare`), over `devices`, which are all the owner's.
pub fn reference_page(devices: &[Device], query: &DeviceQuery) -> DevicePage {
    let mut chosen: Vec<Device> = devices
        .iter()
        .filter(|d| {
            let online = d.last_seen.is_some_and(|seen| seen > query.online_after);
            query.selector.matches(d, online)
        })
        .cloned()
        .collect();
    chosen.sort_by(|a, b| query.ordering.compare(a, b));
    let count = chosen.len() as u64;
    let devices = match query.window {
        None => chosen,
        Some(window) => chosen
            .into_iter()
            .skip(usize::try_from(window.offset).unwrap_or(usize::MAX))
            .take(window.limit as usize)
            .collect(),
    };
    DevicePage { count, devices }
}

/// A small seeded random source (SplitMix64): the same seed, the same draws.
pub struct Draws(u64);

impl Draws {
    /// Draws seeded with `seed`.
    pub fn new(seed: u64) -> Self {
        Self(seed)
    }

    /// A number below `bound` (> 0).
    pub fn below(&mut self, bound: u64) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        (z ^ (z >> 31)) % bound
    }

    /// True one time in `n`.
    pub fn one_in(&mut self, n: u64) -> bool {
        self.below(n) == 0
    }

    /// One of `items` (not empty).
    pub fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[usize::try_from(self.below(items.len() as u64)).unwrap()]
    }

    /// Each of `items` kept one time in `n`.
    pub fn some_of<T: Clone>(&mut self, items: &[T], n: u64) -> Vec<T> {
        items.iter().filter(|_| self.one_in(n)).cloned().collect()
    }

    /// `length` characters drawn from `alphabet`.
    pub fn text(&mut self, alphabet: &[char], length: u64) -> String {
        (0..length).map(|_| self.pick(alphabet)).collect()
    }
}
