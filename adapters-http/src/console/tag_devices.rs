//! `/console/tag-devices/`: "Tag devices" on the fleet page's current
//! selection. The page first says how many devices the filters select (and
//! names the first few), with fields for the tags to add and to remove; its
//! form then changes them all, or none when one is refused, and leads back
//! to the same filtered view. Plain forms: it works without script.

use super::browser::Viewer;
use super::chrome::Chrome;
use super::failure::Failure;
use super::fleet_filters::FleetFilters;
use super::posted::Posted;
use super::respond::{render, see_other};
use super::selection::Selection;
use super::shown::Shown;
use super::tag_fields::parse_tags;
use crate::state::HttpState;
use actix_web::http::StatusCode;
use actix_web::web::{self, Data};
use actix_web::{HttpRequest, HttpResponse};
use application::Requester;
use application::use_cases::RetagError;
use askama::Template;
use domain::{Tag, TagChange};

/// The message when neither field names a tag (the API's).
const NO_CHANGE: &str = "Give tags to add or to remove.";

/// The message when a device would carry too many tags (the API's).
const TOO_MANY: &str = "A device would have more than 20 tags.";

/// Mounts the page and its form.
pub(super) fn mount(config: &mut web::ServiceConfig) {
    config.service(
        web::resource("/tag-devices/")
            .route(web::get().to(preview))
            .route(web::post().to(apply)),
    );
}

/// The page.
#[derive(Template)]
#[template(path = "console/tag_devices.html")]
struct TagDevicesPage {
    chrome: Chrome,
    selection: Selection,
    add: String,
    remove: String,
    errors: Shown,
}

/// The page for the selection of `filters`, with what was typed and its errors.
async fn page(
    state: &HttpState,
    viewer: &Viewer,
    filters: FleetFilters,
    typed: (String, String),
    errors: Shown,
) -> Result<TagDevicesPage, Failure> {
    Ok(TagDevicesPage {
        chrome: viewer.browser.chrome("Tag devices", "devices"),
        selection: Selection::of(state, viewer, filters).await?,
        add: typed.0,
        remove: typed.1,
        errors,
    })
}

async fn preview(
    req: HttpRequest,
    state: Data<HttpState>,
    viewer: Viewer,
) -> Result<HttpResponse, Failure> {
    let filters = FleetFilters::from_query(req.query_string());
    let page = page(&state, &viewer, filters, Default::default(), Shown::none()).await?;
    Ok(render(StatusCode::OK, &page, None))
}

/// The tags typed in the form, or their errors (added to `errors`).
fn change_of(posted: &Posted, errors: &mut Shown) -> Option<TagChange> {
    let mut read = |field: &str| match parse_tags(&posted.text(field)) {
        Ok(tags) => Some(tags),
        Err(messages) => {
            for message in messages {
                errors.add(field, message);
            }
            None
        }
    };
    let (add, remove): (Option<Vec<Tag>>, Option<Vec<Tag>>) = (read("add"), read("remove"));
    let (add, remove) = (add?, remove?);
    if add.is_empty() && remove.is_empty() {
        errors.add_general(NO_CHANGE);
        return None;
    }
    Some(TagChange { remove, add })
}

/// Changes the tags of the selected devices; how many were selected, or
/// the refusal beside the form.
async fn retag(
    state: &HttpState,
    by: Requester<'_>,
    filters: &FleetFilters,
    change: &TagChange,
    errors: &mut Shown,
) -> Result<Option<u64>, Failure> {
    let devices = &state.app.devices;
    match devices.retag(by, &filters.selector(), change).await {
        Ok(count) => Ok(Some(count)),
        Err(RetagError::TooManyTags) => {
            errors.add("add", TOO_MANY);
            Ok(None)
        }
        Err(RetagError::Store(error)) => Err(error.into()),
    }
}

async fn apply(
    state: Data<HttpState>,
    viewer: Viewer,
    posted: Posted,
) -> Result<HttpResponse, Failure> {
    let filters = Selection::posted_filters(&posted);
    let mut errors = Shown::none();
    if let Some(change) = change_of(&posted, &mut errors)
        && let Some(count) =
            retag(&state, viewer.requester(), &filters, &change, &mut errors).await?
    {
        let back = filters.url("/console/", 1);
        let joint = if back.contains('?') { '&' } else { '?' };
        return Ok(see_other(&format!(
            "{back}{joint}notice=tagged&tagged={count}"
        )));
    }
    let typed = (posted.text("add"), posted.text("remove"));
    let page = page(&state, &viewer, filters, typed, errors).await?;
    Ok(render(StatusCode::BAD_REQUEST, &page, None))
}
