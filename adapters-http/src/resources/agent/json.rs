//! What the agent routes answer: the commands handed out, and the answer to
//! a heartbeat, as typed answers with their schemas.

use crate::description::examples as ex;
use crate::description::{Described, ObjectSchema};
use crate::fields::{Field, FieldType};
use domain::{Action, Command};
use serde::Serialize;

const COMMAND_FIELDS: &[Field] = &[
    Field::read_only("id", "Id", FieldType::String).format("uuid"),
    Field::read_only("action", "Action", FieldType::String).choices(&Action::CODES),
    Field::read_only("issued_time", "Issued time", FieldType::Datetime),
];
const COMMANDS: Field =
    Field::read_only("commands", "Commands", FieldType::List).children(COMMAND_FIELDS);

/// The commands handed to an agent by a long poll.
pub const COMMAND_LIST_SCHEMA: ObjectSchema = ObjectSchema {
    name: "CommandList",
    description: "Commands handed out to the device. One not acknowledged within 15 seconds is handed out again, with the same id.",
    fields: &[COMMANDS],
};

/// The answer to a heartbeat.
pub const HEARTBEAT_REPLY_SCHEMA: ObjectSchema = ObjectSchema {
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

pub(super) fn commands_json(commands: &[Command]) -> Vec<CommandJson> {
    commands.iter().map(CommandJson::from).collect()
}

/// The examples' command, as handed out.
fn example_commands() -> Vec<CommandJson> {
    commands_json(&[Command {
        id: ex::command_id(),
        action: Action::Reboot,
        issued_time: ex::at(ex::ISSUED),
    }])
}

/// Commands handed out by a long poll.
#[derive(Debug, Serialize)]
pub struct CommandListJson {
    pub(super) commands: Vec<CommandJson>,
}

impl Described for CommandListJson {
    const SCHEMA: &'static ObjectSchema = &COMMAND_LIST_SCHEMA;

    fn example() -> Self {
        Self {
            commands: example_commands(),
        }
    }
}

/// The answer to a heartbeat.
#[derive(Debug, Serialize)]
pub struct HeartbeatReplyJson {
    pub(super) commands: Vec<CommandJson>,
    pub(super) heartbeat_interval: i64,
}

impl Described for HeartbeatReplyJson {
    const SCHEMA: &'static ObjectSchema = &HEARTBEAT_REPLY_SCHEMA;

    fn example() -> Self {
        Self {
            commands: example_commands(),
            heartbeat_interval: 60,
        }
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
