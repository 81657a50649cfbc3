//! The fleet: the account's tags, a selector's preview and tagging every
//! selected device at once (`docs/api.md`, "Fleet").

mod json;

use json::EXAMPLE_TAG;

pub use json::{
    MATCHED_SCHEMA, MatchedJson, SELECTION_SCHEMA, SelectionJson, TAG_COUNT_SCHEMA, TagCountJson,
};

use crate::answer::Json;
use crate::description::Tag;
use crate::error::{ApiError, NON_FIELD_ERRORS};
use crate::extract::{BaseUrl, User, Valid};
use crate::fields::selector::selector_json;
use crate::fields::{Field, Form, FromForm, Rejected, ToForm, form_of};
use crate::route::Route;
use crate::state::HttpState;
use actix_web::web::Data;
use application::use_cases::RetagError;
use domain::{Criteria, Selector, TagChange};
use serde_json::{Map, Value};

/// The message for a bulk tagging that names no tag.
const GIVE_TAGS: &str = "Give tags to add or to remove.";

/// The message for a bulk tagging that would leave a device over the limit.
const TOO_MANY_TAGS: &str = "A device would have more than 20 tags.";

/// `selector` of a body.
const SELECTOR: Field = Field::selector("selector", "Selector");
/// `add` of a bulk tagging.
const ADD: Field = Field::tags("add", "Add");
/// `remove` of a bulk tagging.
const REMOVE: Field = Field::tags("remove", "Remove");

/// The routes of this resource.
pub fn routes() -> Vec<Route> {
    vec![
        Route::new(
            Tag::Devices,
            "/tags/",
            "Tag List",
            "Every tag on at least one of the account's devices, by name, with how many\nof its devices carry it.",
        )
        .get("listTags", "List the account's tags", tags),
        Route::new(
            Tag::Devices,
            "/devices/select/",
            "Device Select",
            "Preview a selector: how many of the account's devices it selects now, and\nthe first 100 of them, oldest first. Each criterion given must hold; with\nnone, `\"all\": true` selects every device.",
        )
        .post("selectDevices", "Preview the devices a selector selects", select)
        .request_example(Selection(example_selector())),
        Route::new(
            Tag::Devices,
            "/devices/tags/",
            "Device Tags",
            "Change the tags of every device a selector selects, all or nothing: each\nloses the `remove` tags, then gains the `add` tags. A device that would carry\nmore than 20 tags refuses the whole change (400 under `add`).",
        )
        .post("retagDevices", "Add and remove tags on the selected devices", retag)
        .request_example(Retag {
            selector: example_selector(),
            change: TagChange {
                remove: vec![example_tag("firmware:2.0")],
                add: vec![example_tag("firmware:2.1")],
            },
        }),
    ]
}

fn example_tag(tag: &str) -> domain::Tag {
    domain::Tag::parse(tag).expect("a valid tag")
}

/// The examples' selector: the online devices tagged `lab`.
fn example_selector() -> Selector {
    Selector::Matching(Criteria {
        tags: vec![example_tag(EXAMPLE_TAG)],
        online: Some(true),
        ..Criteria::default()
    })
}

/// A preview's body: the selector.
pub struct Selection(Selector);

impl FromForm for Selection {
    const FIELDS: &'static [Field] = &[SELECTOR];

    fn from_form(form: &mut Form) -> Result<Self, Rejected> {
        form.selector(&SELECTOR).map(Self)
    }
}

impl ToForm for Selection {
    fn to_form(&self) -> Map<String, Value> {
        form_of([(&SELECTOR, selector_json(&self.0))])
    }
}

/// A bulk tagging's body: the selector, and the tags to take off and put on.
pub struct Retag {
    selector: Selector,
    change: TagChange,
}

impl FromForm for Retag {
    const FIELDS: &'static [Field] = &[SELECTOR, ADD, REMOVE];

    fn from_form(form: &mut Form) -> Result<Self, Rejected> {
        let selector = form.selector(&SELECTOR);
        let add = form.optional_tags(&ADD);
        let remove = form.optional_tags(&REMOVE);
        let (selector, add, remove) = (selector?, add?, remove?);
        let tags = |set: Option<domain::TagSet>| set.map(|s| s.as_slice().to_vec());
        let change = TagChange {
            remove: tags(remove).unwrap_or_default(),
            add: tags(add).unwrap_or_default(),
        };
        if change.add.is_empty() && change.remove.is_empty() {
            return Err(form.error(NON_FIELD_ERRORS, GIVE_TAGS));
        }
        Ok(Self { selector, change })
    }
}

impl ToForm for Retag {
    fn to_form(&self) -> Map<String, Value> {
        let names = |tags: &[domain::Tag]| -> Value {
            tags.iter().map(|tag| Value::from(tag.as_str())).collect()
        };
        form_of([
            (&SELECTOR, selector_json(&self.selector)),
            (&ADD, names(&self.change.add)),
            (&REMOVE, names(&self.change.remove)),
        ])
    }
}

/// `GET /tags/`.
async fn tags(state: Data<HttpState>, user: User) -> Result<Json<Vec<TagCountJson>>, ApiError> {
    let counts = state.app.devices.tags(&user.account).await?;
    Ok(Json(counts.iter().map(TagCountJson::from).collect()))
}

/// `POST /devices/select/`.
async fn select(
    state: Data<HttpState>,
    user: User,
    BaseUrl(base): BaseUrl,
    Valid(Selection(selector)): Valid<Selection>,
) -> Result<Json<SelectionJson>, ApiError> {
    let page = state.app.devices.select(&user.account, selector).await?;
    Ok(Json(SelectionJson::new(page, &base)))
}

/// `POST /devices/tags/`: all or nothing.
async fn retag(
    state: Data<HttpState>,
    user: User,
    Valid(Retag { selector, change }): Valid<Retag>,
) -> Result<Json<MatchedJson>, ApiError> {
    match state
        .app
        .devices
        .retag(user.requester(), &selector, &change)
        .await
    {
        Ok(matched) => Ok(Json(MatchedJson::new(matched))),
        Err(RetagError::TooManyTags) => Err(ApiError::field(ADD.name, TOO_MANY_TAGS)),
        Err(RetagError::Store(error)) => Err(error.into()),
    }
}

#[cfg(test)]
mod tests;
