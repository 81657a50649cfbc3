//! What the paged lists of jobs, targets, monitors, alerts, webhooks,
//! deliveries and audit entries share: the page a query asks for and the
//! page answered (DRF's `LimitOffsetPagination`, `limit` defaulting to
//! 100), the paging parameters as the OpenAPI document shows them, and the
//! `{id}` of their paths (a lowercase UUID, else 404).

use crate::description::Parameter;
use crate::description::examples::BASE_URL;
use crate::error::ApiError;
use crate::extract::{Extractor, Needs};
use crate::fields::{Field, Form, FromForm, Rejected};
use crate::resources::devices::page_links;
use actix_web::dev::Payload;
use actix_web::{FromRequest, HttpRequest};
use application::ports::Window;
use domain::{AlertId, JobId, MonitorId, WebhookId};
use serde::Serialize;
use std::future::{Ready, ready};

/// The page size without `limit`.
const DEFAULT_LIMIT: u32 = 100;

const LIMIT: Field = Field::integer("limit", "Limit").optional().range(1, 1000);
const OFFSET: Field = Field::integer("offset", "Offset")
    .optional()
    .range(0, i64::MAX);

/// The page a list's query asks for.
pub struct PageQuery(pub Window);

impl FromForm for PageQuery {
    const FIELDS: &'static [Field] = &[LIMIT, OFFSET];

    fn from_form(form: &mut Form) -> Result<Self, Rejected> {
        let limit = form.optional_integer::<u32>(&LIMIT);
        let offset = form.optional_integer::<u64>(&OFFSET);
        Ok(Self(Window {
            limit: limit?.unwrap_or(DEFAULT_LIMIT),
            offset: offset?.unwrap_or(0),
        }))
    }
}

/// The paging parameters, as the OpenAPI document shows them.
pub(crate) const PAGING: [Parameter; 2] = [
    Parameter {
        name: "limit",
        description: "At most this many in the page (1–1000, default 100).",
        format: None,
        example: || 50.into(),
    },
    Parameter {
        name: "offset",
        description: "How many of the list to skip (default 0).",
        format: None,
        example: || 100.into(),
    },
];

/// The fields of a page whose items have `fields`.
macro_rules! page_fields {
    ($fields:expr) => {
        &[
            $crate::fields::Field::read_only("count", "Count", $crate::fields::FieldType::Integer)
                .range(0, i64::MAX),
            $crate::fields::Field::read_only("next", "Next", $crate::fields::FieldType::Url)
                .nullable(),
            $crate::fields::Field::read_only(
                "previous",
                "Previous",
                $crate::fields::FieldType::Url,
            )
            .nullable(),
            $crate::fields::Field::read_only("results", "Results", $crate::fields::FieldType::List)
                .children($fields),
        ]
    };
}
pub(crate) use page_fields;

/// A page as the API shows it.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Page<T> {
    count: u64,
    next: Option<String>,
    previous: Option<String>,
    results: Vec<T>,
}

impl<T> Page<T> {
    /// The page of `results` at `window` of `count` in all, linked to the
    /// pages beside it as the request asked.
    pub fn new(req: &HttpRequest, base: &str, window: Window, count: u64, results: Vec<T>) -> Self {
        let (next, previous) = page_links(base, req, window, count);
        Self {
            count,
            next,
            previous,
            results,
        }
    }

    /// An example: the second page of three, one item long, of `path`.
    pub(crate) fn sample(path: &str, item: T) -> Self {
        let page = |offset: u32| Some(format!("{BASE_URL}{path}?limit=1&offset={offset}"));
        Self {
            count: 3,
            next: page(2),
            previous: Some(format!("{BASE_URL}{path}?limit=1")),
            results: vec![item],
        }
    }
}

/// An id that names a resource in a path: only its lowercase form.
pub trait PathId: Sized + 'static {
    /// The id `text` is, if written in its canonical form.
    fn from_path(text: &str) -> Option<Self>;
}

macro_rules! path_ids {
    ($($id:ty),+) => {
        $(impl PathId for $id {
            fn from_path(text: &str) -> Option<Self> {
                <$id>::parse(text).ok()
            }
        })+
    };
}
path_ids!(JobId, MonitorId, AlertId, WebhookId);

/// The `{id}` of a path: a lowercase hyphenated UUID, else 404 (as a
/// missing or another account's id is).
pub struct IdPath<I>(pub I);

impl<I: PathId> FromRequest for IdPath<I> {
    type Error = ApiError;
    type Future = Ready<Result<Self, ApiError>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        ready(
            req.match_info()
                .get("id")
                .and_then(I::from_path)
                .map(IdPath)
                .ok_or(ApiError::NotFound),
        )
    }
}

impl<I: PathId> Extractor for IdPath<I> {
    const NEEDS: Needs = Needs::NOTHING;
}

/// The `{id}` of a resource's paths, as the OpenAPI document shows it.
pub(crate) const fn id_parameter(
    description: &'static str,
    example: fn() -> serde_json::Value,
) -> Parameter {
    Parameter {
        name: "id",
        description,
        format: Some("uuid"),
        example,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_lowercase_form_names_a_resource() {
        let id = "3f6c2a9e-8b1d-4e7a-9c5f-0d2b4a6e8f10";
        assert!(MonitorId::from_path(id).is_some());
        assert!(WebhookId::from_path(&id.to_uppercase()).is_none());
        assert!(AlertId::from_path("3f6c2a9e8b1d4e7a9c5f0d2b4a6e8f10").is_none());
        assert!(AlertId::from_path("x").is_none());
    }

    #[test]
    fn an_example_page_links_to_the_pages_beside_it() {
        let page = Page::sample("/alerts/", 1);
        let json = serde_json::to_value(&page).unwrap();
        assert_eq!(
            json["next"],
            "http://127.0.0.1:8000/alerts/?limit=1&offset=2"
        );
        assert_eq!(json["previous"], "http://127.0.0.1:8000/alerts/?limit=1");
        assert_eq!(json["results"], serde_json::json!([1]));
    }

    #[test]
    fn a_page_is_100_long_from_the_start_unless_asked() {
        let read = |body: serde_json::Value| {
            let mut form = Form::new(body.as_object().cloned().unwrap());
            PageQuery::from_form(&mut form).ok().map(|page| page.0)
        };
        let window = |limit, offset| Some(Window { limit, offset });
        assert_eq!(read(serde_json::json!({})), window(100, 0));
        assert_eq!(
            read(serde_json::json!({"limit": 5, "offset": 10})),
            window(5, 10)
        );
        assert_eq!(read(serde_json::json!({"limit": 0})), None);
        assert_eq!(read(serde_json::json!({"limit": 1001})), None);
        assert_eq!(read(serde_json::json!({"offset": -1})), None);
    }
}
