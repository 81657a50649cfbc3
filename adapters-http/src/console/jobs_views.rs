//! Fleet jobs as the console's pages word them, and as the job page's live
//! updates send them (the same values, so a page and its updates agree):
//! the job's name ("Reboot · tagged lab, online"), its counts in words
//! ("3 done · 1 failed · 6 waiting"), its settings, and its targets' rows.

use super::time::Moment;
use application::ports::{JobRecord, TargetRecord};
use domain::{JobStatus, MachineType, TargetCounts, TargetStatus, Timestamp};
use serde::Serialize;
use serde_json::{Map, Value};

/// A job's row in the jobs list.
pub(crate) struct JobRow {
    pub(crate) id: String,
    /// "Reboot · tagged lab".
    pub(crate) title: String,
    /// The word of the API (`running`, `halted`, …).
    pub(crate) status: &'static str,
    /// "3 done · 1 failed · 6 waiting".
    pub(crate) counts: String,
    pub(crate) created: Moment,
}

impl JobRow {
    /// The row of `job`, seen at `now`.
    pub(crate) fn of(job: &JobRecord, now: Timestamp) -> Self {
        Self {
            id: job.id.as_str().to_owned(),
            title: title(job),
            status: job.status.code(),
            counts: counts_in_words(&job.counts, job.status),
            created: Moment::of(job.created_time, now),
        }
    }
}

/// A target's row on the job page (and in its live updates).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct TargetRow {
    pub(crate) serial: String,
    /// The device's name when the job started.
    pub(crate) name: String,
    pub(crate) wave: u32,
    /// The word of the API (`waiting`, `pending`, …, `skipped`).
    pub(crate) status: &'static str,
    pub(crate) detail: String,
}

impl TargetRow {
    /// The row of `target`.
    pub(crate) fn of(target: &TargetRecord) -> Self {
        Self {
            serial: target.serial.as_str().to_owned(),
            name: target.name.as_str().to_owned(),
            wave: target.wave,
            status: target.status.code(),
            detail: target.detail.as_str().to_owned(),
        }
    }
}

/// What the job page shows of a job beside its targets, and what its live
/// updates send.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct JobSummary {
    /// The word of the API.
    pub(crate) status: &'static str,
    /// The counts in words.
    pub(crate) counts: String,
    /// Whether "Cancel job" is offered.
    pub(crate) can_cancel: bool,
    /// Whether "Resume" is offered.
    pub(crate) can_resume: bool,
}

impl JobSummary {
    /// The summary of `job`.
    pub(crate) fn of(job: &JobRecord) -> Self {
        Self {
            status: job.status.code(),
            counts: counts_in_words(&job.counts, job.status),
            can_cancel: job.status.can_cancel(),
            can_resume: job.status.can_resume(),
        }
    }
}

/// "Reboot · tagged lab, online": the action and the selector in words.
pub(crate) fn title(job: &JobRecord) -> String {
    let action = match job.action.code() {
        "reboot" => "Reboot",
        other => other,
    };
    format!("{action} · {}", selector_in_words(&job.selector_json))
}

/// The targets' counts in words, zero counts left out, in the API's order:
/// "3 done · 1 failed · 6 waiting"; "not started yet" for a scheduled job,
/// "no devices" for one without targets.
pub(crate) fn counts_in_words(counts: &TargetCounts, status: JobStatus) -> String {
    let words: Vec<String> = order()
        .filter_map(|state| {
            let count = counts.get(state);
            (count > 0).then(|| format!("{count} {}", state.code()))
        })
        .collect();
    if !words.is_empty() {
        words.join(" · ")
    } else if status == JobStatus::Scheduled {
        "not started yet".to_owned()
    } else {
        "no devices".to_owned()
    }
}

/// The statuses in the order people read a job's progress: what ended
/// first, then what is under way, then what waits.
fn order() -> impl Iterator<Item = TargetStatus> {
    [
        TargetStatus::Done,
        TargetStatus::Failed,
        TargetStatus::Lapsed,
        TargetStatus::Skipped,
        TargetStatus::Received,
        TargetStatus::Delivered,
        TargetStatus::Pending,
        TargetStatus::Waiting,
    ]
    .into_iter()
}

/// A selector (its JSON text, as the job keeps it) in words: "every
/// device", or its criteria: "tagged lab and site:berlin, online".
pub(crate) fn selector_in_words(json: &str) -> String {
    let Ok(Value::Object(keys)) = serde_json::from_str::<Value>(json) else {
        return "selected devices".to_owned();
    };
    let mut words = Vec::new();
    let texts = |key: &str| -> Vec<String> {
        match keys.get(key) {
            Some(Value::Array(items)) => items
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect(),
            _ => Vec::new(),
        }
    };
    let serials = texts("serials");
    match serials.len() {
        0 => {}
        1 => words.push(format!("device {}", serials[0])),
        n => words.push(format!("{n} devices by serial")),
    }
    let tags = texts("tags");
    if !tags.is_empty() {
        words.push(format!("tagged {}", tags.join(" and ")));
    }
    let any = texts("any_tags");
    if !any.is_empty() {
        words.push(format!("tagged {}", any.join(" or ")));
    }
    push_known(&keys, &mut words);
    if words.is_empty() {
        "every device".to_owned()
    } else {
        words.join(", ")
    }
}

/// The selector's online, machine type and search criteria in words.
fn push_known(keys: &Map<String, Value>, words: &mut Vec<String>) {
    match keys.get("online") {
        Some(Value::Bool(true)) => words.push("online".to_owned()),
        Some(Value::Bool(false)) => words.push("offline".to_owned()),
        _ => {}
    }
    if let Some(kind) = keys
        .get("machine_type")
        .and_then(Value::as_str)
        .and_then(MachineType::from_code)
    {
        words.push(kind.display_name().to_owned());
    }
    if let Some(search) = keys.get("search").and_then(Value::as_str) {
        words.push(format!("search “{search}”"));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_selector_reads_as_words() {
        assert_eq!(selector_in_words(r#"{"all": true}"#), "every device");
        assert_eq!(
            selector_in_words(r#"{"tags": ["lab", "site:berlin"], "online": true}"#),
            "tagged lab and site:berlin, online"
        );
        assert_eq!(
            selector_in_words(
                r#"{"any_tags": ["a", "b"], "machine_type": "rpi_4b", "search": "kit", "online": false}"#
            ),
            "tagged a or b, offline, Raspberry Pi 4 Model B, search “kit”"
        );
        assert_eq!(
            selector_in_words(r#"{"serials": ["x", "y"]}"#),
            "2 devices by serial"
        );
        assert_eq!(selector_in_words("not json"), "selected devices");
    }

    #[test]
    fn counts_read_as_words_without_zeros() {
        let counts = TargetCounts::default()
            .with(TargetStatus::Waiting, 6)
            .with(TargetStatus::Done, 3)
            .with(TargetStatus::Failed, 1);
        assert_eq!(
            counts_in_words(&counts, JobStatus::Running),
            "3 done · 1 failed · 6 waiting"
        );
        let none = TargetCounts::default();
        assert_eq!(
            counts_in_words(&none, JobStatus::Scheduled),
            "not started yet"
        );
        assert_eq!(counts_in_words(&none, JobStatus::Completed), "no devices");
    }
}
