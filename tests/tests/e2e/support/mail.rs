//! The mail a [`Server`] sent: kept by the in-process server's
//! [`MemoryMailer`], or written to its mail directory.

use super::Server;
use adapters_mail::MemoryMailer;
use std::fs;
use std::path::PathBuf;
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

/// How long a test waits for mail.
const MAIL_TIMEOUT: Duration = Duration::from_secs(10);

/// Where a server's mail goes, for the test to read it.
pub(super) enum Mail {
    /// To the mailer of the in-process server.
    Memory(Arc<MemoryMailer>),
    /// Into this directory as `.eml` files (`--mail-dir`); it stays empty
    /// when the server sends by SMTP.
    Dir(PathBuf),
}

impl Server {
    /// Every mail sent so far, oldest first, each as its RFC 5322 message
    /// (the contents of an `.eml` file).
    pub fn mails(&self) -> Vec<String> {
        match &self.mail {
            Mail::Memory(mailer) => mailer.sent().into_iter().map(|mail| mail.message).collect(),
            Mail::Dir(dir) => {
                let mut files: Vec<(std::time::SystemTime, PathBuf)> = fs::read_dir(dir)
                    .expect("the mail directory is readable")
                    .filter_map(Result::ok)
                    .map(|entry| entry.path())
                    .filter(|path| path.extension().is_some_and(|ext| ext == "eml"))
                    .map(|path| {
                        let modified = fs::metadata(&path)
                            .and_then(|meta| meta.modified())
                            .unwrap_or(std::time::UNIX_EPOCH);
                        (modified, path)
                    })
                    .collect();
                files.sort();
                files
                    .into_iter()
                    .map(|(_, path)| fs::read_to_string(&path).expect("an .eml file is text"))
                    .collect()
            }
        }
    }

    /// Waits (up to 10 s) until `ready` holds for the mails sent so far
    /// (oldest first) and returns them; `Err` with them at the timeout. An
    /// in-process server's mailer wakes the wait; a mail directory is looked
    /// at every 50 ms.
    fn wait_for(
        &self,
        mut ready: impl FnMut(&[String]) -> bool,
    ) -> Result<Vec<String>, Vec<String>> {
        match &self.mail {
            Mail::Memory(mailer) => {
                let messages = |sent: &[adapters_mail::SentMail]| {
                    sent.iter()
                        .map(|mail| mail.message.clone())
                        .collect::<Vec<_>>()
                };
                mailer
                    .wait_until(MAIL_TIMEOUT, |sent| ready(&messages(sent)))
                    .map(|sent| messages(&sent))
                    .map_err(|sent| messages(&sent))
            }
            Mail::Dir(_) => {
                let deadline = Instant::now() + MAIL_TIMEOUT;
                loop {
                    let mails = self.mails();
                    if ready(&mails) {
                        return Ok(mails);
                    }
                    if Instant::now() >= deadline {
                        return Err(mails);
                    }
                    thread::sleep(Duration::from_millis(50));
                }
            }
        }
    }

    /// Waits (up to 10 s) until at least `count` mails were sent; returns all of them.
    #[track_caller]
    pub fn wait_for_mails(&self, count: usize) -> Vec<String> {
        match self.wait_for(|mails| mails.len() >= count) {
            Ok(mails) => mails,
            Err(mails) => panic!(
                "expected {count} mail(s), found {}\nlog:\n{}",
                mails.len(),
                self.log()
            ),
        }
    }

    /// Waits for a mail, then checks that it is the only one and that it goes
    /// to `recipient`; returns it. Call it after a request known to send one
    /// mail to `recipient`, to show that earlier requests sent none.
    #[track_caller]
    pub fn assert_only_mail_to(&self, recipient: &str) -> String {
        let mails = self.wait_for_mails(1);
        // Give a stray mail (sent by an earlier request) time to show up too.
        thread::sleep(Duration::from_millis(300));
        let mails = if mails.len() == 1 {
            self.mails()
        } else {
            mails
        };
        assert_eq!(
            mails.len(),
            1,
            "exactly one mail expected, got:\n{}",
            mails.join("\n-----\n")
        );
        assert!(
            mails[0].contains(recipient),
            "the mail should go to {recipient}:\n{}",
            mails[0]
        );
        mails[0].clone()
    }

    /// Waits (up to 10 s) for a mail that is not among `earlier` (an earlier
    /// result of [`Server::mails`]) and returns it.
    #[track_caller]
    pub fn wait_for_new_mail(&self, earlier: &[String]) -> String {
        let is_new = |mail: &String| !earlier.contains(mail);
        match self.wait_for(|mails| mails.iter().any(is_new)) {
            Ok(mails) => mails.into_iter().find(is_new).expect("a new mail"),
            Err(_) => panic!(
                "expected a new mail besides the {} earlier one(s)\nlog:\n{}",
                earlier.len(),
                self.log()
            ),
        }
    }

    /// Asserts that, after a short wait for stray mail, exactly `count` mails
    /// were sent: call it after requests that must send none.
    #[track_caller]
    pub fn assert_mail_count_stays(&self, count: usize) {
        thread::sleep(Duration::from_millis(500));
        let mails = self.mails();
        assert_eq!(
            mails.len(),
            count,
            "{count} mail(s) expected, got:\n{}",
            mails.join("\n-----\n")
        );
    }
}
