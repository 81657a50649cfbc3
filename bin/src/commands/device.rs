use crate::CommandError;
use crate::cli::DeviceAddArgs;
use adapters_http::DeviceJson;
use adapters_http::messages::{INVALID_EMAIL, INVALID_TAG, INVALID_UUID, too_many_tags};
use application::Services;
use application::use_cases::DeviceSpec;
use domain::{DeviceFacts, EmailAddress, MachineType, Serial, Tag, TagSet};

/// `devmgr device add`.
pub async fn add(
    app: &Services,
    base_url: &str,
    args: &DeviceAddArgs,
) -> Result<serde_json::Value, CommandError> {
    let owner = EmailAddress::parse(&args.owner)
        .map_err(|_| CommandError(format!("--owner: {INVALID_EMAIL}")))?;
    let serial = args
        .serial
        .as_deref()
        .map(Serial::parse)
        .transpose()
        .map_err(|_| CommandError(format!("--serial: {INVALID_UUID}")))?;
    let machine_type = MachineType::from_code(&args.machine_type).ok_or_else(|| {
        let known: Vec<&str> = MachineType::all().map(MachineType::code).collect();
        CommandError(format!(
            "--machine-type: unknown code `{}` (known: {})",
            args.machine_type,
            known.join(", ")
        ))
    })?;
    let tags = args
        .tags
        .iter()
        .map(|tag| {
            Tag::parse(tag).map_err(|_| CommandError(format!("--tag {tag:?}: {INVALID_TAG}")))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let tags =
        TagSet::new(tags).map_err(|_| CommandError(format!("--tag: {}", too_many_tags())))?;
    let spec = DeviceSpec {
        name: args.name.clone(),
        serial,
        description: args.description.clone(),
        facts: DeviceFacts {
            agent_version: args.agent_version.clone(),
            operating_system: args.operating_system.clone(),
            uname: args.uname.clone(),
            machine_type,
            disk_capacity: args.disk_capacity,
            disk_used: args.disk_used,
            processor_speed: args.processor_speed,
            ram_capacity: args.ram_capacity,
        },
        online: args.online,
        tags,
    };
    let view = app
        .devices
        .add(&owner, spec)
        .await
        .map_err(CommandError::from_display)?;
    serde_json::to_value(DeviceJson::new(view, base_url)).map_err(CommandError::from_display)
}
