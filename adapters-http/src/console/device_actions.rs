//! What the device page's buttons do: reboot and delete (each confirmed
//! first: a dialog with script, a page of its own without), and edit (the
//! name, the description and the tags).

use super::browser::Viewer;
use super::chrome::Chrome;
use super::device::device_of;
use super::failure::Failure;
use super::notices;
use super::posted::Posted;
use super::respond::{render, see_other};
use super::shown::Shown;
use super::tag_fields::{parse_tags, typed};
use super::views::tag_texts;
use crate::error::ApiError;
use crate::resources::devices::DeviceReplacement;
use crate::state::HttpState;
use actix_web::HttpResponse;
use actix_web::http::StatusCode;
use actix_web::web::{self, Data};
use application::ports::DeviceChanges;
use askama::Template;
use domain::TagSet;

/// Mounts the reboot, edit and delete routes of a device.
pub(super) fn mount(config: &mut web::ServiceConfig) {
    config
        .service(
            web::resource("/devices/{serial}/reboot/")
                .route(web::get().to(confirm_reboot))
                .route(web::post().to(reboot)),
        )
        .service(
            web::resource("/devices/{serial}/edit/")
                .route(web::get().to(show_edit))
                .route(web::post().to(edit)),
        )
        .service(
            web::resource("/devices/{serial}/delete/")
                .route(web::get().to(confirm_delete))
                .route(web::post().to(delete)),
        );
}

/// A confirmation page (without script; with it, a dialog asks instead).
#[derive(Template)]
#[template(path = "console/confirm.html")]
struct ConfirmPage {
    chrome: Chrome,
    serial: String,
    question: String,
    explanation: &'static str,
    action: &'static str,
    button: &'static str,
    danger: bool,
}

/// The edit page.
#[derive(Template)]
#[template(path = "console/edit.html")]
struct EditPage {
    chrome: Chrome,
    serial: String,
    name: String,
    description: String,
    /// The tags, separated by spaces.
    tags: String,
    errors: Shown,
}

/// What a confirmation asks, for one action.
struct Question {
    /// The verb, before the device's name: "Reboot".
    verb: &'static str,
    explanation: &'static str,
    /// The path segment the confirmed form posts to.
    action: &'static str,
    button: &'static str,
    danger: bool,
}

const REBOOT: Question = Question {
    verb: "Reboot",
    explanation: "The device reboots when its agent next checks in; it is offline for a moment.",
    action: "reboot",
    button: "Reboot now",
    danger: false,
};

const DELETE: Question = Question {
    verb: "Delete",
    explanation: "The device and its command history are deleted, and its agent can no longer connect. To add it again, install the agent again.",
    action: "delete",
    button: "Delete",
    danger: true,
};

/// The confirmation page of `question` for the device in the path.
async fn confirmation(
    state: &HttpState,
    viewer: &Viewer,
    path: &str,
    question: &Question,
) -> Result<HttpResponse, Failure> {
    let view = device_of(state, &viewer.account, path).await?;
    let name = view.device.name.as_str();
    let page = ConfirmPage {
        chrome: viewer
            .browser
            .chrome(format!("{} {name}", question.verb), "devices"),
        serial: view.device.serial.as_str().to_owned(),
        question: format!("{} {name}?", question.verb),
        explanation: question.explanation,
        action: question.action,
        button: question.button,
        danger: question.danger,
    };
    Ok(render(StatusCode::OK, &page, None))
}

async fn confirm_reboot(
    state: Data<HttpState>,
    viewer: Viewer,
    path: web::Path<String>,
) -> Result<HttpResponse, Failure> {
    confirmation(&state, &viewer, &path, &REBOOT).await
}

async fn confirm_delete(
    state: Data<HttpState>,
    viewer: Viewer,
    path: web::Path<String>,
) -> Result<HttpResponse, Failure> {
    confirmation(&state, &viewer, &path, &DELETE).await
}

async fn reboot(
    state: Data<HttpState>,
    viewer: Viewer,
    path: web::Path<String>,
    _form: Posted,
) -> Result<HttpResponse, Failure> {
    let view = device_of(&state, &viewer.account, &path).await?;
    let serial = &view.device.serial;
    state
        .app
        .devices
        .reboot(viewer.requester(), serial)
        .await
        .map_err(ApiError::from)?;
    Ok(see_other(&notices::after(
        &format!("/console/devices/{serial}/"),
        "rebooted",
    )))
}

async fn delete(
    state: Data<HttpState>,
    viewer: Viewer,
    path: web::Path<String>,
    _form: Posted,
) -> Result<HttpResponse, Failure> {
    let view = device_of(&state, &viewer.account, &path).await?;
    if !state
        .app
        .devices
        .delete(viewer.requester(), &view.device.serial)
        .await?
    {
        return Err(Failure::NotFound);
    }
    Ok(see_other(&notices::after("/console/", "deleted")))
}

async fn show_edit(
    state: Data<HttpState>,
    viewer: Viewer,
    path: web::Path<String>,
) -> Result<HttpResponse, Failure> {
    let view = device_of(&state, &viewer.account, &path).await?;
    let device = &view.device;
    let page = EditPage {
        chrome: viewer
            .browser
            .chrome(format!("Edit {}", device.name.as_str()), "devices"),
        serial: device.serial.as_str().to_owned(),
        name: device.name.as_str().to_owned(),
        description: device.description.as_str().to_owned(),
        tags: typed(&tag_texts(&device.tags)),
        errors: Shown::none(),
    };
    Ok(render(StatusCode::OK, &page, None))
}

async fn edit(
    state: Data<HttpState>,
    viewer: Viewer,
    path: web::Path<String>,
    posted: Posted,
) -> Result<HttpResponse, Failure> {
    let view = device_of(&state, &viewer.account, &path).await?;
    let serial = view.device.serial.clone();
    let again = |errors: Shown, status: StatusCode| {
        let page = EditPage {
            chrome: viewer
                .browser
                .chrome(format!("Edit {}", view.device.name.as_str()), "devices"),
            serial: serial.as_str().to_owned(),
            name: posted.text("name"),
            description: posted.text("description"),
            tags: posted.text("tags"),
            errors,
        };
        render(status, &page, None)
    };
    let (changes, tags) = match read_edit(&posted) {
        Ok(read) => read,
        Err(errors) => return Ok(again(errors, StatusCode::BAD_REQUEST)),
    };
    let changes = DeviceChanges {
        tags: Some(tags),
        ..changes
    };
    match state
        .app
        .devices
        .update(viewer.requester(), &serial, changes)
        .await
    {
        Ok(_) => Ok(see_other(&notices::after(
            &format!("/console/devices/{serial}/"),
            "saved",
        ))),
        Err(error) => {
            let error = ApiError::from(error);
            let (errors, status) = Shown::refusal(error)?;
            Ok(again(errors, status))
        }
    }
}

/// The edit form's name and description (read as the API reads them) and
/// its tags (typed in one field), or every error at once.
fn read_edit(posted: &Posted) -> Result<(DeviceChanges, TagSet), Shown> {
    let replacement = posted.read_without::<DeviceReplacement>(&["tags"]);
    let tags = parse_tags(&posted.text("tags"));
    match (replacement, tags) {
        (Ok(DeviceReplacement(changes)), Ok(tags)) => {
            let tags = TagSet::new(tags).map_err(|_| {
                let mut errors = Shown::none();
                errors.add("tags", super::tag_fields::TOO_MANY_TAGS);
                errors
            })?;
            Ok((changes, tags))
        }
        (replacement, tags) => {
            let mut errors = replacement.err().unwrap_or_default();
            for message in tags.err().unwrap_or_default() {
                errors.add("tags", message);
            }
            Err(errors)
        }
    }
}
