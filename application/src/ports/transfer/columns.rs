//! The columns of each copied table, in the order of a row's values.

use super::{Column, Kind};
use Kind::{Boolean, Integer, Text, Time};

const fn column(name: &'static str, kind: Kind) -> Column {
    Column { name, kind }
}

pub(super) const ACCOUNTS_COLUMNS: &[Column] = &[
    column("id", Integer),
    column("email", Text),
    column("email_key", Text),
    column("name", Text),
    column("password_hash", Text),
    column("email_verified", Boolean),
    column("install_token", Text),
    column("created_time", Time),
];
pub(super) const API_TOKENS_COLUMNS: &[Column] = &[
    column("token_hash", Text),
    column("account_id", Integer),
    column("created_time", Time),
];
pub(super) const CONSOLE_SESSIONS_COLUMNS: &[Column] = &[
    column("hash", Text),
    column("account_id", Integer),
    column("created_time", Time),
    column("last_used", Time),
];
pub(super) const EMAIL_KEYS_COLUMNS: &[Column] = &[
    column("key_hash", Text),
    column("account_id", Integer),
    column("purpose", Text),
    column("expires_time", Time),
    column("used_time", Time),
    column("seq", Integer),
];
pub(super) const LOGIN_FAILURES_COLUMNS: &[Column] = &[
    column("address", Text),
    column("failures", Integer),
    column("window_start", Time),
    column("locked_until", Time),
];
pub(super) const JOBS_COLUMNS: &[Column] = &[
    column("id", Text),
    column("account_id", Integer),
    column("seq", Integer),
    column("action", Text),
    column("selector", Text),
    column("selector_json", Text),
    column("status", Text),
    column("start_time", Time),
    column("wave_size", Integer),
    column("wave_interval_seconds", Integer),
    column("halt_failure_ratio", Text),
    column("created_time", Time),
    column("finished_time", Time),
    column("target_count", Integer),
    column("current_wave", Integer),
    column("next_wave_time", Time),
];
pub(super) const JOB_TARGETS_COLUMNS: &[Column] = &[
    column("job_id", Text),
    column("position", Integer),
    column("serial", Text),
    column("name", Text),
    column("wave", Integer),
    column("command_id", Text),
    column("status", Text),
    column("detail", Text),
];
pub(super) const MONITORS_COLUMNS: &[Column] = &[
    column("id", Text),
    column("account_id", Integer),
    column("seq", Integer),
    column("name", Text),
    column("kind", Text),
    column("ratio", Text),
    column("selector", Text),
    column("selector_json", Text),
    column("after_seconds", Integer),
    column("snoozed_until", Time),
    column("above_since", Time),
    column("created_time", Time),
];
pub(super) const ALERTS_COLUMNS: &[Column] = &[
    column("id", Text),
    column("account_id", Integer),
    column("monitor_id", Text),
    column("seq", Integer),
    column("serial", Text),
    column("state", Text),
    column("started_time", Time),
    column("resolved_time", Time),
    column("reason", Text),
    column("calm_since", Time),
];
pub(super) const ALERT_MAIL_WINDOWS_COLUMNS: &[Column] = &[
    column("account_id", Integer),
    column("opened_time", Time),
    column("mailed", Integer),
];
pub(super) const ALERT_DIGEST_LINES_COLUMNS: &[Column] = &[
    column("account_id", Integer),
    column("seq", Integer),
    column("window_opened", Time),
    column("subject", Text),
    column("alert_id", Text),
];
pub(super) const WEBHOOKS_COLUMNS: &[Column] = &[
    column("id", Text),
    column("account_id", Integer),
    column("seq", Integer),
    column("target_url", Text),
    column("events", Text),
    column("secret", Text),
    column("created_time", Time),
];
pub(super) const WEBHOOK_DELIVERIES_COLUMNS: &[Column] = &[
    column("id", Text),
    column("webhook_id", Text),
    column("account_id", Integer),
    column("seq", Integer),
    column("event", Text),
    column("data", Text),
    column("status", Text),
    column("attempts", Integer),
    column("response_code", Integer),
    column("error", Text),
    column("created_time", Time),
    column("last_attempt_time", Time),
    column("next_attempt_time", Time),
    column("lease_until", Time),
];
pub(super) const DEVICE_TAGS_COLUMNS: &[Column] = &[
    column("serial", Text),
    column("account_id", Integer),
    column("tag", Text),
];
pub(super) const DEVICE_PORTS_COLUMNS: &[Column] = &[
    column("serial", Text),
    column("port", Integer),
    column("protocol", Text),
    column("name", Text),
];
pub(super) const DEVICE_COMMANDS_COLUMNS: &[Column] = &[
    column("id", Text),
    column("serial", Text),
    column("action", Text),
    column("issued_time", Time),
    column("delivered_time", Time),
    column("acked_time", Time),
    column("status", Text),
    column("detail", Text),
    column("seq", Integer),
];
pub(super) const OUTBOX_COLUMNS: &[Column] = &[
    column("id", Text),
    column("recipient", Text),
    column("subject", Text),
    column("text_body", Text),
    column("html_body", Text),
    column("queued_time", Time),
    column("next_attempt_time", Time),
    column("attempts", Integer),
    column("last_error", Text),
];

pub(super) const DEVICE_COLUMNS: &[Column] = &[
    column("serial", Text),
    column("account_id", Integer),
    column("name", Text),
    column("description", Text),
    column("wormhole_slug", Text),
    column("agent_version", Text),
    column("operating_system", Text),
    column("uname", Text),
    column("machine_type", Text),
    column("disk_capacity", Integer),
    column("disk_used", Integer),
    column("processor_speed", Integer),
    column("ram_capacity", Integer),
    column("last_seen", Time),
    column("created_time", Time),
    column("token_hash", Text),
];
pub(super) const AUDIT_LOG_COLUMNS: &[Column] = &[
    column("id", Integer),
    column("account_id", Integer),
    column("time", Text),
    column("actor_kind", Text),
    column("actor_label", Text),
    column("action", Text),
    column("target", Text),
    column("ip", Text),
    column("detail", Text),
    column("previous_hash", Text),
    column("hash", Text),
];
pub(super) const AUDIT_CHAIN_COLUMNS: &[Column] = &[
    column("singleton", Integer),
    column("head_id", Integer),
    column("head_hash", Text),
    column("checkpoint_id", Integer),
    column("checkpoint_hash", Text),
];
