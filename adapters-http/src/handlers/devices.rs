use super::{json, no_content};
use crate::device_json::{CommandRecordJson, DeviceJson, PortJson};
use crate::dispatch::Ctx;
use crate::error::ApiError;
use crate::routes::{DEVICE_DESCRIPTION, DEVICE_NAME};
use actix_web::HttpResponse;
use actix_web::http::{Method, StatusCode};
use application::ports::DeviceChanges;
use application::use_cases::{RebootError, UpdateDeviceError};
use domain::Serial;
use serde_json::json;

/// The `{serial}` of the path, in its canonical form only; anything else is 404.
fn serial(ctx: &Ctx) -> Result<Serial, ApiError> {
    let raw = ctx.params.first().ok_or(ApiError::NotFound)?;
    Serial::parse(raw)
        .ok()
        .filter(|serial| serial.as_str() == raw)
        .ok_or(ApiError::NotFound)
}

/// `GET /devices/`.
pub async fn list(ctx: Ctx) -> Result<HttpResponse, ApiError> {
    let devices = ctx.state.app.devices.list(ctx.user()?).await?;
    let base = ctx.base_url();
    let body: Vec<DeviceJson> = devices
        .into_iter()
        .map(|view| DeviceJson::new(view, &base))
        .collect();
    Ok(json(StatusCode::OK, &body))
}

/// `GET /devices/{serial}/`: 404 for a missing and a foreign device alike.
pub async fn detail(ctx: Ctx) -> Result<HttpResponse, ApiError> {
    let serial = serial(&ctx)?;
    let view = ctx
        .state
        .app
        .devices
        .get(ctx.user()?, &serial)
        .await?
        .ok_or(ApiError::NotFound)?;
    Ok(json(
        StatusCode::OK,
        &DeviceJson::new(view, &ctx.base_url()),
    ))
}

/// `PUT` and `PATCH /devices/{serial}/`: `name` and `description` change
/// (PUT needs `name`); other fields are ignored.
pub async fn update(mut ctx: Ctx) -> Result<HttpResponse, ApiError> {
    let serial = serial(&ctx)?;
    let name_field = if ctx.req.method() == Method::PATCH {
        DEVICE_NAME.optional()
    } else {
        DEVICE_NAME
    };
    let mut form = ctx.form();
    let changes = DeviceChanges {
        name: form.checked(&name_field),
        description: form.checked(&DEVICE_DESCRIPTION),
    };
    form.finish()?;
    let view = ctx
        .state
        .app
        .devices
        .update(ctx.user()?, &serial, changes)
        .await
        .map_err(|e| match e {
            UpdateDeviceError::NotFound => ApiError::NotFound,
            UpdateDeviceError::Store(e) => e.into(),
        })?;
    Ok(json(
        StatusCode::OK,
        &DeviceJson::new(view, &ctx.base_url()),
    ))
}

/// `DELETE /devices/{serial}/`: the device and its agent credential end.
pub async fn delete(ctx: Ctx) -> Result<HttpResponse, ApiError> {
    let serial = serial(&ctx)?;
    if ctx.state.app.devices.delete(ctx.user()?, &serial).await? {
        Ok(no_content())
    } else {
        Err(ApiError::NotFound)
    }
}

/// `GET /devices/{serial}/ports/`: as the agent last reported them.
pub async fn ports(ctx: Ctx) -> Result<HttpResponse, ApiError> {
    let serial = serial(&ctx)?;
    let ports = ctx
        .state
        .app
        .devices
        .ports(ctx.user()?, &serial)
        .await?
        .ok_or(ApiError::NotFound)?;
    let body: Vec<PortJson> = ports.iter().map(PortJson::from).collect();
    Ok(json(StatusCode::OK, &body))
}

/// `GET /devices/{serial}/commands/`: the device's recent commands, newest first.
pub async fn commands(ctx: Ctx) -> Result<HttpResponse, ApiError> {
    let serial = serial(&ctx)?;
    let commands = ctx
        .state
        .app
        .devices
        .commands(ctx.user()?, &serial)
        .await?
        .ok_or(ApiError::NotFound)?;
    let body: Vec<CommandRecordJson> = commands.iter().map(CommandRecordJson::from).collect();
    Ok(json(StatusCode::OK, &body))
}

/// `POST /devices/{serial}/reboot/`: 202 once the signal is queued.
pub async fn reboot(ctx: Ctx) -> Result<HttpResponse, ApiError> {
    let serial = serial(&ctx)?;
    match ctx.state.app.devices.reboot(ctx.user()?, &serial).await {
        Ok(()) => Ok(json(
            StatusCode::ACCEPTED,
            &json!({ "detail": "Reboot signal dispatched." }),
        )),
        Err(RebootError::NotFound) => Err(ApiError::NotFound),
        Err(RebootError::Store(e)) => Err(e.into()),
    }
}
