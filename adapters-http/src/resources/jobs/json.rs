//! A job and a target as the API shows them (`docs/api.md`, "Jobs"), with
//! their descriptions and examples.

use super::body::{ACTION, HALT_FAILURE_RATIO, SELECTOR, START_TIME, WAVE_INTERVAL, WAVE_SIZE};
use crate::answer::Locates;
use crate::description::examples::{self as ex, BASE_URL};
use crate::description::{Described, Location, ObjectSchema};
use crate::fields::{Field, FieldType};
use application::ports::{JobRecord, TargetRecord};
use domain::time::format_api;
use domain::{JobStatus, TargetCounts, TargetStatus};
use serde::Serialize;
use serde_json::{Value, json};

const fn shown(name: &'static str, label: &'static str, kind: FieldType) -> Field {
    Field::read_only(name, label, kind)
}

/// A body field as an answer shows it: the same type and bounds, read-only.
const fn echoed(field: Field) -> Field {
    Field {
        required: false,
        read_only: true,
        ..field
    }
}

/// The example job's id.
pub(super) const EXAMPLE_JOB_ID: &str = "3f6c2a9e-8b1d-4e7a-9c5f-0d2b4a6e8f10";

/// The statuses a job goes through, as the API writes them.
const JOB_STATUSES: [&str; 5] = [
    JobStatus::Scheduled.code(),
    JobStatus::Running.code(),
    JobStatus::Halted.code(),
    JobStatus::Completed.code(),
    JobStatus::Cancelled.code(),
];

/// The statuses a target goes through, as the API writes them.
const TARGET_STATUSES: [&str; 8] = [
    TargetStatus::Waiting.code(),
    TargetStatus::Pending.code(),
    TargetStatus::Delivered.code(),
    TargetStatus::Received.code(),
    TargetStatus::Done.code(),
    TargetStatus::Failed.code(),
    TargetStatus::Lapsed.code(),
    TargetStatus::Skipped.code(),
];

const fn count(name: &'static str, label: &'static str) -> Field {
    shown(name, label, FieldType::Integer).range(0, i64::MAX)
}

/// `counts`: one key per target status, in [`TargetStatus::ALL`] order.
const COUNT_FIELDS: &[Field] = &[
    count("waiting", "Waiting"),
    count("pending", "Pending"),
    count("delivered", "Delivered"),
    count("received", "Received"),
    count("done", "Done"),
    count("failed", "Failed"),
    count("lapsed", "Lapsed"),
    count("skipped", "Skipped"),
];

/// A job's fields as answers show them.
pub const JOB_FIELDS: &[Field] = &[
    shown("id", "Id", FieldType::String).format("uuid"),
    shown("url", "Url", FieldType::Url),
    echoed(ACTION),
    echoed(SELECTOR),
    shown("status", "Status", FieldType::String).choices(&JOB_STATUSES),
    Field {
        nullable: false,
        ..echoed(START_TIME)
    },
    echoed(WAVE_SIZE),
    echoed(WAVE_INTERVAL),
    echoed(HALT_FAILURE_RATIO),
    shown("created_time", "Created time", FieldType::Datetime),
    shown("finished_time", "Finished time", FieldType::Datetime).nullable(),
    shown("counts", "Counts", FieldType::Object).children(COUNT_FIELDS),
];

/// A job.
pub const JOB_SCHEMA: ObjectSchema = ObjectSchema {
    name: "Job",
    description: "A fleet job: a reboot given to the devices its selector picked when it started, wave by wave. `selector` is the selector as sent (its known keys); `start_time` the time sent if it was in the future, else the creation time; `finished_time` when it became completed or cancelled; `counts` how many of its targets stand in each status.",
    fields: JOB_FIELDS,
};

/// How many targets stand in each status.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct CountsJson {
    waiting: u64,
    pending: u64,
    delivered: u64,
    received: u64,
    done: u64,
    failed: u64,
    lapsed: u64,
    skipped: u64,
}

impl From<&TargetCounts> for CountsJson {
    fn from(counts: &TargetCounts) -> Self {
        Self {
            waiting: counts.get(TargetStatus::Waiting),
            pending: counts.get(TargetStatus::Pending),
            delivered: counts.get(TargetStatus::Delivered),
            received: counts.get(TargetStatus::Received),
            done: counts.get(TargetStatus::Done),
            failed: counts.get(TargetStatus::Failed),
            lapsed: counts.get(TargetStatus::Lapsed),
            skipped: counts.get(TargetStatus::Skipped),
        }
    }
}

/// A job as the API shows it.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct JobJson {
    id: String,
    url: String,
    action: &'static str,
    selector: Value,
    status: &'static str,
    start_time: String,
    wave_size: Option<u32>,
    wave_interval_seconds: u32,
    halt_failure_ratio: f64,
    created_time: String,
    finished_time: Option<String>,
    counts: CountsJson,
}

impl JobJson {
    /// Renders a job with its absolute URL under `base_url`.
    pub fn new(job: &JobRecord, base_url: &str) -> Self {
        let selector = serde_json::from_str(&job.selector_json).unwrap_or_else(|error| {
            tracing::error!(job = %job.id, %error, "a job's selector is no JSON");
            Value::Object(serde_json::Map::new())
        });
        Self {
            id: job.id.to_string(),
            url: job_url(base_url, job.id.as_str()),
            action: job.action.code(),
            selector,
            status: job.status.code(),
            start_time: format_api(job.start_time),
            wave_size: job.settings.wave_size.map(|size| size.get()),
            wave_interval_seconds: job.settings.wave_interval.seconds(),
            halt_failure_ratio: job.settings.halt_failure_ratio.get(),
            created_time: format_api(job.created_time),
            finished_time: job.finished_time.map(format_api),
            counts: CountsJson::from(&job.counts),
        }
    }

    /// Its absolute URL.
    pub fn url(&self) -> &str {
        &self.url
    }
}

/// `<base>/jobs/<id>/`.
pub(super) fn job_url(base_url: &str, id: &str) -> String {
    format!("{base_url}/jobs/{id}/")
}

impl Described for JobJson {
    const SCHEMA: &'static ObjectSchema = &JOB_SCHEMA;

    fn example() -> Self {
        let counts = TargetCounts::default()
            .with(TargetStatus::Waiting, 6)
            .with(TargetStatus::Pending, 1)
            .with(TargetStatus::Received, 1)
            .with(TargetStatus::Done, 2);
        Self {
            id: EXAMPLE_JOB_ID.to_owned(),
            url: job_url(BASE_URL, EXAMPLE_JOB_ID),
            action: domain::Action::Reboot.code(),
            selector: json!({"tags": [ex::TAGS[0]], "online": true}),
            status: JobStatus::Running.code(),
            start_time: format_api(ex::at(ex::ISSUED)),
            wave_size: Some(4),
            wave_interval_seconds: 300,
            halt_failure_ratio: 0.25,
            created_time: format_api(ex::at(ex::ISSUED)),
            finished_time: None,
            counts: CountsJson::from(&counts),
        }
    }
}

impl Locates for JobJson {
    const LOCATION: Location = Location {
        description: "The new job's URL (its `url`).",
        example: || job_url(BASE_URL, EXAMPLE_JOB_ID),
    };
}

/// A target's fields as answers show them.
pub const TARGET_FIELDS: &[Field] = &[
    shown("serial", "Serial", FieldType::String).format("uuid"),
    shown("name", "Name", FieldType::String),
    shown("wave", "Wave", FieldType::Integer).range(1, i64::MAX),
    shown("command_id", "Command id", FieldType::String)
        .format("uuid")
        .nullable(),
    shown("status", "Status", FieldType::String).choices(&TARGET_STATUSES),
    shown("detail", "Detail", FieldType::String),
];

/// A target of a job.
pub const TARGET_SCHEMA: ObjectSchema = ObjectSchema {
    name: "JobTarget",
    description: "A device a job targets: its serial and its name when the job started, its wave, the command it was given or joined (null while waiting, or skipped before its wave), and its status: waiting, then the command's (pending, delivered, received, done, failed, lapsed), or skipped; `detail` is the command's.",
    fields: TARGET_FIELDS,
};

/// A target as the API shows it.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct TargetJson {
    serial: String,
    name: String,
    wave: u32,
    command_id: Option<String>,
    status: &'static str,
    detail: String,
}

impl From<&TargetRecord> for TargetJson {
    fn from(target: &TargetRecord) -> Self {
        Self {
            serial: target.serial.to_string(),
            name: target.name.as_str().to_owned(),
            wave: target.wave,
            command_id: target.command_id.as_ref().map(|id| id.as_str().to_owned()),
            status: target.status.code(),
            detail: target.detail.as_str().to_owned(),
        }
    }
}

impl Described for TargetJson {
    const SCHEMA: &'static ObjectSchema = &TARGET_SCHEMA;

    fn example() -> Self {
        Self {
            serial: ex::SERIAL.to_owned(),
            name: ex::DEVICE_NAME.to_owned(),
            wave: 1,
            command_id: Some(ex::COMMAND_ID.to_owned()),
            status: TargetStatus::Done.code(),
            detail: String::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::description::assert_described;

    #[test]
    fn the_answers_write_their_described_fields() {
        assert_described(&JobJson::example());
        assert_described(&TargetJson::example());
    }

    #[test]
    fn counts_name_every_target_status_in_order() {
        let counts = CountsJson::from(&TargetCounts::default().with(TargetStatus::Lapsed, 3));
        // In the order written, not sorted.
        let written = serde_json::to_string(&counts).unwrap();
        let places: Vec<usize> = TARGET_STATUSES
            .iter()
            .map(|code| written.find(&format!("\"{code}\"")).unwrap())
            .collect();
        assert!(places.is_sorted(), "{written}");
        let names: Vec<&str> = COUNT_FIELDS.iter().map(|f| f.name).collect();
        assert_eq!(names, TARGET_STATUSES);
        let codes: Vec<&str> = TargetStatus::ALL.iter().map(|s| s.code()).collect();
        assert_eq!(codes, TARGET_STATUSES);
        assert_eq!(serde_json::to_value(&counts).unwrap()["lapsed"], 3);
    }
}
