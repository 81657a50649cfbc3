//! What a monitor watches for: its kind, how long a condition must last,
//! and the offline share a fleet monitor tolerates.

use crate::job::OutOfBounds;
use chrono::Duration;

/// The longest a condition may be required to last, in seconds (a week).
pub const MAX_AFTER_SECONDS: u32 = 604_800;

/// How long a condition must last before an alert opens: from the online
/// window (a shorter wait could not tell a late heartbeat from a lost
/// device) to [`MAX_AFTER_SECONDS`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct AfterSeconds(u32);

impl AfterSeconds {
    /// `seconds`, if within `min` (the online window) to [`MAX_AFTER_SECONDS`].
    pub fn new(seconds: u64, min: u32) -> Result<Self, OutOfBounds> {
        match u32::try_from(seconds) {
            Ok(seconds) if (min..=MAX_AFTER_SECONDS).contains(&seconds) => Ok(Self(seconds)),
            _ => Err(OutOfBounds {
                min: f64::from(min),
                max: f64::from(MAX_AFTER_SECONDS),
            }),
        }
    }

    /// Takes a value read back from storage as it is.
    pub const fn from_stored(seconds: u32) -> Self {
        Self(seconds)
    }

    /// In seconds.
    pub const fn seconds(self) -> u32 {
        self.0
    }

    /// As a duration.
    pub fn duration(self) -> Duration {
        Duration::seconds(i64::from(self.0))
    }
}

/// The share of selected devices that may be offline: 0 to 1.
#[derive(Debug, Clone, Copy, PartialEq, PartialOrd)]
pub struct OfflineRatio(f64);

impl OfflineRatio {
    /// `ratio`, if a number from 0 to 1.
    pub fn new(ratio: f64) -> Result<Self, OutOfBounds> {
        if (0.0..=1.0).contains(&ratio) {
            Ok(Self(ratio))
        } else {
            Err(OutOfBounds { min: 0.0, max: 1.0 })
        }
    }

    /// The share.
    pub const fn get(self) -> f64 {
        self.0
    }

    /// Whether `offline` of `selected` devices is more than this share (no
    /// selected device: a share of 0).
    pub fn exceeded_by(self, offline: u64, selected: u64) -> bool {
        selected > 0 && (offline as f64) > self.0 * (selected as f64)
    }
}

/// What a monitor watches for.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum MonitorKind {
    /// Each selected device that has been seen but has sent no heartbeat
    /// for longer than the monitor's `after_seconds`.
    DeviceOffline,
    /// The share of offline devices among those selected (never seen ones
    /// included) above this ratio for the monitor's `after_seconds`.
    FleetOfflineRatio(OfflineRatio),
}

/// A monitor kind's name, without its ratio.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MonitorKindCode {
    /// `device_offline`.
    DeviceOffline,
    /// `fleet_offline_ratio`.
    FleetOfflineRatio,
}

impl MonitorKindCode {
    /// Every kind, in the order the API lists them.
    pub const ALL: [Self; 2] = [Self::DeviceOffline, Self::FleetOfflineRatio];

    /// The word the API shows and the stores keep.
    pub const fn code(self) -> &'static str {
        match self {
            Self::DeviceOffline => "device_offline",
            Self::FleetOfflineRatio => "fleet_offline_ratio",
        }
    }

    /// The kind named `code`, if any.
    pub fn parse(code: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|kind| kind.code() == code)
    }
}

impl MonitorKind {
    /// The kind's name.
    pub const fn code(self) -> MonitorKindCode {
        match self {
            Self::DeviceOffline => MonitorKindCode::DeviceOffline,
            Self::FleetOfflineRatio(_) => MonitorKindCode::FleetOfflineRatio,
        }
    }

    /// The fleet monitor's ratio (`None` for a device monitor).
    pub const fn ratio(self) -> Option<OfflineRatio> {
        match self {
            Self::DeviceOffline => None,
            Self::FleetOfflineRatio(ratio) => Some(ratio),
        }
    }

    /// The kind from its stored name and ratio; `None` when they disagree.
    pub fn from_stored(code: &str, ratio: Option<f64>) -> Option<Self> {
        match (MonitorKindCode::parse(code)?, ratio) {
            (MonitorKindCode::DeviceOffline, _) => Some(Self::DeviceOffline),
            (MonitorKindCode::FleetOfflineRatio, Some(ratio)) => {
                OfflineRatio::new(ratio).ok().map(Self::FleetOfflineRatio)
            }
            (MonitorKindCode::FleetOfflineRatio, None) => None,
        }
    }
}
