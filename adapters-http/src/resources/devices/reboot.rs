//! Rebooting a device, and following the reboot's command: the 202 names
//! the command in its body and its URL in `Location` (docs/api.md, Reboot).

use super::json::{COMMAND_RECORD_FIELDS, CommandRecordJson};
use crate::answer::{Json, Located, Locates};
use crate::description::examples::{self as ex, BASE_URL};
use crate::description::{Described, Location, ObjectSchema, Parameter};
use crate::error::ApiError;
use crate::extract::{BaseUrl, CommandIdPath, SerialPath, User};
use crate::fields::{Field, FieldType};
use crate::state::HttpState;
use actix_web::web::Data;
use application::use_cases::CommandView;
use domain::{Action, Command, CommandId, CommandRecord, CommandState, Serial};
use serde::Serialize;

/// What a reboot answers with, beside its command.
const REBOOT_DISPATCHED: &str = "Reboot signal dispatched.";

/// The `{id}` of a device's command path.
pub(super) const COMMAND_ID: Parameter = Parameter {
    name: "id",
    description: "The command's id, as a reboot's answer and the device's commands show it.",
    format: Some("uuid"),
    example: || ex::COMMAND_ID.into(),
};

/// The absolute URL of a device's command.
pub(super) fn command_url(base_url: &str, serial: &Serial, id: &CommandId) -> String {
    format!("{base_url}/devices/{serial}/commands/{id}/")
}

/// The answer to a reboot.
pub const REBOOT_SCHEMA: ObjectSchema = ObjectSchema {
    name: "RebootDispatched",
    description: "A reboot was dispatched: `command` is the reboot's command, queued now or\nalready under way (pending, delivered or received), which `Location` leads to.",
    fields: &[
        Field::read_only("detail", "Detail", FieldType::String),
        Field::read_only("command", "Command", FieldType::Object).children(COMMAND_RECORD_FIELDS),
    ],
};

/// The answer to a reboot: the note and the reboot's command.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct RebootJson {
    detail: &'static str,
    command: CommandRecordJson,
}

impl From<&CommandView> for RebootJson {
    fn from(command: &CommandView) -> Self {
        Self {
            detail: REBOOT_DISPATCHED,
            command: CommandRecordJson::from(command),
        }
    }
}

impl Described for RebootJson {
    const SCHEMA: &'static ObjectSchema = &REBOOT_SCHEMA;

    fn example() -> Self {
        Self::from(&CommandView {
            record: CommandRecord {
                command: Command {
                    id: ex::command_id(),
                    action: Action::Reboot,
                    issued_time: ex::at(ex::ISSUED),
                },
                delivered_time: None,
                acked_time: None,
                status: None,
                detail: domain::AckDetail::default(),
            },
            state: CommandState::Pending,
        })
    }
}

impl Locates for RebootJson {
    const LOCATION: Location = Location {
        description: "The absolute URL of the reboot's command: `GET` it to follow the command\nuntil its status is done, failed or lapsed.",
        example: || command_url(BASE_URL, &ex::serial(), &ex::command_id()),
    };
}

/// `POST /devices/{serial}/reboot/`: 202 with the reboot's command, new or
/// joined, and its URL in `Location`.
pub(super) async fn reboot(
    state: Data<HttpState>,
    user: User,
    SerialPath(serial): SerialPath,
    BaseUrl(base): BaseUrl,
) -> Result<Located<RebootJson, 202>, ApiError> {
    let command = state.app.devices.reboot(user.requester(), &serial).await?;
    Ok(Located {
        location: command_url(&base, &serial, &command.record.command.id),
        body: RebootJson::from(&command),
    })
}

/// `GET /devices/{serial}/commands/{id}/`: 404 for a missing or foreign
/// device and for an id that is not one of the device's commands alike.
pub(super) async fn command(
    state: Data<HttpState>,
    user: User,
    SerialPath(serial): SerialPath,
    CommandIdPath(id): CommandIdPath,
) -> Result<Json<CommandRecordJson>, ApiError> {
    let command = state
        .app
        .devices
        .command(&user.account, &serial, &id)
        .await?
        .ok_or(ApiError::NotFound)?;
    Ok(Json(CommandRecordJson::from(&command)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::description::assert_described;

    #[test]
    fn a_reboot_answer_writes_its_described_fields_and_a_pending_command() {
        let example = RebootJson::example();
        assert_described(&example);
        let json = serde_json::to_value(&example).unwrap();
        assert_eq!(json["detail"], "Reboot signal dispatched.");
        assert_eq!(json["command"]["status"], "pending");
        let inner: Vec<&str> = COMMAND_RECORD_FIELDS.iter().map(|f| f.name).collect();
        let written: Vec<&str> = json["command"]
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(written.len(), inner.len());
        assert!(inner.iter().all(|name| written.contains(name)));
    }

    #[test]
    fn a_command_url_is_absolute_under_the_base_and_ends_in_a_slash() {
        assert_eq!(
            command_url("https://devmgr.example", &ex::serial(), &ex::command_id()),
            format!(
                "https://devmgr.example/devices/{}/commands/{}/",
                ex::SERIAL,
                ex::COMMAND_ID
            )
        );
    }
}
