//! What live updates send: devices and commands (times as RFC 3339; pages
//! word them), and, for the fleet, only what changed since the stream last
//! sent it.

use super::fleet_filters::FleetFilters;
use application::use_cases::{CommandView, DeviceView};
use domain::Timestamp;
use serde::Serialize;
use std::collections::HashMap;
use std::hash::{Hash, Hasher};

/// A device as live updates send it.
#[derive(Debug, Clone, Serialize, PartialEq, Hash)]
pub(super) struct LiveDevice {
    serial: String,
    name: String,
    description: String,
    online: bool,
    machine_type: &'static str,
    last_seen: Option<String>,
    tags: Vec<String>,
}

impl LiveDevice {
    pub(super) fn of(view: &DeviceView) -> Self {
        let device = &view.device;
        Self {
            serial: device.serial.as_str().to_owned(),
            name: device.name.as_str().to_owned(),
            description: device.description.as_str().to_owned(),
            online: view.online,
            machine_type: device.facts.machine_type.display_name(),
            last_seen: device.last_seen.map(super::time::machine),
            tags: super::views::tag_texts(&device.tags),
        }
    }
}

/// A command as live updates send it.
#[derive(Serialize, PartialEq)]
pub(super) struct LiveCommand {
    id: String,
    action: &'static str,
    status: &'static str,
    issued: String,
    delivered: Option<String>,
    acked: Option<String>,
    detail: String,
}

impl LiveCommand {
    pub(super) fn of(view: &CommandView) -> Self {
        let record = &view.record;
        let time = |at: Option<Timestamp>| at.map(super::time::machine);
        Self {
            id: record.command.id.as_str().to_owned(),
            action: record.command.action.code(),
            status: view.state.code(),
            issued: super::time::machine(record.command.issued_time),
            delivered: time(record.delivered_time),
            acked: time(record.acked_time),
            detail: record.detail.as_str().to_owned(),
        }
    }
}

/// One device's state, as the `device` event sends it (`device` is null
/// once it is deleted).
#[derive(Serialize)]
pub(super) struct DeviceState {
    pub(super) device: Option<LiveDevice>,
    pub(super) commands: Vec<LiveCommand>,
}

/// The `fleet` event: the account's counts, the summary of the filtered
/// view, and the devices of its page that changed (all of them when
/// `complete`, the first time); `removed` names the devices that left the
/// page, `order` the page's devices in the fleet's order.
#[derive(Debug, Serialize, PartialEq)]
pub(super) struct FleetUpdate {
    online: u64,
    offline: u64,
    /// How many devices the view's filters select.
    count: u64,
    summary: String,
    devices: Vec<LiveDevice>,
    removed: Vec<String>,
    order: Vec<String>,
    complete: bool,
}

/// What an update says beside the devices: counts and summary.
#[derive(Debug, Clone, PartialEq, Default)]
struct Heading {
    online: u64,
    offline: u64,
    count: u64,
    summary: String,
}

/// The fleet as one stream last sent it: a fingerprint of each device
/// (keeping the devices themselves would cost every stream a fleet's worth
/// of memory).
#[derive(Default)]
pub(super) struct SentFleet {
    devices: HashMap<String, u64>,
    heading: Heading,
    started: bool,
}

/// A fingerprint of what a device's row shows.
fn fingerprint(device: &LiveDevice) -> u64 {
    let mut hasher = std::hash::DefaultHasher::new();
    device.hash(&mut hasher);
    hasher.finish()
}

impl SentFleet {
    /// What changed on the page of `filters` since the last update
    /// (everything the first time); `None` when nothing did. `views` is the
    /// whole fleet, in list order.
    pub(super) fn update(
        &mut self,
        views: &[DeviceView],
        filters: &FleetFilters,
    ) -> Option<FleetUpdate> {
        let online = views.iter().filter(|view| view.online).count() as u64;
        let total = views.len() as u64;
        let (count, page) = filters.page_of(views);
        let heading = Heading {
            online,
            offline: total - online,
            count,
            summary: super::fleet_page::summary(
                count,
                total,
                filters.is_filtered(),
                filters.page,
                page.len(),
            ),
        };
        let complete = !self.started;
        let mut devices = Vec::new();
        let mut order = Vec::with_capacity(page.len());
        let mut now = HashMap::with_capacity(page.len());
        for device in page.into_iter().map(LiveDevice::of) {
            let print = fingerprint(&device);
            let old = self.devices.remove(&device.serial);
            now.insert(device.serial.clone(), print);
            order.push(device.serial.clone());
            if complete || old != Some(print) {
                devices.push(device);
            }
        }
        // What is left of the last update is gone now.
        let mut removed: Vec<String> = std::mem::replace(&mut self.devices, now)
            .into_keys()
            .collect();
        removed.sort();
        let same_heading = heading == self.heading;
        if !complete && devices.is_empty() && removed.is_empty() && same_heading {
            return None;
        }
        self.started = true;
        self.heading = heading.clone();
        Some(FleetUpdate {
            online: heading.online,
            offline: heading.offline,
            count: heading.count,
            summary: heading.summary,
            devices,
            removed,
            order,
            complete,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::{TimeZone, Utc};
    use domain::{AccountId, BoundedText, Device, DeviceFacts, Serial};

    fn view(byte: u8, online: bool) -> DeviceView {
        let at = Utc.with_ymd_and_hms(2026, 11, 26, 12, 0, 0).unwrap();
        DeviceView {
            device: Device {
                serial: Serial::from_random_bytes([byte; 16]),
                owner: AccountId(1),
                name: BoundedText::parse(format!("pi {byte}")).unwrap(),
                description: BoundedText::parse("").unwrap(),
                wormhole_slug: "calm-otter".into(),
                facts: DeviceFacts::default(),
                tags: domain::TagSet::default(),
                last_seen: online.then_some(at),
                created_time: at,
            },
            online,
        }
    }

    #[test]
    fn the_first_update_is_complete_then_only_changes_are_sent() {
        let all = FleetFilters::from_query("");
        let mut sent = SentFleet::default();
        let first = sent.update(&[view(1, false), view(2, true)], &all).unwrap();
        assert!(first.complete);
        assert_eq!(
            (first.online, first.offline, first.devices.len()),
            (1, 1, 2)
        );
        assert_eq!(first.summary, "2 devices.");
        assert_eq!(sent.update(&[view(1, false), view(2, true)], &all), None);
        let changed = sent.update(&[view(1, true), view(2, true)], &all).unwrap();
        assert!(!changed.complete);
        assert_eq!(changed.devices, vec![LiveDevice::of(&view(1, true))]);
        assert_eq!((changed.online, changed.offline), (2, 0));
        let gone = sent.update(&[view(1, true)], &all).unwrap();
        assert!(gone.devices.is_empty());
        assert_eq!(
            gone.removed,
            vec![view(2, true).device.serial.as_str().to_owned()]
        );
    }

    #[test]
    fn a_filtered_view_sends_its_page_and_the_fleets_counts() {
        let online = FleetFilters::from_query("status=online");
        let mut sent = SentFleet::default();
        let first = sent
            .update(&[view(1, false), view(2, true)], &online)
            .unwrap();
        let serial = |byte| view(byte, true).device.serial.as_str().to_owned();
        assert_eq!(first.order, vec![serial(2)]);
        assert_eq!((first.online, first.offline, first.count), (1, 1, 1));
        assert_eq!(first.summary, "1 of 2 devices match.");
        // A device outside the view changes: only the counts do.
        let outside = sent
            .update(&[view(1, true), view(2, true)], &online)
            .unwrap();
        assert_eq!(outside.devices, vec![LiveDevice::of(&view(1, true))]);
        assert_eq!(outside.order, vec![serial(1), serial(2)]);
        assert_eq!(outside.summary, "2 of 2 devices match.");
        // Going offline takes a device out of the view.
        let left = sent
            .update(&[view(1, true), view(2, false)], &online)
            .unwrap();
        assert_eq!(left.removed, vec![serial(2)]);
        assert_eq!((left.online, left.offline, left.count), (1, 1, 1));
        let many: Vec<DeviceView> = (1..=60).map(|byte| view(byte, true)).collect();
        let second = FleetFilters::from_query("page=2");
        let page = SentFleet::default().update(&many, &second).unwrap();
        assert_eq!(page.devices.len(), 10);
        assert_eq!(page.summary, "60 devices. Showing 51–60.");
    }
}
