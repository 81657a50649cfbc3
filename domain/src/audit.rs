//! The audit log: one entry for each change a person, a device, the
//! command line or the server itself makes, chained by SHA-256 so that an
//! edited, deleted or reordered entry shows (`docs/audit.md`).
//!
//! A change asks for its entry with an [`AuditNote`] (who, from where, what,
//! to what); the store that makes the change seals the note into the next
//! [`AuditEntry`] of the chain in the same transaction. [`ChainCheck`] walks
//! the stored entries and names the first that does not hold.

mod action;
mod actor;
mod canonical;
mod entry;
mod note;
mod verify;

pub use action::{AuditAction, UnknownAuditAction};
pub use actor::{Actor, ActorKind};
pub use entry::{AuditEntry, ChainLink, GENESIS_HASH};
pub use note::{AuditDetail, AuditNote, AuditTarget, Origin};
pub use verify::{Breach, ChainCheck, ChainVerdict};
