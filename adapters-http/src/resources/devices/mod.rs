//! `/devices/`: the account's devices, their ports, their commands, reboots.

mod device_json;
mod json;
mod listing;
mod paging;
mod reboot;

pub use device_json::DeviceJson;
pub use json::{
    COMMAND_RECORD_SCHEMA, CommandRecordJson, DEVICE_FIELDS, DEVICE_SCHEMA, PORT_FIELDS,
    PORT_SCHEMA, PortJson,
};
pub(crate) use json::{
    DEVICE_DESCRIPTION, DEVICE_NAME, DEVICE_TAGS, PORT_NAME, PORT_NUMBER, PORT_PROTOCOL,
};
pub use paging::DEVICE_PAGE_SCHEMA;
pub(crate) use paging::page_links;
pub use reboot::REBOOT_SCHEMA;

use crate::answer::{Json, NoContent};
use crate::description::examples as ex;
use crate::description::{Parameter, Tag};
use crate::error::ApiError;
use crate::extract::{BaseUrl, SerialPath, User, Valid};
use crate::fields::{Field, Form, FromForm, Rejected, ToForm, form_of};
use crate::route::Route;
use crate::state::HttpState;
use actix_web::web::Data;
use application::ports::DeviceChanges;
use domain::{DeviceDescription, DeviceName};
use serde_json::{Map, Value};

/// The `{serial}` of a device's paths.
const SERIAL: Parameter = Parameter {
    name: "serial",
    description: "The device's serial (a UUID), as in its `url`.",
    format: Some("uuid"),
    example: || ex::serial().to_string().into(),
};

/// The routes of this resource.
pub fn routes() -> Vec<Route> {
    let device_route = |pattern, name, description| {
        Route::new(Tag::Devices, pattern, name, description).parameter(SERIAL)
    };
    let mut list_route = Route::new(
        Tag::Devices,
        "/devices/",
        "Device List",
        "The devices of the account, oldest first unless `ordering` says otherwise,\nnarrowed by the filters given (each must hold). Without `limit`, an array of\nevery matching device; with `limit`, a page: `{\"count\", \"next\", \"previous\",\n\"results\"}`, `next` and `previous` being the absolute URLs of the pages beside it.",
    );
    for parameter in listing::PARAMETERS {
        list_route = list_route.parameter(parameter);
    }
    vec![
        list_route
            .get("listDevices", "List the devices", listing::list)
            .in_one_view(),
        device_route(
            "/devices/{serial}/",
            "Device Detail",
            "One device of the account. Its `name`, `description` and `tags` can be\nchanged (`tags` replaces the set; omitted, it is kept); deleting it ends its\nagent's credential.",
        )
        .get("getDevice", "Show a device", detail)
        .in_one_view()
        .fails(&[404])
        .put("replaceDevice", "Replace a device's name, description and tags", replace)
        .in_one_view()
        .request_example(DeviceReplacement(DeviceChanges {
            name: Some(DeviceName::parse(ex::DEVICE_NAME).expect("a valid name")),
            description: Some(example_description()),
            tags: Some(ex::tags()),
        }))
        .fails(&[404])
        .patch("updateDevice", "Change a device's name, description or tags", change)
        .in_one_view()
        .request_example(DeviceChange(DeviceChanges {
            name: None,
            description: Some(example_description()),
            tags: Some(ex::tags()),
        }))
        .fails(&[404])
        .delete("deleteDevice", "Delete a device", delete)
        .in_one_view()
        .fails(&[404]),
        device_route(
            "/devices/{serial}/commands/",
            "Device Commands",
            "The device's 100 most recent commands, newest first, each with its\nstatus: pending, delivered, received, done, failed or lapsed.",
        )
        .get("listDeviceCommands", "List a device's commands", commands)
        .in_one_view()
        .fails(&[404]),
        device_route(
            "/devices/{serial}/commands/{id}/",
            "Device Command",
            "One command of the device, as a reboot's `Location` names it, with its\nstatus: pending, delivered, received, done, failed or lapsed.",
        )
        .parameter(reboot::COMMAND_ID)
        .get("getDeviceCommand", "Show one of a device's commands", reboot::command)
        .in_one_view()
        .fails(&[404]),
        device_route(
            "/devices/{serial}/ports/",
            "Device Ports",
            "The ports the device's agent last reported as listening.",
        )
        .get("listDevicePorts", "List a device's listening ports", ports)
        .in_one_view()
        .fails(&[404]),
        device_route(
            "/devices/{serial}/reboot/",
            "Device Reboot",
            "Dispatch a reboot signal to the device. No body needed. The answer names the\nreboot's command (a reboot already under way is not queued twice: its command\nis the one named), and `Location` gives the command's URL.",
        )
        .post("rebootDevice", "Reboot a device", reboot::reboot)
        .in_one_view()
        .fails(&[404]),
    ]
}

fn example_description() -> DeviceDescription {
    DeviceDescription::parse(ex::DEVICE_DESCRIPTION).expect("a valid description")
}

/// The changes as the JSON object they are read from.
fn changes_form(changes: &DeviceChanges) -> Map<String, Value> {
    let mut form = Map::new();
    if let Some(name) = &changes.name {
        form.extend(form_of([(&DEVICE_NAME, name.as_str().into())]));
    }
    if let Some(description) = &changes.description {
        form.extend(form_of([(
            &DEVICE_DESCRIPTION,
            description.as_str().into(),
        )]));
    }
    if let Some(tags) = &changes.tags {
        let tags = tags.as_slice().iter().map(|tag| tag.as_str().into());
        form.extend(form_of([(&DEVICE_TAGS, Value::Array(tags.collect()))]));
    }
    form
}

/// A PUT: `name` is required, `description` and `tags` optional; other
/// fields are ignored.
pub struct DeviceReplacement(pub(crate) DeviceChanges);

impl FromForm for DeviceReplacement {
    const FIELDS: &'static [Field] = DEVICE_FIELDS;

    fn from_form(form: &mut Form) -> Result<Self, Rejected> {
        let name = form.checked(&DEVICE_NAME);
        let description = form.optional_checked(&DEVICE_DESCRIPTION);
        let tags = form.optional_tags(&DEVICE_TAGS);
        Ok(Self(DeviceChanges {
            name: Some(name?),
            description: description?,
            tags: tags?,
        }))
    }
}

impl ToForm for DeviceReplacement {
    fn to_form(&self) -> Map<String, Value> {
        changes_form(&self.0)
    }
}

/// A PATCH: `name`, `description` and `tags` are all optional.
pub struct DeviceChange(DeviceChanges);

impl FromForm for DeviceChange {
    const FIELDS: &'static [Field] = DEVICE_FIELDS;

    fn from_form(form: &mut Form) -> Result<Self, Rejected> {
        let name = form.optional_checked(&DEVICE_NAME);
        let description = form.optional_checked(&DEVICE_DESCRIPTION);
        let tags = form.optional_tags(&DEVICE_TAGS);
        Ok(Self(DeviceChanges {
            name: name?,
            description: description?,
            tags: tags?,
        }))
    }
}

impl ToForm for DeviceChange {
    fn to_form(&self) -> Map<String, Value> {
        changes_form(&self.0)
    }
}

/// `GET /devices/{serial}/`: 404 for a missing and a foreign device alike.
async fn detail(
    state: Data<HttpState>,
    user: User,
    SerialPath(serial): SerialPath,
    BaseUrl(base): BaseUrl,
) -> Result<DeviceJson, ApiError> {
    let view = state
        .app
        .devices
        .get(&user.account, &serial)
        .await?
        .ok_or(ApiError::NotFound)?;
    Ok(DeviceJson::new(view, &base))
}

/// `PUT /devices/{serial}/`.
async fn replace(
    state: Data<HttpState>,
    user: User,
    path: SerialPath,
    base: BaseUrl,
    Valid(DeviceReplacement(changes)): Valid<DeviceReplacement>,
) -> Result<DeviceJson, ApiError> {
    update(&state, &user, path, base, changes).await
}

/// `PATCH /devices/{serial}/`.
async fn change(
    state: Data<HttpState>,
    user: User,
    path: SerialPath,
    base: BaseUrl,
    Valid(DeviceChange(changes)): Valid<DeviceChange>,
) -> Result<DeviceJson, ApiError> {
    update(&state, &user, path, base, changes).await
}

async fn update(
    state: &HttpState,
    user: &User,
    SerialPath(serial): SerialPath,
    BaseUrl(base): BaseUrl,
    changes: DeviceChanges,
) -> Result<DeviceJson, ApiError> {
    let view = state
        .app
        .devices
        .update(user.requester(), &serial, changes)
        .await?;
    Ok(DeviceJson::new(view, &base))
}

/// `DELETE /devices/{serial}/`: the device and its agent credential end.
async fn delete(
    state: Data<HttpState>,
    user: User,
    SerialPath(serial): SerialPath,
) -> Result<NoContent, ApiError> {
    if state.app.devices.delete(user.requester(), &serial).await? {
        Ok(NoContent)
    } else {
        Err(ApiError::NotFound)
    }
}

/// `GET /devices/{serial}/ports/`: as the agent last reported them.
async fn ports(
    state: Data<HttpState>,
    user: User,
    SerialPath(serial): SerialPath,
) -> Result<Json<Vec<PortJson>>, ApiError> {
    let ports = state
        .app
        .devices
        .ports(&user.account, &serial)
        .await?
        .ok_or(ApiError::NotFound)?;
    Ok(Json(ports.iter().map(PortJson::from).collect()))
}

/// `GET /devices/{serial}/commands/`: the device's recent commands, newest first.
async fn commands(
    state: Data<HttpState>,
    user: User,
    SerialPath(serial): SerialPath,
) -> Result<Json<Vec<CommandRecordJson>>, ApiError> {
    let commands = state
        .app
        .devices
        .commands(&user.account, &serial)
        .await?
        .ok_or(ApiError::NotFound)?;
    Ok(Json(commands.iter().map(CommandRecordJson::from).collect()))
}
