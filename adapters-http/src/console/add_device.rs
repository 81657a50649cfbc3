//! `/console/add-device/`: the install command, ready to copy.

use super::browser::Viewer;
use super::chrome::Chrome;
use super::respond::render;
use crate::resources::profile::install_command;
use crate::state::HttpState;
use actix_web::http::StatusCode;
use actix_web::web::{self, Data};
use actix_web::{HttpRequest, HttpResponse};
use askama::Template;

/// Mounts the page.
pub(super) fn mount(config: &mut web::ServiceConfig) {
    config.service(web::resource("/add-device/").route(web::get().to(show)));
}

/// The add-a-device page.
#[derive(Template)]
#[template(path = "console/add_device.html")]
struct AddDevicePage {
    chrome: Chrome,
    install_command: String,
    verified: bool,
}

async fn show(req: HttpRequest, state: Data<HttpState>, viewer: Viewer) -> HttpResponse {
    let account = &viewer.account;
    let page = AddDevicePage {
        chrome: viewer.browser.chrome("Add a device", "add-device"),
        install_command: install_command(&state.base_url(&req), &account.install_token),
        verified: account.email_verified,
    };
    render(StatusCode::OK, &page, None)
}
