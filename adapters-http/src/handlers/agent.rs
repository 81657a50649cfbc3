//! The agent API: enrolment, heartbeats, the command long poll, acknowledgements.

use super::{json, no_content, secret_json};
use crate::device_json::CommandJson;
use crate::dispatch::Ctx;
use crate::error::ApiError;
use crate::fields::{Form, validated};
use crate::routes::{
    ACK_DETAIL, ACK_STATUS, AGENT_VERSION, DEVICE_NAME, DISK_CAPACITY, DISK_USED, INSTALL_TOKEN,
    MACHINE_TYPE, OPERATING_SYSTEM, PORT_NAME, PORT_NUMBER, PORT_PROTOCOL, PORTS, PROCESSOR_SPEED,
    RAM_CAPACITY, SERIAL, UNAME, WAIT,
};
use actix_web::HttpResponse;
use actix_web::http::{Method, StatusCode};
use actix_web::web::Query;
use application::use_cases::{InstallError, InstallRequest};
use domain::{
    Command, CommandOutcome, CommandStatus, FactsReport, MachineType, Port, PortNumber, Protocol,
    Serial,
};
use serde_json::{Map, Value, json};
use std::collections::HashMap;
use std::time::Duration;

fn read_machine_type(form: &mut Form) -> Option<MachineType> {
    form.choice(&MACHINE_TYPE).and_then(MachineType::from_code)
}

fn commands_json(commands: &[Command]) -> Vec<CommandJson> {
    commands.iter().map(CommandJson::from).collect()
}

/// `POST /install/`: enrols a device with an install token (or re-keys it).
pub async fn install(mut ctx: Ctx) -> Result<HttpResponse, ApiError> {
    let mut form = ctx.form();
    let install_token = form.text(&INSTALL_TOKEN);
    let name = form.checked(&DEVICE_NAME);
    let serial = form.serial(&SERIAL);
    let machine_type = read_machine_type(&mut form);
    if form.has_errors()
        && let Some(token) = &install_token
        && !ctx.state.app.fleet.install_token_exists(token).await?
    {
        // Reported with the other fields' errors, as DRF would.
        form.error(INSTALL_TOKEN.name, "Invalid install token.");
    }
    form.finish()?;
    let request = InstallRequest {
        install_token: validated(install_token)?,
        name: validated(name)?,
        serial,
        machine_type,
    };
    let installed = ctx.state.app.fleet.install(request).await.map_err(|e| match e {
        InstallError::InvalidInstallToken => {
            ApiError::field(INSTALL_TOKEN.name, "Invalid install token.")
        }
        InstallError::ForeignSerial => {
            ApiError::field(SERIAL.name, "This serial belongs to another account.")
        }
        InstallError::Unverified => ApiError::field(
            INSTALL_TOKEN.name,
            "Verify the account's e-mail address before adding devices.",
        ),
        InstallError::Online => ApiError::field(
            SERIAL.name,
            "This device is online. Delete it, or wait until it is offline, to install it again.",
        ),
        InstallError::Store(e) => e.into(),
    })?;
    let serial = installed.device.serial.to_string();
    let url = format!("{}/devices/{serial}/", ctx.base_url());
    Ok(secret_json(
        StatusCode::CREATED,
        &json!({
            "serial": serial,
            "device_token": installed.device_token,
            "url": url,
        }),
    ))
}

/// One item of a heartbeat's `ports`.
fn read_port(form: &mut Form) -> Option<Port> {
    let number = form.integer(&PORT_NUMBER).flatten();
    let protocol = form.choice(&PORT_PROTOCOL).and_then(Protocol::from_code);
    let name = form.checked(&PORT_NAME);
    let number = PortNumber::try_from(number?).ok()?;
    if form.has_errors() {
        return None;
    }
    Some(Port::new(number, protocol?, name.unwrap_or_default()))
}

/// `POST /agent/heartbeat/`: records the facts, hands out pending commands.
pub async fn heartbeat(mut ctx: Ctx) -> Result<HttpResponse, ApiError> {
    let mut form = ctx.form();
    let report = FactsReport {
        agent_version: form.checked(&AGENT_VERSION),
        operating_system: form.checked(&OPERATING_SYSTEM),
        uname: form.checked(&UNAME),
        machine_type: read_machine_type(&mut form),
        disk_capacity: form.integer(&DISK_CAPACITY),
        disk_used: form.integer(&DISK_USED),
        ram_capacity: form.integer(&RAM_CAPACITY).flatten(),
        processor_speed: form.integer(&PROCESSOR_SPEED).flatten(),
        ports: form.objects(&PORTS, read_port),
    };
    form.finish()?;
    let reply = ctx.state.app.fleet.heartbeat(ctx.agent()?, report).await?;
    Ok(json(
        StatusCode::OK,
        &json!({
            "commands": commands_json(&reply.commands),
            "heartbeat_interval": reply.heartbeat_interval,
        }),
    ))
}

/// `wait` of the query string, in seconds (0 when absent).
fn wait_parameter(ctx: &Ctx) -> Result<Duration, ApiError> {
    let query = Query::<HashMap<String, String>>::from_query(ctx.req.query_string())
        .map(Query::into_inner)
        .unwrap_or_default();
    let mut params = Map::new();
    if let Some(wait) = query.get(WAIT.name) {
        // A query string is text: a whole number in it counts as a number.
        let value = wait
            .trim()
            .parse::<i64>()
            .map_or_else(|_| Value::String(wait.clone()), Value::from);
        params.insert(WAIT.name.to_owned(), value);
    }
    let mut form = Form::new(params);
    let seconds = form.integer(&WAIT).flatten();
    form.finish()?;
    Ok(Duration::from_secs(
        seconds.unwrap_or(0).try_into().unwrap_or(0),
    ))
}

/// `GET /agent/commands/?wait=N`: the pending commands, as soon as there are
/// any, within N seconds. `HEAD` hands nothing out. A device's third open
/// poll ends its oldest at once, with no commands.
pub async fn commands(ctx: Ctx) -> Result<HttpResponse, ApiError> {
    let wait = wait_parameter(&ctx)?;
    let device = ctx.agent()?;
    let commands = if ctx.req.method() == Method::HEAD {
        Vec::new()
    } else {
        let mut open = ctx.state.long_polls.open(device.serial.as_str());
        tokio::select! {
            commands = ctx.state.app.fleet.poll_commands(device, wait) => commands?,
            () = open.pushed_out() => Vec::new(),
        }
    };
    Ok(json(
        StatusCode::OK,
        &json!({ "commands": commands_json(&commands) }),
    ))
}

/// `POST /agent/commands/{id}/ack/`: the first outcome reported counts.
pub async fn acknowledge(mut ctx: Ctx) -> Result<HttpResponse, ApiError> {
    let id = ctx
        .params
        .first()
        .filter(|raw| Serial::parse(raw).is_ok_and(|id| id.as_str() == raw.as_str()))
        .cloned()
        .ok_or(ApiError::NotFound)?;
    let mut form = ctx.form();
    let status = form.choice(&ACK_STATUS).and_then(CommandStatus::from_code);
    let detail = form.checked(&ACK_DETAIL);
    form.finish()?;
    let outcome = CommandOutcome {
        status: validated(status)?,
        detail: detail.unwrap_or_default(),
    };
    if ctx
        .state
        .app
        .fleet
        .acknowledge(ctx.agent()?, &id, outcome)
        .await?
    {
        Ok(no_content())
    } else {
        Err(ApiError::NotFound)
    }
}
