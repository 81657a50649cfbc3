//! The pure rules of devmgr: no I/O, no async, no framework types.
//!
//! Everything here is a value that validates itself when it is built, so
//! code further out can only hold well-formed data.

pub mod account;
pub mod alerting;
pub mod amount;
pub mod audit;
pub mod bounded_text;
mod canonical_uuid;
pub mod command;
pub mod device;
pub mod email;
pub mod job;
pub mod listening_port;
pub mod machine_type;
pub mod password;
pub mod secret;
pub mod selector;
pub mod tag;
pub mod text;
pub mod time;
pub mod webhook;

pub use account::{Account, AccountId};
pub use alerting::{
    AfterSeconds, AlertId, AlertState, CalmVerdict, FleetVerdict, MailAdmission, MailWindow,
    MonitorId, MonitorKind, MonitorKindCode, OfflineRatio,
};
pub use amount::{Amount, PollWait};
pub use audit::{
    Actor, AuditAction, AuditDetail, AuditEntry, AuditNote, AuditTarget, ChainLink, Origin,
};
pub use bounded_text::{
    AckDetail, AgentVersion, BoundedText, DeviceDescription, DeviceName, MonitorName,
    OperatingSystem, PortName, ProfileName, Uname,
};
pub use command::{
    Action, Command, CommandId, CommandOutcome, CommandRecord, CommandState, CommandStatus,
};
pub use device::{Device, DeviceFacts, FactsReport, Serial};
pub use email::EmailAddress;
pub use job::{
    HaltFailureRatio, JobId, JobSettings, JobStatus, TargetCounts, TargetStatus, WaveInterval,
    WavePlan, WaveSize, WaveVerdict,
};
pub use listening_port::{Port, PortNumber, Protocol};
pub use machine_type::MachineType;
pub use secret::InstallToken;
pub use selector::{Criteria, DeviceOrdering, OrderKey, Search, Selector, SelectorError};
pub use tag::{Tag, TagChange, TagCount, TagSet, TooManyTags};
pub use time::Timestamp;
pub use webhook::{
    DeliveryId, DeliveryStatus, EventSet, TargetHost, TargetUrl, WebhookEvent, WebhookId,
};
