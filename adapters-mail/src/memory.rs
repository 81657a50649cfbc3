//! A mailer that keeps every mail in memory, for tests.

use crate::message::build_message;
use application::mail::Email;
use application::ports::{MailError, Mailer};
use async_trait::async_trait;
use lettre::message::Mailbox;
use std::sync::{Condvar, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

/// One mail a [`MemoryMailer`] was given.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SentMail {
    /// The mail as the application handed it over.
    pub email: Email,
    /// The RFC 5322 message the other mailers deliver for it (what
    /// [`DirMailer`](crate::DirMailer) writes to its file).
    pub message: String,
}

/// Keeps every mail it is given, in the order given, for a test that runs
/// the application in its own process and reads the mail back from this
/// value instead of a folder or an SMTP server.
///
/// A mail is built like every other mailer's ([`build_message`]), so one
/// those would refuse (a malformed recipient) is refused here too, as a
/// permanent failure. Waiting for mail ([`MemoryMailer::wait_until`]) wakes
/// on each mail kept, with no polling.
#[derive(Debug)]
pub struct MemoryMailer {
    from: Mailbox,
    sent: Mutex<Vec<SentMail>>,
    kept: Condvar,
}

impl MemoryMailer {
    /// An empty mailer that sends from `from`.
    pub fn new(from: Mailbox) -> Self {
        Self {
            from,
            sent: Mutex::new(Vec::new()),
            kept: Condvar::new(),
        }
    }

    /// Every mail sent so far, oldest first.
    pub fn sent(&self) -> Vec<SentMail> {
        self.lock().clone()
    }

    /// Blocks the calling thread until `ready` holds for the mail sent so
    /// far (oldest first), or until `timeout` has passed; returns that mail,
    /// as `Err` when it timed out. For synchronous callers (a test's thread),
    /// never an async worker.
    pub fn wait_until(
        &self,
        timeout: Duration,
        mut ready: impl FnMut(&[SentMail]) -> bool,
    ) -> Result<Vec<SentMail>, Vec<SentMail>> {
        let deadline = Instant::now() + timeout;
        let mut sent = self.lock();
        loop {
            if ready(&sent) {
                return Ok(sent.clone());
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Err(sent.clone());
            }
            sent = self
                .kept
                .wait_timeout(sent, left)
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
    }

    /// Blocks the calling thread until a mail to `address` (compared
    /// ignoring case) has been sent, or until `timeout` has passed; returns
    /// the first such mail. Like [`wait_until`](Self::wait_until), not for
    /// an async worker.
    pub fn wait_for_mail_to(&self, address: &str, timeout: Duration) -> Option<SentMail> {
        let to = |mail: &SentMail| mail.email.to.eq_ignore_ascii_case(address);
        let sent = self.wait_until(timeout, |sent| sent.iter().any(to)).ok()?;
        sent.into_iter().find(to)
    }

    fn lock(&self) -> MutexGuard<'_, Vec<SentMail>> {
        // A panic while the list was held cannot leave it half-changed.
        self.sent.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

#[async_trait]
impl Mailer for MemoryMailer {
    async fn send(&self, email: &Email) -> Result<(), MailError> {
        let message =
            build_message(&self.from, email).map_err(|e| MailError::Permanent(e.to_string()))?;
        let message = String::from_utf8_lossy(&message.formatted()).into_owned();
        self.lock().push(SentMail {
            email: email.clone(),
            message,
        });
        self.kept.notify_all();
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    fn mailer() -> MemoryMailer {
        MemoryMailer::new("devmgr <noreply@devmgr.test>".parse().unwrap())
    }

    fn mail(id: &str, to: &str) -> Email {
        Email {
            id: id.into(),
            to: to.into(),
            subject: "Reset your devmgr password".into(),
            text: "Open this link:\n\nhttp://devmgr.test/reset-password/confirm/?key=k\n".into(),
            html: "<p><a href=\"http://devmgr.test/\">Reset</a></p>".into(),
        }
    }

    #[tokio::test]
    async fn keeps_every_mail_in_order_with_its_message() {
        let mailer = mailer();
        mailer.send(&mail("m1", "ann@example.com")).await.unwrap();
        mailer.send(&mail("m2", "bob@example.com")).await.unwrap();
        let sent = mailer.sent();
        assert_eq!(sent.len(), 2);
        assert_eq!(sent[0].email, mail("m1", "ann@example.com"));
        assert_eq!(sent[1].email.id, "m2");
        for header in [
            "From: devmgr <noreply@devmgr.test>",
            "To: ann@example.com",
            "Subject: Reset your devmgr password",
            "Message-ID: <m1@devmgr.test>",
            "multipart/alternative",
        ] {
            assert!(sent[0].message.contains(header), "{header} missing");
        }
        assert!(
            sent[0]
                .message
                .contains("http://devmgr.test/reset-password/confirm/?key=k")
        );
    }

    #[tokio::test]
    async fn a_bad_recipient_is_refused_and_not_kept() {
        let mailer = mailer();
        assert!(matches!(
            mailer.send(&mail("m1", "not an address")).await,
            Err(MailError::Permanent(_))
        ));
        assert!(mailer.sent().is_empty());
    }

    #[test]
    fn a_waiting_thread_wakes_when_the_mail_it_waits_for_is_sent() {
        let mailer = Arc::new(mailer());
        let sender = {
            let mailer = Arc::clone(&mailer);
            std::thread::spawn(move || {
                let runtime = tokio::runtime::Builder::new_current_thread()
                    .build()
                    .unwrap();
                runtime.block_on(async {
                    mailer.send(&mail("m1", "ann@example.com")).await.unwrap();
                    mailer.send(&mail("m2", "Bob@Example.com")).await.unwrap();
                });
            })
        };
        let found = mailer.wait_for_mail_to("bob@example.com", Duration::from_secs(30));
        sender.join().unwrap();
        assert_eq!(found.map(|mail| mail.email.id), Some("m2".to_owned()));
    }

    #[test]
    fn waiting_ends_at_the_timeout_with_the_mail_sent_so_far() {
        let mailer = mailer();
        let start = Instant::now();
        let waited = mailer.wait_until(Duration::from_millis(50), |sent| !sent.is_empty());
        assert_eq!(waited, Err(Vec::new()));
        assert!(start.elapsed() >= Duration::from_millis(50));
        assert_eq!(
            mailer.wait_for_mail_to("ann@example.com", Duration::ZERO),
            None
        );
    }
}
