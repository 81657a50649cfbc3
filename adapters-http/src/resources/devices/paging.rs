//! The answer of `GET /devices/`: an array, or with `limit` a page as DRF's
//! `LimitOffsetPagination` writes it, links to the pages beside it included.

use super::device_json::DeviceJson;
use super::json::DEVICE_FIELDS;
use crate::answer::{Answer, written_json};
use crate::description::examples::BASE_URL;
use crate::description::{AnswerObject, Described, ObjectSchema, Reply, ReplyBody};
use crate::fields::{Field, FieldType};
use crate::json_text as text;
use actix_web::web::Bytes;
use actix_web::{HttpRequest, HttpResponse};
use application::ports::Window;
use serde::Serialize;
use std::collections::BTreeMap;

/// A page of devices.
pub const DEVICE_PAGE_SCHEMA: ObjectSchema = ObjectSchema {
    name: "DevicePage",
    description: "A page of the device list (the query had `limit`): how many devices match in all, the URLs of the next and the previous page (null at either end), and the page's devices.",
    fields: &[
        Field::read_only("count", "Count", FieldType::Integer).range(0, i64::MAX),
        Field::read_only("next", "Next", FieldType::Url).nullable(),
        Field::read_only("previous", "Previous", FieldType::Url).nullable(),
        Field::read_only("results", "Results", FieldType::List).children(DEVICE_FIELDS),
    ],
};

/// A page of devices as the API shows it.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct DevicePageJson {
    pub(super) count: u64,
    pub(super) next: Option<String>,
    pub(super) previous: Option<String>,
    pub(super) results: Vec<DeviceJson>,
}

impl Described for DevicePageJson {
    const SCHEMA: &'static ObjectSchema = &DEVICE_PAGE_SCHEMA;

    fn example() -> Self {
        let window = Window {
            limit: 50,
            offset: 50,
        };
        let (next, previous) = links(
            BASE_URL,
            "/devices/",
            "tag=kitchen&limit=50&offset=50",
            window,
            120,
        );
        Self {
            count: 120,
            next,
            previous,
            results: vec![DeviceJson::example()],
        }
    }
}

/// `GET /devices/`'s answer: every matching device, or a page of them.
pub enum DeviceListJson {
    /// Without `limit`.
    All(Vec<DeviceJson>),
    /// With `limit`.
    Page(DevicePageJson),
    /// Either, already written.
    Written(Bytes),
}

impl Answer for DeviceListJson {
    const REPLY: Reply = Reply {
        status: 200,
        body: ReplyBody::ManyOrPaged {
            item: AnswerObject::of::<DeviceJson>(),
            page: AnswerObject::of::<DevicePageJson>(),
        },
        location: None,
    };

    fn respond(self, _req: &HttpRequest) -> HttpResponse {
        written_json(self.into_bytes())
    }
}

impl DeviceListJson {
    /// The answer's JSON: what serde_json writes for the array or the page,
    /// each device by [`DeviceJson::write_json`].
    pub(super) fn into_bytes(self) -> Bytes {
        let body = match self {
            Self::Written(body) => return body,
            Self::All(devices) => {
                let mut out = Vec::with_capacity(sized_for(devices.len()));
                write_array(&mut out, &devices);
                out
            }
            Self::Page(page) => {
                let mut out = Vec::with_capacity(sized_for(page.results.len()));
                out.extend_from_slice(b"{\"count\":");
                text::push_integer(&mut out, page.count);
                out.extend_from_slice(b",\"next\":");
                text::push_optional_string(&mut out, page.next.as_deref());
                out.extend_from_slice(b",\"previous\":");
                text::push_optional_string(&mut out, page.previous.as_deref());
                out.extend_from_slice(b",\"results\":");
                write_array(&mut out, &page.results);
                out.push(b'}');
                out
            }
        };
        body.into()
    }
}

/// Appends the devices as a JSON array.
fn write_array(out: &mut Vec<u8>, devices: &[DeviceJson]) {
    out.push(b'[');
    for (i, device) in devices.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        device.write_json(out);
    }
    out.push(b']');
}

/// Room for the JSON of `devices` devices: about 700 bytes each with the
/// usual facts and URLs, more than most lists need.
fn sized_for(devices: usize) -> usize {
    devices.saturating_mul(768).saturating_add(256)
}

/// The `next` and `previous` links of the request's page.
pub(crate) fn page_links(
    base: &str,
    req: &HttpRequest,
    window: Window,
    count: u64,
) -> (Option<String>, Option<String>) {
    links(base, req.path(), req.query_string(), window, count)
}

/// DRF's links: the request's URL with `limit` and `offset` set, the other
/// parameters kept (sorted by name, as DRF writes them); no `next` past
/// the end, no `previous` at the start, no `offset` on the first page.
fn links(
    base: &str,
    path: &str,
    query: &str,
    window: Window,
    count: u64,
) -> (Option<String>, Option<String>) {
    let Window { limit, offset } = window;
    let mut params: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let pairs: Vec<(String, String)> = serde_urlencoded::from_str(query).unwrap_or_default();
    for (name, value) in pairs {
        params.entry(name).or_default().push(value);
    }
    params.insert("limit".to_owned(), vec![limit.to_string()]);
    let url = |params: &BTreeMap<String, Vec<String>>| {
        let query: Vec<String> = params
            .iter()
            .flat_map(|(name, values)| {
                values
                    .iter()
                    .map(move |value| format!("{}={}", quote_plus(name), quote_plus(value)))
            })
            .collect();
        format!("{base}{path}?{}", query.join("&"))
    };
    let end = offset.saturating_add(u64::from(limit));
    let next = (end < count).then(|| {
        let mut params = params.clone();
        params.insert("offset".to_owned(), vec![end.to_string()]);
        url(&params)
    });
    let previous = (offset > 0).then(|| {
        let mut params = params.clone();
        match offset.checked_sub(u64::from(limit)).filter(|&o| o > 0) {
            Some(before) => params.insert("offset".to_owned(), vec![before.to_string()]),
            None => params.remove("offset"),
        };
        url(&params)
    });
    (next, previous)
}

/// Python's `quote_plus`, as DRF's links encode parameters: letters, digits
/// and `_.-~` as they are, a space as `+`, every other byte `%XX`.
fn quote_plus(text: &str) -> String {
    let mut quoted = String::with_capacity(text.len());
    for byte in text.bytes() {
        match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'_' | b'.' | b'-' | b'~' => {
                quoted.push(char::from(byte));
            }
            b' ' => quoted.push('+'),
            other => quoted.push_str(&format!("%{other:02X}")),
        }
    }
    quoted
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::description::assert_described;

    fn window(limit: u32, offset: u64) -> Window {
        Window { limit, offset }
    }

    #[test]
    fn a_page_writes_its_described_fields() {
        assert_described(&DevicePageJson::example());
    }

    #[test]
    fn lists_and_pages_are_written_as_serde_json_writes_them() {
        let page = DevicePageJson::example();
        let devices = vec![DeviceJson::example(), DeviceJson::example()];
        let written = DeviceListJson::All(devices.clone()).into_bytes();
        assert_eq!(written, serde_json::to_vec(&devices).unwrap());
        for page in [
            page.clone(),
            DevicePageJson {
                next: None,
                previous: Some("http://h/devices/?limit=\"1".to_owned()),
                results: Vec::new(),
                ..page
            },
        ] {
            let expected = serde_json::to_vec(&page).unwrap();
            assert_eq!(DeviceListJson::Page(page).into_bytes(), expected);
        }
    }

    #[test]
    fn links_keep_the_other_parameters_sorted_and_encoded_as_drf_does() {
        let (next, previous) = links(
            "http://h",
            "/devices/",
            "tag=b&limit=2&search=a+b%3A%C3%A9&tag=a&offset=3",
            window(2, 3),
            10,
        );
        assert_eq!(
            next.as_deref(),
            Some("http://h/devices/?limit=2&offset=5&search=a+b%3A%C3%A9&tag=b&tag=a")
        );
        assert_eq!(
            previous.as_deref(),
            Some("http://h/devices/?limit=2&offset=1&search=a+b%3A%C3%A9&tag=b&tag=a")
        );
    }

    #[test]
    fn no_next_at_the_end_no_previous_at_the_start_no_offset_on_the_first_page() {
        assert_eq!(
            links("http://h", "/devices/", "limit=5", window(5, 0), 5),
            (None, None)
        );
        assert_eq!(
            links("http://h", "/devices/", "limit=5", window(5, 0), 6)
                .0
                .as_deref(),
            Some("http://h/devices/?limit=5&offset=5")
        );
        assert_eq!(
            links("http://h", "/devices/", "limit=5&offset=2", window(5, 2), 6),
            (None, Some("http://h/devices/?limit=5".to_owned()))
        );
        assert_eq!(
            links("http://h", "/devices/", "offset=5&limit=5", window(5, 5), 6)
                .1
                .as_deref(),
            Some("http://h/devices/?limit=5")
        );
        assert_eq!(
            links(
                "http://h",
                "/devices/",
                "limit=5&offset=40",
                window(5, 40),
                6
            )
            .1
            .as_deref(),
            Some("http://h/devices/?limit=5&offset=35")
        );
    }
}
