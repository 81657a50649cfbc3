use super::json;
use crate::device_json::DeviceJson;
use crate::dispatch::Ctx;
use crate::error::ApiError;
use actix_web::HttpResponse;
use actix_web::http::StatusCode;
use application::use_cases::RebootError;
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
    let devices = ctx.state.app.list_devices(ctx.user()?).await?;
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
        .device(ctx.user()?, &serial)
        .await?
        .ok_or(ApiError::NotFound)?;
    Ok(json(
        StatusCode::OK,
        &DeviceJson::new(view, &ctx.base_url()),
    ))
}

/// `POST /devices/{serial}/reboot/`: 202 once the signal is queued.
pub async fn reboot(ctx: Ctx) -> Result<HttpResponse, ApiError> {
    let serial = serial(&ctx)?;
    match ctx.state.app.reboot(ctx.user()?, &serial).await {
        Ok(()) => Ok(json(
            StatusCode::ACCEPTED,
            &json!({ "detail": "Reboot signal dispatched." }),
        )),
        Err(RebootError::NotFound) => Err(ApiError::NotFound),
        Err(RebootError::Store(e)) => Err(e.into()),
    }
}
