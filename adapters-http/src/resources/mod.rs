//! The API's resources, one module each: its routes, the typed bodies it
//! reads, the typed answers it writes (with their descriptions) and its
//! handlers.

pub mod accounts;
pub mod agent;
pub mod auth;
pub mod devices;
pub mod docs;
pub mod enrolment;
pub mod password_reset;
pub mod profile;
pub mod verification;

pub use crate::answer::DETAIL;
pub use crate::description::Resource;

/// Every resource, for the OpenAPI components.
pub const ALL: &[&Resource] = &[
    &auth::AUTH_TOKEN,
    &agent::COMMAND_LIST,
    &devices::COMMAND_RECORD,
    &DETAIL,
    &devices::DEVICE,
    &enrolment::ENROLMENT,
    &agent::HEARTBEAT_REPLY,
    &devices::PORT,
    &profile::PROFILE,
];
