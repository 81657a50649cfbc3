//! The API's resources, one module each: its routes, the typed bodies it
//! reads, the typed answers it writes (with their descriptions) and its
//! handlers.

pub mod accounts;
pub mod agent;
pub mod alerts;
pub mod audit;
pub mod auth;
pub mod devices;
pub mod docs;
pub mod enrolment;
pub mod fleet;
pub mod health;
pub mod jobs;
pub mod lists;
pub mod monitors;
pub mod password_reset;
pub mod profile;
pub mod verification;
pub mod webhooks;

pub use crate::answer::DETAIL_SCHEMA;
pub use crate::description::ObjectSchema;

/// The schema of every object the API answers with, for the OpenAPI
/// components.
pub const OBJECT_SCHEMAS: &[&ObjectSchema] = &[
    &auth::AUTH_TOKEN_SCHEMA,
    &agent::COMMAND_LIST_SCHEMA,
    &devices::COMMAND_RECORD_SCHEMA,
    &DETAIL_SCHEMA,
    &devices::DEVICE_SCHEMA,
    &devices::DEVICE_PAGE_SCHEMA,
    &enrolment::ENROLMENT_SCHEMA,
    &agent::HEARTBEAT_REPLY_SCHEMA,
    &health::LIVENESS_SCHEMA,
    &devices::PORT_SCHEMA,
    &profile::PROFILE_SCHEMA,
    &health::READINESS_SCHEMA,
    &jobs::JOB_SCHEMA,
    &jobs::JOB_PAGE_SCHEMA,
    &jobs::TARGET_SCHEMA,
    &jobs::TARGET_PAGE_SCHEMA,
    &devices::REBOOT_SCHEMA,
    &fleet::MATCHED_SCHEMA,
    &fleet::SELECTION_SCHEMA,
    &fleet::TAG_COUNT_SCHEMA,
    &monitors::MONITOR_SCHEMA,
    &monitors::MONITOR_PAGE_SCHEMA,
    &alerts::ALERT_SCHEMA,
    &alerts::ALERT_PAGE_SCHEMA,
    &webhooks::WEBHOOK_SCHEMA,
    &webhooks::CREATED_WEBHOOK_SCHEMA,
    &webhooks::WEBHOOK_PAGE_SCHEMA,
    &webhooks::DELIVERY_SCHEMA,
    &webhooks::DELIVERY_PAGE_SCHEMA,
    &webhooks::PING_SCHEMA,
    &audit::AUDIT_ENTRY_SCHEMA,
    &audit::AUDIT_PAGE_SCHEMA,
];
