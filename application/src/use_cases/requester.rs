//! Who asks for a change over HTTP, as the audit log records them.

use domain::{Account, Actor, AuditAction, AuditDetail, AuditNote, AuditTarget, Origin, Timestamp};
use std::net::IpAddr;

/// A signed-in user asking for a change (through the API or a console
/// session), and the address the request came from.
#[derive(Debug, Clone, Copy)]
pub struct Requester<'a> {
    /// The user's account: the owner of whatever the change touches.
    pub account: &'a Account,
    /// The client's address, as throttling takes it.
    pub address: Option<IpAddr>,
}

impl<'a> Requester<'a> {
    /// `account` asking from `address`.
    pub fn new(account: &'a Account, address: Option<IpAddr>) -> Self {
        Self { account, address }
    }

    /// The user, from the request's address, at `time`.
    pub fn origin(&self, time: Timestamp) -> Origin {
        Origin::new(time, Actor::user(&self.account.email), self.address)
    }

    /// The entry of a change the user made to `target` at `time`.
    pub fn note(&self, time: Timestamp, action: AuditAction, target: AuditTarget) -> AuditNote {
        AuditNote::new(self.origin(time), action, target)
    }

    /// [`note`](Self::note) with particulars.
    pub fn note_with(
        &self,
        time: Timestamp,
        action: AuditAction,
        target: AuditTarget,
        detail: AuditDetail,
    ) -> AuditNote {
        AuditNote::with_detail(self.origin(time), action, target, detail)
    }

    /// The entry of a change the user made to their own account.
    pub fn account_note(&self, time: Timestamp, action: AuditAction) -> AuditNote {
        self.note(time, action, AuditTarget::account(&self.account.email))
    }
}
