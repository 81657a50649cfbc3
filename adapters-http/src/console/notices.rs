//! Notices a form leaves for the page it leads to, named by a code in the
//! redirect's `?notice=` (only these texts can appear: nothing from the URL
//! is ever shown).

/// The codes and their texts.
const NOTICES: &[(&str, &str)] = &[
    ("signed-out", "You are logged out."),
    (
        "signed-out-everywhere",
        "You are logged out everywhere: every session and API token of your account has ended.",
    ),
    ("password-set", "Your new password is set. Log in with it."),
    (
        "reset-sent",
        "If an account has this address, a link to reset its password is on its way. It works for 24 hours.",
    ),
    (
        "verification-sent",
        "A new verification link is on its way.",
    ),
    (
        "rebooted",
        "Reboot requested: the device reboots when its agent next checks in.",
    ),
    ("saved", "Saved."),
    (
        "deleted",
        "The device is deleted; its agent can no longer connect.",
    ),
    ("name-saved", "Your name is saved."),
    ("tagged", "The tags are changed."),
    ("password-changed", "Your password is changed."),
    (
        "job-started",
        "The job is started: its devices reboot wave by wave.",
    ),
    (
        "job-scheduled",
        "The job is scheduled: it starts at its start time.",
    ),
    (
        "job-cancelled",
        "The job is cancelled: its waiting devices are skipped; reboots already sent go on.",
    ),
    (
        "job-resumed",
        "The job is resumed: its next wave is under way.",
    ),
    ("job-already-finished", "This job has already finished."),
    ("job-not-halted", "Only a halted job can be resumed."),
    (
        "monitor-created",
        "The monitor is created: it is evaluated every second.",
    ),
    (
        "monitor-snoozed",
        "The monitor is snoozed: its alerts open and resolve as usual, without mail or webhooks.",
    ),
    (
        "monitor-snooze-ended",
        "The monitor is not snoozed: its alerts are notified again.",
    ),
    ("monitor-deleted", "The monitor and its alerts are deleted."),
    (
        "webhook-deleted",
        "The webhook and its deliveries are deleted.",
    ),
    (
        "webhook-pinged",
        "A ping is on its way: its delivery is at the top of the log.",
    ),
    (
        "install-token",
        "Your install token is new: the old one no longer enrols devices.",
    ),
];

/// The text of a notice code, if it is one.
pub(crate) fn text(code: &str) -> Option<&'static str> {
    NOTICES
        .iter()
        .find(|(known, _)| *known == code)
        .map(|(_, text)| *text)
}

/// The notice after tagging `count` devices (the only number a notice
/// takes from the URL: it is read as a number, never as text).
pub(crate) fn tagged(count: u64) -> String {
    format!("Tags changed on {}.", devices(count))
}

/// "1 device", "3 devices".
pub(crate) fn devices(count: u64) -> String {
    if count == 1 {
        "1 device".to_owned()
    } else {
        format!("{count} devices")
    }
}

/// The path to `path` with the notice `code`.
pub(crate) fn after(path: &str, code: &'static str) -> String {
    debug_assert!(text(code).is_some(), "unknown notice {code}");
    format!("{path}?notice={code}")
}
