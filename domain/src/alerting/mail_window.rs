//! Alert mail in windows: an account's first alert mail opens a window; its
//! first [`MAIL_WINDOW_FULL_MAILS`] notifications go as mails of their own,
//! the rest together in one digest when the window ends. The first
//! notification after a window opens the next.

use crate::time::Timestamp;
use chrono::Duration;

/// How many notifications of one window are mailed one by one.
pub const MAIL_WINDOW_FULL_MAILS: u32 = 10;

/// An account's current alert mail window.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MailWindow {
    /// When it opened.
    pub opened: Timestamp,
    /// How many of its notifications were mailed one by one.
    pub mailed: u32,
}

/// How one notification is mailed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MailAdmission {
    /// In a mail of its own now.
    Mail,
    /// In the digest of the window that opened at this time, when it ends.
    Digest(Timestamp),
}

impl MailWindow {
    /// Admits one notification at `now` into `current` (the account's last
    /// window, if any) for windows of `length`; returns the window after it
    /// and how the notification goes.
    pub fn admit(
        current: Option<MailWindow>,
        now: Timestamp,
        length: Duration,
    ) -> (MailWindow, MailAdmission) {
        match current {
            Some(window) if now < window.opened + length => {
                if window.mailed < MAIL_WINDOW_FULL_MAILS {
                    let next = MailWindow {
                        mailed: window.mailed + 1,
                        ..window
                    };
                    (next, MailAdmission::Mail)
                } else {
                    (window, MailAdmission::Digest(window.opened))
                }
            }
            _ => (
                MailWindow {
                    opened: now,
                    mailed: 1,
                },
                MailAdmission::Mail,
            ),
        }
    }

    /// Whether the window that opened at `opened` has ended at `now`, so its
    /// digest is due.
    pub fn has_ended(opened: Timestamp, now: Timestamp, length: Duration) -> bool {
        now >= opened + length
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::{TimeZone, Utc};

    fn at(second: i64) -> Timestamp {
        Utc.with_ymd_and_hms(2026, 1, 1, 0, 0, 0).unwrap() + Duration::seconds(second)
    }

    #[test]
    fn ten_mails_then_the_digest_then_a_new_window() {
        let length = Duration::seconds(60);
        let mut window = None;
        for n in 0..MAIL_WINDOW_FULL_MAILS {
            let (next, admission) = MailWindow::admit(window, at(i64::from(n)), length);
            assert_eq!(admission, MailAdmission::Mail);
            window = Some(next);
        }
        let (next, admission) = MailWindow::admit(window, at(30), length);
        assert_eq!(admission, MailAdmission::Digest(at(0)));
        assert!(!MailWindow::has_ended(at(0), at(59), length));
        assert!(MailWindow::has_ended(at(0), at(60), length));
        let (fresh, admission) = MailWindow::admit(Some(next), at(60), length);
        assert_eq!(admission, MailAdmission::Mail);
        assert_eq!(
            fresh,
            MailWindow {
                opened: at(60),
                mailed: 1
            }
        );
    }
}
