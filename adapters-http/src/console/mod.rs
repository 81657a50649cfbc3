//! The web console: pages for people at `/console/`, server-rendered from
//! templates compiled into the binary (`templates/console/`), with one
//! stylesheet and one small script of devmgr's own (`assets/`). Pages read
//! and write through the same use cases as the API, validate forms with the
//! API's field engine, and show the API's messages; so nothing the API
//! refuses can be done here.
//!
//! Each page is one module here and one template: the module mounts its
//! routes (`mount`), defines the page's data (a struct deriving
//! `askama::Template`, with a [`Chrome`](chrome::Chrome) for the frame) and
//! its handlers, which take the extractors they need: [`Viewer`](browser::Viewer)
//! (a signed-in browser; anyone else is sent to the sign-in page),
//! [`Browser`](browser::Browser) (signed in or not) and
//! [`Posted`](posted::Posted) (a form whose CSRF token checked out). Adding
//! a page is adding a module, its template, a line in [`mount`] and, for a
//! place in the navigation, a link in `templates/console/base.html`
//! (`docs/architecture.md`, Adding a console page).

mod account;
mod activity;
mod activity_views;
mod add_device;
mod alerts;
mod alerts_live;
mod alerts_views;
mod assets;
mod browser;
mod chrome;
mod device;
mod device_actions;
mod events;
mod failure;
mod fleet;
mod fleet_filters;
mod fleet_page;
mod jobs;
mod jobs_actions;
mod jobs_live;
mod jobs_page;
mod jobs_views;
mod live;
mod monitors;
mod monitors_actions;
mod monitors_form;
mod monitors_new;
mod notice_query;
mod notices;
mod paging;
mod posted;
mod reboot_devices;
mod reboot_devices_form;
mod register;
mod reset;
mod respond;
mod selection;
mod shown;
mod sign_in;
mod tag_devices;
mod tag_fields;
mod throttle;
mod time;
mod verify;
mod views;
mod webhooks;
mod webhooks_form;
mod webhooks_page;

pub(crate) use browser::Browser;
pub(crate) use reset::reset_page;
pub(crate) use verify::verification_page;

use actix_web::web;

/// Mounts every console route under `/console/`; any other path there is
/// the console's 404 page.
pub(crate) fn mount(config: &mut web::ServiceConfig) {
    config.service(
        web::scope("/console")
            .configure(assets::mount)
            .configure(sign_in::mount)
            .configure(register::mount)
            .configure(reset::mount)
            .configure(fleet::mount)
            .configure(tag_devices::mount)
            .configure(reboot_devices::mount)
            .configure(jobs::mount)
            .configure(jobs_page::mount)
            .configure(jobs_actions::mount)
            .configure(alerts::mount)
            .configure(activity::mount)
            .configure(monitors_new::mount)
            .configure(monitors::mount)
            .configure(monitors_actions::mount)
            .configure(webhooks::mount)
            .configure(webhooks_page::mount)
            .configure(device::mount)
            .configure(device_actions::mount)
            .configure(add_device::mount)
            .configure(account::mount)
            .configure(events::mount)
            .default_service(web::to(not_found)),
    );
}

/// A console path without its final `/` is sent there (the query kept), as
/// the API does; any other unknown path is the console's 404 page.
async fn not_found(
    req: actix_web::HttpRequest,
) -> Result<actix_web::HttpResponse, failure::Failure> {
    let path = req.path();
    if path.ends_with('/') {
        return Err(failure::Failure::NotFound);
    }
    let query = req.query_string();
    let location = if query.is_empty() {
        format!("{path}/")
    } else {
        format!("{path}/?{query}")
    };
    Ok(actix_web::HttpResponse::MovedPermanently()
        .insert_header((actix_web::http::header::LOCATION, location))
        .finish())
}
