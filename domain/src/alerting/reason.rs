//! The words an alert is given when it opens.

use super::{AfterSeconds, OfflineRatio};
use crate::bounded_text::DeviceName;
use crate::time::{Timestamp, format_api};

/// Why a device monitor opened an alert:
/// `No heartbeat from "<name>" since <last_seen_time> UTC (more than <after_seconds> s).`
pub fn device_down_reason(name: &DeviceName, last_seen: Timestamp, after: AfterSeconds) -> String {
    format!(
        "No heartbeat from \"{}\" since {} UTC (more than {} s).",
        name.as_str(),
        format_api(last_seen),
        after.seconds()
    )
}

/// Why a fleet monitor opened an alert:
/// `<k> of <n> selected devices offline (<p> %), above <r> % for <after_seconds> s.`
pub fn fleet_reason(
    offline: u64,
    selected: u64,
    ratio: OfflineRatio,
    after: AfterSeconds,
) -> String {
    let share = if selected == 0 {
        0
    } else {
        // 100·k/n rounded half up, in integers.
        (200 * u128::from(offline) + u128::from(selected)) / (2 * u128::from(selected))
    };
    format!(
        "{offline} of {selected} selected devices offline ({share} %), above {} % for {} s.",
        percent(ratio),
        after.seconds()
    )
}

/// 100·ratio rounded half up to a whole number, as a person reads the
/// decimal the ratio was written in (0.285 is 29, not 28).
pub fn percent(ratio: OfflineRatio) -> u32 {
    // Nine decimals absorb the binary error of a decimal written ratio.
    let hundredths = (ratio.get() * 100.0 * 1e9).round() / 1e9;
    (hundredths + 0.5).floor() as u32
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    fn after(seconds: u32) -> AfterSeconds {
        AfterSeconds::from_stored(seconds)
    }

    #[test]
    fn a_device_reason_names_the_device_its_last_heartbeat_and_the_wait() {
        let name = DeviceName::parse("Gate \"A\"").unwrap();
        let seen = chrono::Utc.with_ymd_and_hms(2026, 3, 4, 5, 6, 7).unwrap();
        assert_eq!(
            device_down_reason(&name, seen, after(600)),
            "No heartbeat from \"Gate \"A\"\" since 2026-03-04T05:06:07 UTC (more than 600 s)."
        );
    }

    #[test]
    fn a_fleet_reason_rounds_both_shares_half_up() {
        let ratio = OfflineRatio::new(0.285).unwrap();
        assert_eq!(
            fleet_reason(1, 8, ratio, after(120)),
            "1 of 8 selected devices offline (13 %), above 29 % for 120 s."
        );
        let third = OfflineRatio::new(0.125).unwrap();
        assert_eq!(
            fleet_reason(2, 3, third, after(90)),
            "2 of 3 selected devices offline (67 %), above 13 % for 90 s."
        );
        assert_eq!(
            fleet_reason(1, 200, OfflineRatio::new(0.0).unwrap(), after(90)),
            "1 of 200 selected devices offline (1 %), above 0 % for 90 s."
        );
    }

    #[test]
    fn whole_percentages_are_kept() {
        for (ratio, expected) in [(0.0, 0), (0.5, 50), (1.0, 100), (0.005, 1), (0.0049, 0)] {
            assert_eq!(
                percent(OfflineRatio::new(ratio).unwrap()),
                expected,
                "{ratio}"
            );
        }
    }
}
