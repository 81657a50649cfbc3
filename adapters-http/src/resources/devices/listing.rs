//! `GET /devices/`: the account's devices, filtered, ordered and, when the
//! query has `limit`, paged (`docs/api.md`, "List devices").

use super::device_json::DeviceJson;
use super::paging::{DeviceListJson, DevicePageJson, page_links};
use crate::description::Parameter;
use crate::description::examples as ex;
use crate::error::ApiError;
use crate::extract::{BaseUrl, Query, User};
use crate::fields::{Field, FieldType, Form, FromForm, Rejected, SearchFilter};
use crate::kept_listings::{AnswerKey, KeptAnswer};
use crate::state::HttpState;
use actix_web::HttpRequest;
use actix_web::web::Data;
use application::ports::Window;
use application::use_cases::{DeviceView, Listing, Relisted};
use domain::{Criteria, DeviceOrdering, MachineType, Selector};
use serde_json::json;
use std::sync::Arc;

/// The values `ordering` takes.
const ORDERINGS: [&str; 6] = [
    "name",
    "-name",
    "created_time",
    "-created_time",
    "last_seen_time",
    "-last_seen_time",
];

const SEARCH: Field = Field::text("search", "Search").optional().blank_ok();
const ONLINE: Field = Field {
    kind: FieldType::Boolean,
    ..Field::text("online", "Online").optional()
};
const TAG: Field = Field::tags("tag", "Tag");
const MACHINE_TYPE: Field = Field::text("machine_type", "Machine type")
    .optional()
    .choices(&MachineType::CODES);
const ORDERING: Field = Field::text("ordering", "Ordering")
    .optional()
    .choices(&ORDERINGS);
const LIMIT: Field = Field::integer("limit", "Limit").optional().range(1, 1000);
const OFFSET: Field = Field::integer("offset", "Offset")
    .optional()
    .range(0, i64::MAX);

/// The query parameters of `GET /devices/`, as the OpenAPI document shows them.
pub(super) const PARAMETERS: [Parameter; 7] = [
    Parameter {
        name: "search",
        description: "Devices whose name, description or serial contains this text, ignoring case (empty: no filter).",
        format: None,
        example: || "kitchen".into(),
    },
    Parameter {
        name: "online",
        description: "Only devices online (`true`) or offline (`false`).",
        format: None,
        example: || true.into(),
    },
    Parameter {
        name: "tag",
        description: "Only devices carrying this tag (any letter case); repeat it for devices carrying every tag given. A value that is no valid tag matches no device.",
        format: None,
        example: || json!([ex::TAGS[0]]),
    },
    Parameter {
        name: "machine_type",
        description: "Only devices of this machine type (its code).",
        format: None,
        example: || ex::MACHINE_TYPE.into(),
    },
    Parameter {
        name: "ordering",
        description: "The order: `name` (by code point), `created_time` or `last_seen_time` (never seen first), with `-` before it for descending; ties by creation time, then serial.",
        format: None,
        example: || "-last_seen_time".into(),
    },
    Parameter {
        name: "limit",
        description: "Page the list: at most this many devices (1–1000), in a page object `{count, next, previous, results}` instead of an array.",
        format: None,
        example: || 50.into(),
    },
    Parameter {
        name: "offset",
        description: "With `limit`: how many devices of the list to skip (default 0).",
        format: None,
        example: || 100.into(),
    },
];

/// What `GET /devices/` asks for.
pub struct DeviceListQuery {
    /// The filter, or `None` when one of the filters can match no device.
    criteria: Option<Criteria>,
    ordering: DeviceOrdering,
    window: Option<Window>,
}

impl FromForm for DeviceListQuery {
    const FIELDS: &'static [Field] = &[SEARCH, ONLINE, TAG, MACHINE_TYPE, ORDERING, LIMIT, OFFSET];

    fn from_form(form: &mut Form) -> Result<Self, Rejected> {
        let search = form.filter_search(&SEARCH);
        let tags = form.filter_tags(&TAG);
        let online = form.filter_boolean(&ONLINE);
        let machine_type = form.optional_choice(&MACHINE_TYPE, MachineType::from_code);
        let ordering = form.optional_choice(&ORDERING, DeviceOrdering::parse);
        let limit = form.optional_integer::<u32>(&LIMIT);
        let offset = form.optional_integer::<u64>(&OFFSET);
        let (online, machine_type, ordering) = (online?, machine_type?, ordering?);
        let (limit, offset) = (limit?, offset?);
        let criteria = match (search, tags) {
            (SearchFilter::Nothing, _) | (_, None) => None,
            (search, Some(tags)) => Some(Criteria {
                tags,
                online,
                machine_type,
                search: match search {
                    SearchFilter::Matching(search) => Some(search),
                    _ => None,
                },
                ..Criteria::default()
            }),
        };
        Ok(Self {
            criteria,
            ordering: ordering.unwrap_or_default(),
            window: limit.map(|limit| Window {
                limit,
                offset: offset.unwrap_or(0),
            }),
        })
    }
}

/// `GET /devices/`: every matching device as an array, or a page of them
/// when the query has `limit`. An answer the application stamps is kept,
/// and sent again while the application finds its listing unchanged.
pub(super) async fn list(
    state: Data<HttpState>,
    user: User,
    req: HttpRequest,
    BaseUrl(base): BaseUrl,
    Query(query): Query<DeviceListQuery>,
) -> Result<DeviceListJson, ApiError> {
    let Some(criteria) = query.criteria else {
        return Ok(answer(&base, &req, query.window, 0, Vec::new()));
    };
    let listing = Listing {
        selector: Selector::filtering(criteria),
        ordering: query.ordering,
        window: query.window,
    };
    let key = AnswerKey::of(user.account.id, &base, &req);
    let kept = state
        .kept_listings
        .get(&key)
        .map(|kept| (kept.stamp, kept.body));
    let relisted = state
        .app
        .devices
        .query_since(&user.account, listing, kept)
        .await?;
    Ok(match relisted {
        Relisted::Unchanged(body) => DeviceListJson::Written(body),
        Relisted::Read { page, stamp } => {
            let answer = answer(&base, &req, query.window, page.count, page.views);
            match stamp {
                None => answer,
                Some(stamp) => {
                    let body = answer.into_bytes();
                    let kept = KeptAnswer {
                        stamp,
                        body: body.clone(),
                    };
                    state.kept_listings.keep(key, kept);
                    DeviceListJson::Written(body)
                }
            }
        }
    })
}

/// The answer listing `views` of the `count` selected, paged when the
/// query had a window.
fn answer(
    base: &str,
    req: &HttpRequest,
    window: Option<Window>,
    count: u64,
    views: Vec<DeviceView>,
) -> DeviceListJson {
    let shared: Arc<str> = Arc::from(base);
    let devices = views
        .into_iter()
        .map(|view| DeviceJson::under(view, Arc::clone(&shared)))
        .collect();
    match window {
        None => DeviceListJson::All(devices),
        Some(window) => {
            let (next, previous) = page_links(base, req, window, count);
            DeviceListJson::Page(DevicePageJson {
                count,
                next,
                previous,
                results: devices,
            })
        }
    }
}
