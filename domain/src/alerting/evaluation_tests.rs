use super::*;
use chrono::{TimeZone, Utc};

fn at(second: i64) -> Timestamp {
    Utc.with_ymd_and_hms(2026, 1, 1, 0, 0, 0).unwrap() + Duration::seconds(second)
}

const WINDOW: i64 = 90;

fn window() -> Duration {
    Duration::seconds(WINDOW)
}

#[test]
fn a_device_is_down_only_once_seen_and_silent_for_longer_than_the_wait() {
    let after = Duration::seconds(600);
    assert!(!is_down(None, at(10_000), after));
    assert!(!is_down(Some(at(0)), at(600), after));
    assert!(is_down(Some(at(0)), at(601), after));
}

#[test]
fn a_gone_or_unmatched_device_resolves_its_alert_at_once() {
    assert_eq!(
        settle_device_alert(None, None, at(5), window()),
        CalmVerdict::Resolve
    );
    assert_eq!(
        settle_device_alert(Some((false, Some(at(0)))), None, at(5), window()),
        CalmVerdict::Resolve
    );
}

#[test]
fn a_device_back_online_resolves_after_two_windows_without_a_break() {
    let back = at(1000);
    let first = settle_device_alert(Some((true, Some(back))), None, at(1001), window());
    assert_eq!(first, CalmVerdict::Stay(Some(back)));
    let later = settle_device_alert(
        Some((true, Some(at(1170)))),
        Some(back),
        at(1000 + 2 * WINDOW - 1),
        window(),
    );
    assert_eq!(later, CalmVerdict::Stay(Some(back)));
    let done = settle_device_alert(
        Some((true, Some(at(1175)))),
        Some(back),
        at(1000 + 2 * WINDOW),
        window(),
    );
    assert_eq!(done, CalmVerdict::Resolve);
}

#[test]
fn a_device_that_drops_again_keeps_its_alert_and_starts_over() {
    let dropped = settle_device_alert(
        Some((true, Some(at(1000)))),
        Some(at(1000)),
        at(1000 + WINDOW),
        window(),
    );
    assert_eq!(dropped, CalmVerdict::Stay(None));
    let back = settle_device_alert(Some((true, Some(at(1200)))), None, at(1200), window());
    assert_eq!(back, CalmVerdict::Stay(Some(at(1200))));
}

#[test]
fn a_fleet_alert_opens_once_the_share_stayed_above_for_the_wait() {
    let after = Duration::seconds(120);
    assert_eq!(
        fleet_verdict(false, None, Some(at(0)), at(50), after, window()),
        FleetVerdict::Watch(None)
    );
    assert_eq!(
        fleet_verdict(true, None, None, at(100), after, window()),
        FleetVerdict::Watch(Some(at(100)))
    );
    assert_eq!(
        fleet_verdict(true, None, Some(at(100)), at(219), after, window()),
        FleetVerdict::Watch(Some(at(100)))
    );
    assert_eq!(
        fleet_verdict(true, None, Some(at(100)), at(220), after, window()),
        FleetVerdict::Open
    );
}

#[test]
fn a_fleet_alert_resolves_after_two_calm_windows() {
    let after = Duration::seconds(120);
    assert_eq!(
        fleet_verdict(true, Some(Some(at(0))), None, at(500), after, window()),
        FleetVerdict::Alert(CalmVerdict::Stay(None))
    );
    assert_eq!(
        fleet_verdict(false, Some(None), None, at(500), after, window()),
        FleetVerdict::Alert(CalmVerdict::Stay(Some(at(500))))
    );
    assert_eq!(
        fleet_verdict(
            false,
            Some(Some(at(500))),
            None,
            at(500 + 2 * WINDOW),
            after,
            window()
        ),
        FleetVerdict::Alert(CalmVerdict::Resolve)
    );
}
