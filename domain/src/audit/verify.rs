//! Walking the stored chain: every entry's place, link and hash.

use super::{AuditEntry, ChainLink, GENESIS_HASH};

/// The first entry that does not hold, and why, in one line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Breach {
    /// The entry's id.
    pub id: u64,
    /// Why it does not hold.
    pub reason: String,
}

/// What verification found: how many entries are present and the first
/// breach, if any.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChainVerdict {
    /// The entries present.
    pub entries: u64,
    /// The first entry that does not hold.
    pub breach: Option<Breach>,
}

/// Checks entries given in ascending id order, from the checkpoint (or the
/// genesis) on: each must be its predecessor's successor, link to its hash,
/// and hash to its own `hash`.
#[derive(Debug, Clone)]
pub struct ChainCheck {
    previous: ChainLink,
    entries: u64,
    breach: Option<Breach>,
}

impl ChainCheck {
    /// A walk that starts after `checkpoint`, the newest entry retention
    /// deleted, or at entry 1 when nothing was.
    pub fn new(checkpoint: Option<ChainLink>) -> Self {
        Self {
            previous: checkpoint.unwrap_or(ChainLink {
                id: 0,
                hash: GENESIS_HASH.to_owned(),
            }),
            entries: 0,
            breach: None,
        }
    }

    /// Checks the next entry. After the first breach the rest are only
    /// counted.
    pub fn visit(&mut self, entry: &AuditEntry) {
        self.entries += 1;
        if self.breach.is_none()
            && let Some(reason) = self.fault(entry)
        {
            self.breach = Some(Breach {
                id: entry.id,
                reason,
            });
        }
        self.previous = entry.link();
    }

    fn fault(&self, entry: &AuditEntry) -> Option<String> {
        let previous = &self.previous;
        if entry.id <= previous.id {
            return Some(format!(
                "entry {} comes at or before entry {}, where the chain already is",
                entry.id, previous.id
            ));
        }
        if entry.id != previous.id + 1 {
            return Some(format!(
                "its predecessor, entry {}, is missing",
                entry.id - 1
            ));
        }
        if entry.previous_hash != previous.hash {
            return Some(match previous.id {
                0 => "its previous_hash is not 64 zeros, as the first entry's must be".to_owned(),
                id => format!("its previous_hash is not the hash of entry {id}"),
            });
        }
        match entry.computed_hash() {
            None => Some("its detail is not JSON".to_owned()),
            Some(hash) if hash != entry.hash => {
                Some("its hash does not match its content".to_owned())
            }
            Some(_) => None,
        }
    }

    /// The verdict, given the newest entry the log recorded writing: a log
    /// whose newest entries were deleted ends before it.
    pub fn finish(self, head: Option<&ChainLink>) -> ChainVerdict {
        let mut breach = self.breach;
        if breach.is_none()
            && let Some(head) = head
            && head.id > self.previous.id
        {
            let first = self.previous.id + 1;
            breach = Some(Breach {
                id: first,
                reason: format!(
                    "entries {first} to {} are missing: the log wrote up to entry {}",
                    head.id, head.id
                ),
            });
        }
        ChainVerdict {
            entries: self.entries,
            breach,
        }
    }
}

#[cfg(test)]
#[path = "verify_tests.rs"]
mod tests;
