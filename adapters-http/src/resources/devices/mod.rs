//! `/devices/`: the account's devices, their ports, their commands, reboots.

mod json;
mod reboot;

pub use json::{
    COMMAND_RECORD_SCHEMA, CommandRecordJson, DEVICE_FIELDS, DEVICE_SCHEMA, DeviceJson,
    PORT_FIELDS, PORT_SCHEMA, PortJson,
};
pub(crate) use json::{DEVICE_DESCRIPTION, DEVICE_NAME, PORT_NAME, PORT_NUMBER, PORT_PROTOCOL};
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
    vec![
        Route::new(
            Tag::Devices,
            "/devices/",
            "Device List",
            "All devices of the account, oldest first.",
        )
        .get("listDevices", "List the devices", list),
        device_route(
            "/devices/{serial}/",
            "Device Detail",
            "One device of the account. Its `name` and `description` can be changed;\ndeleting it ends its agent's credential.",
        )
        .get("getDevice", "Show a device", detail)
        .fails(&[404])
        .put("replaceDevice", "Replace a device's name and description", replace)
        .request_example(DeviceReplacement(DeviceChanges {
            name: Some(DeviceName::parse(ex::DEVICE_NAME).expect("a valid name")),
            description: Some(example_description()),
            tags: None,
        }))
        .fails(&[404])
        .patch("updateDevice", "Change a device's name or description", change)
        .request_example(DeviceChange(DeviceChanges {
            name: None,
            description: Some(example_description()),
            tags: None,
        }))
        .fails(&[404])
        .delete("deleteDevice", "Delete a device", delete)
        .fails(&[404]),
        device_route(
            "/devices/{serial}/commands/",
            "Device Commands",
            "The device's 100 most recent commands, newest first, each with its\nstatus: pending, delivered, received, done, failed or lapsed.",
        )
        .get("listDeviceCommands", "List a device's commands", commands)
        .fails(&[404]),
        device_route(
            "/devices/{serial}/commands/{id}/",
            "Device Command",
            "One command of the device, as a reboot's `Location` names it, with its\nstatus: pending, delivered, received, done, failed or lapsed.",
        )
        .parameter(reboot::COMMAND_ID)
        .get("getDeviceCommand", "Show one of a device's commands", reboot::command)
        .fails(&[404]),
        device_route(
            "/devices/{serial}/ports/",
            "Device Ports",
            "The ports the device's agent last reported as listening.",
        )
        .get("listDevicePorts", "List a device's listening ports", ports)
        .fails(&[404]),
        device_route(
            "/devices/{serial}/reboot/",
            "Device Reboot",
            "Dispatch a reboot signal to the device. No body needed. The answer names the\nreboot's command (a reboot already under way is not queued twice: its command\nis the one named), and `Location` gives the command's URL.",
        )
        .post("rebootDevice", "Reboot a device", reboot::reboot)
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
    form
}

/// A PUT: `name` is required, `description` optional; other fields are ignored.
pub struct DeviceReplacement(pub(crate) DeviceChanges);

impl FromForm for DeviceReplacement {
    const FIELDS: &'static [Field] = DEVICE_FIELDS;

    fn from_form(form: &mut Form) -> Result<Self, Rejected> {
        let name = form.checked(&DEVICE_NAME);
        let description = form.optional_checked(&DEVICE_DESCRIPTION);
        Ok(Self(DeviceChanges {
            name: Some(name?),
            description: description?,
            tags: None,
        }))
    }
}

impl ToForm for DeviceReplacement {
    fn to_form(&self) -> Map<String, Value> {
        changes_form(&self.0)
    }
}

/// A PATCH: `name` and `description` are both optional.
pub struct DeviceChange(DeviceChanges);

impl FromForm for DeviceChange {
    const FIELDS: &'static [Field] = DEVICE_FIELDS;

    fn from_form(form: &mut Form) -> Result<Self, Rejected> {
        let name = form.optional_checked(&DEVICE_NAME);
        let description = form.optional_checked(&DEVICE_DESCRIPTION);
        Ok(Self(DeviceChanges {
            name: name?,
            description: description?,
            tags: None,
        }))
    }
}

impl ToForm for DeviceChange {
    fn to_form(&self) -> Map<String, Value> {
        changes_form(&self.0)
    }
}

/// `GET /devices/`.
async fn list(
    state: Data<HttpState>,
    user: User,
    BaseUrl(base): BaseUrl,
) -> Result<Json<Vec<DeviceJson>>, ApiError> {
    let devices = state.app.devices.list(&user.account).await?;
    Ok(Json(
        devices
            .into_iter()
            .map(|view| DeviceJson::new(view, &base))
            .collect(),
    ))
}

/// `GET /devices/{serial}/`: 404 for a missing and a foreign device alike.
async fn detail(
    state: Data<HttpState>,
    user: User,
    SerialPath(serial): SerialPath,
    BaseUrl(base): BaseUrl,
) -> Result<Json<DeviceJson>, ApiError> {
    let view = state
        .app
        .devices
        .get(&user.account, &serial)
        .await?
        .ok_or(ApiError::NotFound)?;
    Ok(Json(DeviceJson::new(view, &base)))
}

/// `PUT /devices/{serial}/`.
async fn replace(
    state: Data<HttpState>,
    user: User,
    path: SerialPath,
    base: BaseUrl,
    Valid(DeviceReplacement(changes)): Valid<DeviceReplacement>,
) -> Result<Json<DeviceJson>, ApiError> {
    update(&state, &user, path, base, changes).await
}

/// `PATCH /devices/{serial}/`.
async fn change(
    state: Data<HttpState>,
    user: User,
    path: SerialPath,
    base: BaseUrl,
    Valid(DeviceChange(changes)): Valid<DeviceChange>,
) -> Result<Json<DeviceJson>, ApiError> {
    update(&state, &user, path, base, changes).await
}

async fn update(
    state: &HttpState,
    user: &User,
    SerialPath(serial): SerialPath,
    BaseUrl(base): BaseUrl,
    changes: DeviceChanges,
) -> Result<Json<DeviceJson>, ApiError> {
    let view = state
        .app
        .devices
        .update(&user.account, &serial, changes)
        .await?;
    Ok(Json(DeviceJson::new(view, &base)))
}

/// `DELETE /devices/{serial}/`: the device and its agent credential end.
async fn delete(
    state: Data<HttpState>,
    user: User,
    SerialPath(serial): SerialPath,
) -> Result<NoContent, ApiError> {
    if state.app.devices.delete(&user.account, &serial).await? {
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
