//! The pages of jobs and of a job's targets (DRF's `LimitOffsetPagination`,
//! `limit` defaulting to 100), and the `{id}` of a job's paths.

use super::json::{JOB_FIELDS, JobJson, TARGET_FIELDS, TargetJson, job_url};
use crate::description::examples::BASE_URL;
use crate::description::{Described, ObjectSchema, Parameter};
use crate::error::ApiError;
use crate::extract::{Extractor, Needs};
use crate::fields::{Field, FieldType, Form, FromForm, Rejected};
use crate::resources::devices::page_links;
use actix_web::dev::Payload;
use actix_web::{FromRequest, HttpRequest};
use application::ports::Window;
use domain::JobId;
use serde::Serialize;
use std::future::{Ready, ready};

/// The page size without `limit`.
const DEFAULT_LIMIT: u32 = 100;

const LIMIT: Field = Field::integer("limit", "Limit").optional().range(1, 1000);
const OFFSET: Field = Field::integer("offset", "Offset")
    .optional()
    .range(0, i64::MAX);

/// The paging parameters, as the OpenAPI document shows them.
pub(super) const PAGING: [Parameter; 2] = [
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

/// The `{id}` of a job's paths: a lowercase hyphenated UUID, else 404.
pub struct JobIdPath(pub JobId);

impl FromRequest for JobIdPath {
    type Error = ApiError;
    type Future = Ready<Result<Self, ApiError>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        ready(
            req.match_info()
                .get("id")
                .and_then(|raw| JobId::parse(raw).ok())
                .map(JobIdPath)
                .ok_or(ApiError::NotFound),
        )
    }
}

impl Extractor for JobIdPath {
    const NEEDS: Needs = Needs::NOTHING;
}

/// The `{id}` of a job's paths, as the OpenAPI document shows it.
pub(super) const JOB_ID: Parameter = Parameter {
    name: "id",
    description: "The job's id (a lowercase UUID), as in its `url`.",
    format: Some("uuid"),
    example: || super::json::EXAMPLE_JOB_ID.into(),
};

/// The fields of a page whose items have `fields`.
macro_rules! page_fields {
    ($fields:expr) => {
        &[
            Field::read_only("count", "Count", FieldType::Integer).range(0, i64::MAX),
            Field::read_only("next", "Next", FieldType::Url).nullable(),
            Field::read_only("previous", "Previous", FieldType::Url).nullable(),
            Field::read_only("results", "Results", FieldType::List).children($fields),
        ]
    };
}

/// A page of jobs.
pub const JOB_PAGE_SCHEMA: ObjectSchema = ObjectSchema {
    name: "JobPage",
    description: "A page of the account's jobs, newest first: how many jobs there are in all, the URLs of the next and the previous page (null at either end), and the page's jobs.",
    fields: page_fields!(JOB_FIELDS),
};

/// A page of a job's targets.
pub const TARGET_PAGE_SCHEMA: ObjectSchema = ObjectSchema {
    name: "JobTargetPage",
    description: "A page of a job's targets, by wave then list order: how many targets it has, the URLs of the next and the previous page (null at either end), and the page's targets.",
    fields: page_fields!(TARGET_FIELDS),
};

/// A page as the API shows it.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct PageJson<T> {
    count: u64,
    next: Option<String>,
    previous: Option<String>,
    results: Vec<T>,
}

impl<T> PageJson<T> {
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
}

/// The links of an example page: the second of three.
fn example_links(path: &str) -> (Option<String>, Option<String>) {
    let page = |offset: u32| Some(format!("{BASE_URL}{path}?limit=1&offset={offset}"));
    (page(2), Some(format!("{BASE_URL}{path}?limit=1")))
}

impl Described for PageJson<JobJson> {
    const SCHEMA: &'static ObjectSchema = &JOB_PAGE_SCHEMA;

    fn example() -> Self {
        let (next, previous) = example_links("/jobs/");
        Self {
            count: 3,
            next,
            previous,
            results: vec![JobJson::example()],
        }
    }
}

impl Described for PageJson<TargetJson> {
    const SCHEMA: &'static ObjectSchema = &TARGET_PAGE_SCHEMA;

    fn example() -> Self {
        let path = job_url("", super::json::EXAMPLE_JOB_ID) + "targets/";
        let (next, previous) = example_links(&path);
        Self {
            count: 3,
            next,
            previous,
            results: vec![TargetJson::example()],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::description::assert_described;

    #[test]
    fn pages_write_their_described_fields() {
        assert_described(&PageJson::<JobJson>::example());
        assert_described(&PageJson::<TargetJson>::example());
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
