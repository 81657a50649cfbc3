//! The mail a [`Server`] wrote to its mail directory.

use super::Server;
use std::fs;
use std::path::PathBuf;
use std::thread;
use std::time::{Duration, Instant};

impl Server {
    /// The contents of every `.eml` file in the mail directory, oldest first.
    pub fn mails(&self) -> Vec<String> {
        let mut files: Vec<(std::time::SystemTime, PathBuf)> = fs::read_dir(self.mail_dir())
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

    /// Waits (up to 10 s) until at least `count` mails were written; returns all of them.
    #[track_caller]
    pub fn wait_for_mails(&self, count: usize) -> Vec<String> {
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            let mails = self.mails();
            if mails.len() >= count {
                return mails;
            }
            assert!(
                Instant::now() < deadline,
                "expected {count} mail(s) in the mail directory, found {}\nlog:\n{}",
                mails.len(),
                self.log()
            );
            thread::sleep(Duration::from_millis(50));
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
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            let mails = self.mails();
            if let Some(new) = mails.into_iter().find(|mail| !earlier.contains(mail)) {
                return new;
            }
            assert!(
                Instant::now() < deadline,
                "expected a new mail besides the {} earlier one(s)\nlog:\n{}",
                earlier.len(),
                self.log()
            );
            thread::sleep(Duration::from_millis(50));
        }
    }

    /// Asserts that, after a short wait for stray mail, exactly `count` mails
    /// were written: call it after requests that must send none.
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
