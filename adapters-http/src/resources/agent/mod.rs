//! `/agent/`: what a device's agent calls: heartbeats, the command long
//! poll and acknowledgements.

mod json;

pub use json::{COMMAND_LIST_SCHEMA, CommandListJson, HEARTBEAT_REPLY_SCHEMA, HeartbeatReplyJson};

use super::devices::{PORT_FIELDS, PORT_NAME, PORT_NUMBER, PORT_PROTOCOL};
use super::enrolment::{MACHINE_TYPE, machine_type};
use crate::answer::{Json, NoContent};
use crate::description::examples as ex;
use crate::description::{Parameter, Tag, to_json};
use crate::error::ApiError;
use crate::extract::{Agent, CommandIdPath, Query, Valid};
use crate::fields::{Field, Form, FromForm, Rejected, ToForm, form_of};
use crate::route::Route;
use crate::state::HttpState;
use actix_web::http::Method;
use actix_web::web::Data;
use domain::{
    AckDetail, AgentVersion, Amount, CommandOutcome, CommandStatus, FactsReport, OperatingSystem,
    PollWait, Port, PortNumber, Protocol, Uname,
};
use json::commands_json;
use serde_json::{Map, Value};

/// `agent_version` of a heartbeat.
const AGENT_VERSION: Field =
    Field::bounded::<AgentVersion>("agent_version", "Agent version").optional();
/// `operating_system` of a heartbeat.
const OPERATING_SYSTEM: Field =
    Field::bounded::<OperatingSystem>("operating_system", "Operating system").optional();
/// `uname` of a heartbeat.
const UNAME: Field = Field::bounded::<Uname>("uname", "Uname").optional();
/// `disk_capacity` of a heartbeat: bytes, `null` while unknown.
const DISK_CAPACITY: Field = Field::integer("disk_capacity", "Disk capacity")
    .optional()
    .nullable()
    .range(Amount::MIN, Amount::MAX);
/// `disk_used` of a heartbeat: bytes, `null` while unknown.
const DISK_USED: Field = Field::integer("disk_used", "Disk used")
    .optional()
    .nullable()
    .range(Amount::MIN, Amount::MAX);
/// `ram_capacity` of a heartbeat, in MiB.
const RAM_CAPACITY: Field = Field::integer("ram_capacity", "Ram capacity")
    .optional()
    .range(Amount::MIN, Amount::MAX);
/// `processor_speed` of a heartbeat, in MHz.
const PROCESSOR_SPEED: Field = Field::integer("processor_speed", "Processor speed")
    .optional()
    .range(Amount::MIN, Amount::MAX);
/// `ports` of a heartbeat.
const PORTS: Field = Field::list("ports", "Ports", PORT_FIELDS).optional();
/// `status` of an acknowledgement.
const ACK_STATUS: Field = Field::text("status", "Status").choices(&CommandStatus::CODES);
/// `detail` of an acknowledgement.
const ACK_DETAIL: Field = Field::bounded::<AckDetail>("detail", "Detail").optional();
/// `wait` of the command long poll (a query parameter), in seconds.
const WAIT: Field = Field::integer("wait", "Wait")
    .optional()
    .range(0, PollWait::MAX_SECS);

/// The `{id}` of a command's path.
const COMMAND_ID: Parameter = Parameter {
    name: "id",
    description: "The command's id, as handed to the agent.",
    format: Some("uuid"),
    example: || ex::COMMAND_ID.into(),
};

/// The `?wait=` of the command long poll.
const WAIT_PARAMETER: Parameter = Parameter {
    name: WAIT.name,
    description: "Seconds to wait for a pending command before answering with none (0-60).",
    format: None,
    example: || match PollWait::new(ex::POLL_WAIT_SECS) {
        Ok(wait) => wait.secs().into(),
        Err(_) => Value::Null,
    },
};

/// The routes of this resource.
pub fn routes() -> Vec<Route> {
    vec![
        Route::new(
            Tag::Agent,
            "/agent/commands/",
            "Agent Commands",
            "Long poll for the device's pending commands: answers as soon as one is\npending, or with an empty list after `wait` seconds (0-60, default 0).",
        )
        .get("pollCommands", "Wait for the device's commands", commands)
        .quiet()
        .waits()
        .parameter(WAIT_PARAMETER)
        .fails(&[400]),
        Route::new(
            Tag::Agent,
            "/agent/commands/{id}/ack/",
            "Agent Command Ack",
            "Report what became of a command: `received` before carrying it out, then\n`done` or `failed`, with an optional detail.",
        )
        .parameter(COMMAND_ID)
        .post("acknowledgeCommand", "Acknowledge a command", acknowledge)
        .request_example(Acknowledgement(CommandOutcome {
            status: CommandStatus::Received,
            detail: AckDetail::default(),
        }))
        .fails(&[404]),
        Route::new(
            Tag::Agent,
            "/agent/heartbeat/",
            "Agent Heartbeat",
            "Report the device's facts; the device is online from now. Returns the\npending commands and the interval of the next heartbeat.",
        )
        .post("sendHeartbeat", "Report the device's facts", heartbeat)
        .quiet()
        .request_example(Heartbeat(example_report())),
    ]
}

/// Every fact of the examples' device, as its agent reports them.
fn example_report() -> FactsReport {
    let facts = ex::facts();
    FactsReport {
        agent_version: Some(facts.agent_version),
        operating_system: Some(facts.operating_system),
        uname: Some(facts.uname),
        machine_type: Some(facts.machine_type),
        disk_capacity: Some(facts.disk_capacity),
        disk_used: Some(facts.disk_used),
        processor_speed: Some(facts.processor_speed),
        ram_capacity: Some(facts.ram_capacity),
        ports: Some(vec![ex::port()]),
    }
}

/// A heartbeat's body: the facts the agent reports, each optional.
pub struct Heartbeat(FactsReport);

impl FromForm for Heartbeat {
    const FIELDS: &'static [Field] = &[
        AGENT_VERSION,
        OPERATING_SYSTEM,
        UNAME,
        MACHINE_TYPE,
        DISK_CAPACITY,
        DISK_USED,
        RAM_CAPACITY,
        PROCESSOR_SPEED,
        PORTS,
    ];

    fn from_form(form: &mut Form) -> Result<Self, Rejected> {
        let agent_version = form.optional_checked(&AGENT_VERSION);
        let operating_system = form.optional_checked(&OPERATING_SYSTEM);
        let uname = form.optional_checked(&UNAME);
        let machine_type = machine_type(form);
        let disk_capacity = form.optional_nullable_integer(&DISK_CAPACITY);
        let disk_used = form.optional_nullable_integer(&DISK_USED);
        let ram_capacity = form.optional_integer(&RAM_CAPACITY);
        let processor_speed = form.optional_integer(&PROCESSOR_SPEED);
        let ports = form.optional_objects(&PORTS, read_port);
        Ok(Self(FactsReport {
            agent_version: agent_version?,
            operating_system: operating_system?,
            uname: uname?,
            machine_type: machine_type?,
            disk_capacity: disk_capacity?,
            disk_used: disk_used?,
            ram_capacity: ram_capacity?,
            processor_speed: processor_speed?,
            ports: ports?,
        }))
    }
}

impl ToForm for Heartbeat {
    fn to_form(&self) -> Map<String, Value> {
        let report = &self.0;
        let mut form = Map::new();
        let mut put = |field: &Field, value: Option<Value>| {
            if let Some(value) = value {
                form.extend(form_of([(field, value)]));
            }
        };
        put(
            &AGENT_VERSION,
            report.agent_version.as_deref().map(Value::from),
        );
        put(
            &OPERATING_SYSTEM,
            report.operating_system.as_deref().map(Value::from),
        );
        put(&UNAME, report.uname.as_deref().map(Value::from));
        put(&MACHINE_TYPE, report.machine_type.map(|m| m.code().into()));
        let amount = |amount: Option<Amount>| amount.map_or(Value::Null, |a| a.get().into());
        put(&DISK_CAPACITY, report.disk_capacity.map(amount));
        put(&DISK_USED, report.disk_used.map(amount));
        put(&RAM_CAPACITY, report.ram_capacity.map(|a| a.get().into()));
        put(
            &PROCESSOR_SPEED,
            report.processor_speed.map(|a| a.get().into()),
        );
        put(
            &PORTS,
            report.ports.as_ref().map(|ports| {
                ports
                    .iter()
                    .map(|port| to_json(&super::devices::PortJson::from(port)))
                    .collect()
            }),
        );
        form
    }
}

/// One item of a heartbeat's `ports`.
fn read_port(form: &mut Form) -> Result<Port, Rejected> {
    let number = form.integer::<PortNumber>(&PORT_NUMBER);
    let protocol = form.choice(&PORT_PROTOCOL, Protocol::from_code);
    let name = form.optional_checked(&PORT_NAME);
    Ok(Port::new(number?, protocol?, name?.unwrap_or_default()))
}

/// An acknowledgement's body.
pub struct Acknowledgement(CommandOutcome);

impl FromForm for Acknowledgement {
    const FIELDS: &'static [Field] = &[ACK_STATUS, ACK_DETAIL];

    fn from_form(form: &mut Form) -> Result<Self, Rejected> {
        let status = form.choice(&ACK_STATUS, CommandStatus::from_code);
        let detail = form.optional_checked(&ACK_DETAIL);
        Ok(Self(CommandOutcome {
            status: status?,
            detail: detail?.unwrap_or_default(),
        }))
    }
}

impl ToForm for Acknowledgement {
    fn to_form(&self) -> Map<String, Value> {
        form_of([
            (&ACK_STATUS, self.0.status.code().into()),
            (&ACK_DETAIL, self.0.detail.as_str().into()),
        ])
    }
}

/// The long poll's query: how long to wait.
pub struct Wait(PollWait);

impl FromForm for Wait {
    const FIELDS: &'static [Field] = &[WAIT];

    fn from_form(form: &mut Form) -> Result<Self, Rejected> {
        Ok(Self(
            form.optional_integer(&WAIT)?.unwrap_or(PollWait::NONE),
        ))
    }
}

/// `POST /agent/heartbeat/`: records the facts, hands out pending commands.
async fn heartbeat(
    state: Data<HttpState>,
    Agent(device): Agent,
    Valid(Heartbeat(report)): Valid<Heartbeat>,
) -> Result<Json<HeartbeatReplyJson>, ApiError> {
    let reply = state.app.fleet.heartbeat(&device, report).await?;
    Ok(Json(HeartbeatReplyJson {
        commands: commands_json(&reply.commands),
        heartbeat_interval: reply.heartbeat_interval,
    }))
}

/// `GET /agent/commands/?wait=N`: the pending commands, as soon as there are
/// any, within N seconds. `HEAD` hands nothing out. A device's third open
/// poll ends its oldest at once, with no commands.
async fn commands(
    state: Data<HttpState>,
    Query(Wait(wait)): Query<Wait>,
    Agent(device): Agent,
    method: Method,
) -> Result<Json<CommandListJson>, ApiError> {
    let commands = if method == Method::HEAD {
        Vec::new()
    } else {
        let mut open = state.long_polls.open(&device.serial).await?;
        tokio::select! {
            commands = state.app.fleet.poll_commands(&device, wait) => commands?,
            () = open.pushed_out() => Vec::new(),
        }
    };
    Ok(Json(CommandListJson {
        commands: commands_json(&commands),
    }))
}

/// `POST /agent/commands/{id}/ack/`: the first outcome reported counts.
async fn acknowledge(
    state: Data<HttpState>,
    Agent(device): Agent,
    CommandIdPath(id): CommandIdPath,
    Valid(Acknowledgement(outcome)): Valid<Acknowledgement>,
) -> Result<NoContent, ApiError> {
    if state.app.fleet.acknowledge(&device, &id, outcome).await? {
        Ok(NoContent)
    } else {
        Err(ApiError::NotFound)
    }
}
