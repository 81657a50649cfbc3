//! Where a job stands, where each of its targets stands, and how many
//! targets stand where.

use crate::command::CommandState;

/// Where a job stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum JobStatus {
    /// Waiting for its start time; no targets yet.
    Scheduled,
    /// Started: a wave is under way, or the next one waits for its interval.
    Running,
    /// A wave failed too often; waits to be resumed or cancelled.
    Halted,
    /// Every wave ended (or there were no targets).
    Completed,
    /// Cancelled by its owner.
    Cancelled,
}

impl JobStatus {
    /// Every status.
    pub const ALL: [JobStatus; 5] = [
        Self::Scheduled,
        Self::Running,
        Self::Halted,
        Self::Completed,
        Self::Cancelled,
    ];

    /// The word the API shows and the stores keep.
    pub const fn code(self) -> &'static str {
        match self {
            Self::Scheduled => "scheduled",
            Self::Running => "running",
            Self::Halted => "halted",
            Self::Completed => "completed",
            Self::Cancelled => "cancelled",
        }
    }

    /// The status with this exact code.
    pub fn from_code(code: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|status| status.code() == code)
    }

    /// Whether the job is over (`completed` or `cancelled`): it has a
    /// finished time and can be neither cancelled nor resumed.
    pub const fn is_finished(self) -> bool {
        matches!(self, Self::Completed | Self::Cancelled)
    }

    /// Whether its owner may cancel it: any status but a finished one.
    pub const fn can_cancel(self) -> bool {
        !self.is_finished()
    }

    /// Whether its owner may resume it: only when halted.
    pub const fn can_resume(self) -> bool {
        matches!(self, Self::Halted)
    }
}

/// Where one target of a job stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TargetStatus {
    /// Its wave has not started.
    Waiting,
    /// Its command is not handed out yet.
    Pending,
    /// Its command was handed out, not acknowledged yet.
    Delivered,
    /// The agent is carrying its command out.
    Received,
    /// Its command was carried out.
    Done,
    /// Its command could not be carried out.
    Failed,
    /// Its command was never acknowledged and is too old now.
    Lapsed,
    /// The job was cancelled before its wave, or the device was deleted
    /// before the target ended.
    Skipped,
}

impl TargetStatus {
    /// Every status, in the order counts are shown.
    pub const ALL: [TargetStatus; 8] = [
        Self::Waiting,
        Self::Pending,
        Self::Delivered,
        Self::Received,
        Self::Done,
        Self::Failed,
        Self::Lapsed,
        Self::Skipped,
    ];

    /// The word the API shows and the stores keep.
    pub const fn code(self) -> &'static str {
        match self {
            Self::Waiting => "waiting",
            Self::Pending => "pending",
            Self::Delivered => "delivered",
            Self::Received => "received",
            Self::Done => "done",
            Self::Failed => "failed",
            Self::Lapsed => "lapsed",
            Self::Skipped => "skipped",
        }
    }

    /// The status with this exact code.
    pub fn from_code(code: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|status| status.code() == code)
    }

    /// The status of a target whose command stands so.
    pub const fn of_command(state: CommandState) -> Self {
        match state {
            CommandState::Pending => Self::Pending,
            CommandState::Delivered => Self::Delivered,
            CommandState::Received => Self::Received,
            CommandState::Done => Self::Done,
            CommandState::Failed => Self::Failed,
            CommandState::Lapsed => Self::Lapsed,
        }
    }

    /// Whether the target has ended: `done`, `failed`, `lapsed` or `skipped`.
    pub const fn has_ended(self) -> bool {
        matches!(
            self,
            Self::Done | Self::Failed | Self::Lapsed | Self::Skipped
        )
    }

    const fn index(self) -> usize {
        match self {
            Self::Waiting => 0,
            Self::Pending => 1,
            Self::Delivered => 2,
            Self::Received => 3,
            Self::Done => 4,
            Self::Failed => 5,
            Self::Lapsed => 6,
            Self::Skipped => 7,
        }
    }
}

/// How many targets stand in each status.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct TargetCounts([u64; 8]);

impl TargetCounts {
    /// The targets in `status`.
    pub const fn get(&self, status: TargetStatus) -> u64 {
        self.0[status.index()]
    }

    /// Counts `count` more targets in `status`.
    pub fn add(&mut self, status: TargetStatus, count: u64) {
        self.0[status.index()] += count;
    }

    /// The counts with `count` more in `status`.
    #[must_use]
    pub fn with(mut self, status: TargetStatus, count: u64) -> Self {
        self.add(status, count);
        self
    }

    /// Every status with its count, in [`TargetStatus::ALL`] order.
    pub fn iter(&self) -> impl Iterator<Item = (TargetStatus, u64)> + '_ {
        TargetStatus::ALL
            .into_iter()
            .map(|status| (status, self.get(status)))
    }

    /// All the targets.
    pub fn total(&self) -> u64 {
        self.0.iter().sum()
    }

    /// Whether every target has ended (true when there are none).
    pub fn all_ended(&self) -> bool {
        self.iter()
            .all(|(status, count)| status.has_ended() || count == 0)
    }

    /// (failed + lapsed) / (done + failed + lapsed); 0 when nothing finished
    /// (skipped targets count on neither side).
    pub fn failure_ratio(&self) -> f64 {
        let failed = self.get(TargetStatus::Failed) + self.get(TargetStatus::Lapsed);
        let finished = failed + self.get(TargetStatus::Done);
        if finished == 0 {
            0.0
        } else {
            failed as f64 / finished as f64
        }
    }
}
