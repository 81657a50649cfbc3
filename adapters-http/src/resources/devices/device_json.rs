//! A device as the API shows it: its fields written straight from the
//! stored device, by hand for the answers of devices and listings, through
//! serde inside other answers (a selection's preview).

use super::json::{DEVICE_FIELDS, DEVICE_SCHEMA};
use crate::answer::{Answer, Json, written_json};
use crate::description::examples::{self as ex, BASE_URL};
use crate::description::{Described, ObjectSchema, Reply};
use crate::json_text as text;
use actix_web::{HttpRequest, HttpResponse};
use application::use_cases::DeviceView;
use domain::time::ApiTime;
use domain::{AccountId, Amount, Device, DeviceDescription, DeviceName, Tag};
use serde::ser::SerializeStruct;
use serde::{Serialize, Serializer};
use std::fmt;
use std::sync::Arc;

/// A device as the API shows it: the stored device and the base of its
/// URLs, written field by field (URLs and times included) straight into the
/// answer, without owned strings of their own; a listing writes a thousand.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeviceJson {
    view: DeviceView,
    base_url: Arc<str>,
}

impl DeviceJson {
    /// Renders a device with absolute URLs under `base_url`.
    pub fn new(view: DeviceView, base_url: &str) -> Self {
        Self::under(view, Arc::from(base_url))
    }

    /// Renders a device under a base URL shared with others (a listing's).
    pub fn under(view: DeviceView, base_url: Arc<str>) -> Self {
        Self { view, base_url }
    }

    fn url(&self, tail: &'static str) -> DeviceUrl<'_> {
        DeviceUrl {
            base_url: &self.base_url,
            serial: self.view.device.serial.as_str(),
            tail,
        }
    }
}

impl Serialize for DeviceJson {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let DeviceView { device, online } = &self.view;
        let facts = &device.facts;
        let mut json = serializer.serialize_struct("Device", DEVICE_FIELDS.len())?;
        json.serialize_field("agent_version", facts.agent_version.as_str())?;
        json.serialize_field("created_time", ApiTime::new(device.created_time).as_str())?;
        json.serialize_field("description", device.description.as_str())?;
        json.serialize_field("disk_capacity", &facts.disk_capacity.map(Amount::get))?;
        json.serialize_field("disk_used", &facts.disk_used.map(Amount::get))?;
        let last_seen = device.last_seen.map(ApiTime::new);
        json.serialize_field("last_seen_time", &last_seen.as_ref().map(ApiTime::as_str))?;
        json.serialize_field("machine_type", facts.machine_type.code())?;
        json.serialize_field("machine_type_display", facts.machine_type.display_name())?;
        json.serialize_field("name", device.name.as_str())?;
        json.serialize_field("online", online)?;
        json.serialize_field("operating_system", facts.operating_system.as_str())?;
        json.serialize_field("ports_url", &self.url("ports/"))?;
        json.serialize_field("processor_speed", &facts.processor_speed.get())?;
        json.serialize_field("ram_capacity", &facts.ram_capacity.get())?;
        json.serialize_field("reboot_url", &self.url("reboot/"))?;
        json.serialize_field("serial", device.serial.as_str())?;
        json.serialize_field("tags", &TagNames(device.tags.as_slice()))?;
        json.serialize_field("uname", facts.uname.as_str())?;
        json.serialize_field("url", &self.url(""))?;
        json.serialize_field("wormhole_slug", &device.wormhole_slug)?;
        json.end()
    }
}

/// The answer of a device's detail and of its edits: the device written by
/// hand as [`DeviceJson::write_json`] does for listings, the very bytes
/// serde_json writes (a point read is the most frequent request).
impl Answer for DeviceJson {
    const REPLY: Reply = Json::<DeviceJson>::REPLY;

    fn respond(self, _req: &HttpRequest) -> HttpResponse {
        let mut body = Vec::with_capacity(ONE_DEVICE);
        self.write_json(&mut body);
        written_json(body)
    }
}

/// Room for one device's JSON without growing (about 700 bytes with no tags
/// and short texts).
const ONE_DEVICE: usize = 1024;

impl DeviceJson {
    /// Appends the device's JSON, the very bytes its [`Serialize`] writes
    /// through serde_json, field by field without serde's machinery.
    pub(crate) fn write_json(&self, out: &mut Vec<u8>) {
        let DeviceView { device, online } = &self.view;
        let facts = &device.facts;
        out.extend_from_slice(b"{\"agent_version\":");
        text::push_string(out, facts.agent_version.as_str());
        out.extend_from_slice(b",\"created_time\":");
        text::push_string(out, ApiTime::new(device.created_time).as_str());
        out.extend_from_slice(b",\"description\":");
        text::push_string(out, device.description.as_str());
        out.extend_from_slice(b",\"disk_capacity\":");
        text::push_optional_integer(out, facts.disk_capacity.map(Amount::get));
        out.extend_from_slice(b",\"disk_used\":");
        text::push_optional_integer(out, facts.disk_used.map(Amount::get));
        out.extend_from_slice(b",\"last_seen_time\":");
        let last_seen = device.last_seen.map(ApiTime::new);
        text::push_optional_string(out, last_seen.as_ref().map(ApiTime::as_str));
        out.extend_from_slice(b",\"machine_type\":");
        text::push_string(out, facts.machine_type.code());
        out.extend_from_slice(b",\"machine_type_display\":");
        text::push_string(out, facts.machine_type.display_name());
        out.extend_from_slice(b",\"name\":");
        text::push_string(out, device.name.as_str());
        out.extend_from_slice(b",\"online\":");
        text::push_bool(out, *online);
        out.extend_from_slice(b",\"operating_system\":");
        text::push_string(out, facts.operating_system.as_str());
        out.extend_from_slice(b",\"ports_url\":");
        self.url("ports/").write_json(out);
        out.extend_from_slice(b",\"processor_speed\":");
        text::push_integer(out, facts.processor_speed.get());
        out.extend_from_slice(b",\"ram_capacity\":");
        text::push_integer(out, facts.ram_capacity.get());
        out.extend_from_slice(b",\"reboot_url\":");
        self.url("reboot/").write_json(out);
        out.extend_from_slice(b",\"serial\":");
        text::push_string(out, device.serial.as_str());
        out.extend_from_slice(b",\"tags\":[");
        for (i, tag) in device.tags.as_slice().iter().enumerate() {
            if i > 0 {
                out.push(b',');
            }
            text::push_string(out, tag.as_str());
        }
        out.extend_from_slice(b"],\"uname\":");
        text::push_string(out, facts.uname.as_str());
        out.extend_from_slice(b",\"url\":");
        self.url("").write_json(out);
        out.extend_from_slice(b",\"wormhole_slug\":");
        text::push_string(out, &device.wormhole_slug);
        out.push(b'}');
    }
}

/// `{base}/devices/{serial}/{tail}`, written as a JSON string in place.
struct DeviceUrl<'a> {
    base_url: &'a str,
    serial: &'a str,
    tail: &'static str,
}

impl fmt::Display for DeviceUrl<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.base_url)?;
        f.write_str("/devices/")?;
        f.write_str(self.serial)?;
        f.write_str("/")?;
        f.write_str(self.tail)
    }
}

impl DeviceUrl<'_> {
    fn write_json(&self, out: &mut Vec<u8>) {
        let parts = [self.base_url, "/devices/", self.serial, "/", self.tail];
        text::push_joined(out, &parts);
    }
}

impl Serialize for DeviceUrl<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

/// A device's tags, as an array of their names.
struct TagNames<'a>(&'a [Tag]);

impl Serialize for TagNames<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.0.iter().map(Tag::as_str))
    }
}

impl Described for DeviceJson {
    const SCHEMA: &'static ObjectSchema = &DEVICE_SCHEMA;

    fn example() -> Self {
        let device = Device {
            serial: ex::serial(),
            owner: AccountId(1),
            name: DeviceName::parse(ex::DEVICE_NAME).expect("a valid name"),
            description: DeviceDescription::parse(ex::DEVICE_DESCRIPTION)
                .expect("a valid description"),
            wormhole_slug: ex::WORMHOLE_SLUG.to_owned(),
            facts: ex::facts(),
            tags: ex::tags(),
            last_seen: Some(ex::at(ex::ISSUED)),
            created_time: ex::at(ex::ISSUED),
        };
        Self::new(
            DeviceView {
                device,
                online: true,
            },
            BASE_URL,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::description::assert_described;
    use domain::{DeviceFacts, Serial};

    #[test]
    fn a_device_writes_exactly_the_twenty_described_fields() {
        let device = Device {
            serial: Serial::parse("0f8fad5b-d9cb-469f-a165-70867728950e").unwrap(),
            owner: AccountId(1),
            name: DeviceName::parse("lab").unwrap(),
            description: DeviceDescription::default(),
            wormhole_slug: "slug".into(),
            facts: DeviceFacts::default(),
            tags: domain::TagSet::default(),
            last_seen: None,
            created_time: chrono::DateTime::UNIX_EPOCH,
        };
        let json = DeviceJson::new(
            DeviceView {
                device,
                online: false,
            },
            "http://h",
        );
        assert_eq!(DEVICE_FIELDS.len(), 20);
        assert_described(&json);
    }

    #[test]
    fn a_device_is_written_by_hand_as_serde_json_writes_it() {
        let example = DeviceJson::example();
        let mut awkward = example.view.clone();
        awkward.device.name = DeviceName::parse("Küche \"west\"\\ \u{1F600}").unwrap();
        awkward.device.description = DeviceDescription::parse("line\nbreak\ttab").unwrap();
        awkward.device.facts.disk_capacity = None;
        awkward.device.last_seen = None;
        awkward.device.tags = domain::TagSet::default();
        awkward.online = false;
        for json in [
            example.clone(),
            DeviceJson::new(awkward, "http://h:8000/\"odd"),
        ] {
            let mut written = Vec::new();
            json.write_json(&mut written);
            assert_eq!(
                String::from_utf8(written).unwrap(),
                serde_json::to_string(&json).unwrap()
            );
        }
    }
}
