//! `/agent/`: what a device's agent calls: heartbeats, the command long
//! poll and acknowledgements.

use super::devices::{PORT_FIELDS, PORT_NAME, PORT_NUMBER, PORT_PROTOCOL};
use super::enrolment::{MACHINE_TYPE, machine_type};
use crate::answer::{Json, NoContent};
use crate::description::{Described, Resource};
use crate::error::ApiError;
use crate::extract::{Agent, CommandIdPath, Query, Valid};
use crate::fields::{Field, FieldType, Form, FromForm, Rejected};
use crate::route_table::Route;
use crate::state::HttpState;
use actix_web::http::Method;
use actix_web::web::Data;
use domain::{
    AckDetail, Action, AgentVersion, Amount, Command, CommandOutcome, CommandStatus, FactsReport,
    OperatingSystem, PollWait, Port, PortNumber, Protocol, Uname,
};
use serde::Serialize;

/// `agent_version` of a heartbeat.
const AGENT_VERSION: Field = Field::text("agent_version", "Agent version")
    .optional()
    .blank_ok()
    .max(AgentVersion::MAX_CHARS);
/// `operating_system` of a heartbeat.
const OPERATING_SYSTEM: Field = Field::text("operating_system", "Operating system")
    .optional()
    .blank_ok()
    .max(OperatingSystem::MAX_CHARS);
/// `uname` of a heartbeat.
const UNAME: Field = Field::text("uname", "Uname")
    .optional()
    .blank_ok()
    .max(Uname::MAX_CHARS);
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
const ACK_DETAIL: Field = Field::text("detail", "Detail")
    .optional()
    .blank_ok()
    .max(AckDetail::MAX_CHARS);
/// `wait` of the command long poll (a query parameter), in seconds.
const WAIT: Field = Field::integer("wait", "Wait")
    .optional()
    .range(0, PollWait::MAX_SECS);

/// The routes of this resource.
pub fn routes() -> Vec<Route> {
    vec![
        Route::new(
            "/agent/commands/",
            "Agent Commands",
            "Long poll for the device's pending commands: answers as soon as one is\npending, or with an empty list after `wait` seconds (0-60, default 0).",
        )
        .get("Wait for the device's commands", commands)
        .fails(&[400]),
        Route::new(
            "/agent/commands/{id}/ack/",
            "Agent Command Ack",
            "Report what became of a command: `received` before carrying it out, then\n`done` or `failed`, with an optional detail.",
        )
        .post("Acknowledge a command", acknowledge)
        .fails(&[404]),
        Route::new(
            "/agent/heartbeat/",
            "Agent Heartbeat",
            "Report the device's facts; the device is online from now. Returns the\npending commands and the interval of the next heartbeat.",
        )
        .post("Report the device's facts", heartbeat),
    ]
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

const COMMAND_FIELDS: &[Field] = &[
    Field::read_only("id", "Id", FieldType::String).format("uuid"),
    Field::read_only("action", "Action", FieldType::String).choices(&Action::CODES),
    Field::read_only("issued_time", "Issued time", FieldType::Datetime),
];
const COMMANDS: Field =
    Field::read_only("commands", "Commands", FieldType::List).children(COMMAND_FIELDS);

/// The commands handed to an agent by a long poll.
pub const COMMAND_LIST: Resource = Resource {
    name: "CommandList",
    description: "Commands handed out to the device. One not acknowledged within 15 seconds is handed out again, with the same id.",
    fields: &[COMMANDS],
};

/// The answer to a heartbeat.
pub const HEARTBEAT_REPLY: Resource = Resource {
    name: "HeartbeatReply",
    description: "Commands handed out to the device, and the seconds until its next heartbeat is due.",
    fields: &[
        COMMANDS,
        Field::read_only(
            "heartbeat_interval",
            "Heartbeat interval",
            FieldType::Integer,
        )
        .range(1, i64::MAX),
    ],
};

/// A command as handed to an agent.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct CommandJson {
    id: String,
    action: &'static str,
    issued_time: String,
}

impl From<&Command> for CommandJson {
    fn from(command: &Command) -> Self {
        Self {
            id: command.id.to_string(),
            action: command.action.code(),
            issued_time: domain::time::format_api(command.issued_time),
        }
    }
}

fn commands_json(commands: &[Command]) -> Vec<CommandJson> {
    commands.iter().map(CommandJson::from).collect()
}

/// Commands handed out by a long poll.
#[derive(Debug, Serialize)]
pub struct CommandListJson {
    commands: Vec<CommandJson>,
}

impl Described for CommandListJson {
    const RESOURCE: &'static Resource = &COMMAND_LIST;
}

/// The answer to a heartbeat.
#[derive(Debug, Serialize)]
pub struct HeartbeatReplyJson {
    commands: Vec<CommandJson>,
    heartbeat_interval: i64,
}

impl Described for HeartbeatReplyJson {
    const RESOURCE: &'static Resource = &HEARTBEAT_REPLY;
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
        let mut open = state.long_polls.open(device.serial.as_str());
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::description::assert_described;

    #[test]
    fn agent_answers_write_their_described_fields() {
        assert_described(&CommandListJson { commands: vec![] });
        assert_described(&HeartbeatReplyJson {
            commands: vec![],
            heartbeat_interval: 60,
        });
        let command = Command {
            id: domain::CommandId::parse("0f8fad5b-d9cb-469f-a165-70867728950e").unwrap(),
            action: Action::Reboot,
            issued_time: chrono::DateTime::UNIX_EPOCH,
        };
        let json = serde_json::to_value(CommandJson::from(&command)).unwrap();
        let mut keys: Vec<&str> = json
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        keys.sort_unstable();
        let mut described: Vec<&str> = COMMAND_FIELDS.iter().map(|f| f.name).collect();
        described.sort_unstable();
        assert_eq!(keys, described);
    }
}
