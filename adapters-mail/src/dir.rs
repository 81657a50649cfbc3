use crate::message::build_message;
use application::mail::Email;
use application::ports::{MailError, Mailer};
use async_trait::async_trait;
use lettre::message::Mailbox;
use std::fs::{DirBuilder, OpenOptions};
use std::io::Write;
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

/// Writes every mail as one `.eml` file in a folder.
///
/// Files are written under a temporary name and renamed, so a reader never
/// sees half a message. Names sort by time of sending and end in the
/// mail's id. Mail holds live links (a reset link opens the account), so
/// the files are readable by devmgr's user only (0600, a new folder 0700).
#[derive(Debug, Clone)]
pub struct DirMailer {
    dir: PathBuf,
    from: Mailbox,
}

impl DirMailer {
    /// Creates the folder (0700) if needed.
    pub fn new(dir: PathBuf, from: Mailbox) -> std::io::Result<Self> {
        DirBuilder::new().recursive(true).mode(0o700).create(&dir)?;
        Ok(Self { dir, from })
    }
}

/// Writes a new file readable and writable by its owner only.
fn write_private(path: &Path, contents: &[u8]) -> std::io::Result<()> {
    let mut file = OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)?;
    file.write_all(contents)?;
    file.sync_all()
}

#[async_trait]
impl Mailer for DirMailer {
    async fn send(&self, email: &Email) -> Result<(), MailError> {
        let message =
            build_message(&self.from, email).map_err(|e| MailError::Permanent(e.to_string()))?;
        let nanos = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0);
        // `build_message` accepted the id, so it is safe in a file name.
        let name = format!("{nanos:024}-{}", email.id);
        let (temp, path) = (
            self.dir.join(format!(".{name}.tmp")),
            self.dir.join(format!("{name}.eml")),
        );
        tokio::task::spawn_blocking(move || {
            write_private(&temp, &message.formatted())?;
            std::fs::rename(&temp, &path)
        })
        .await
        .unwrap_or_else(|e| Err(std::io::Error::other(e)))
        .map_err(|e| MailError::Transient(format!("write e-mail file: {e}")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mail() -> Email {
        Email {
            id: "5eed".into(),
            to: "Owner@Example.com".into(),
            subject: "Confirm your devmgr e-mail address".into(),
            text: format!(
                "Open this link:\n\nhttp://devmgr.test:8000/verify-email/{}/\n",
                "k".repeat(43)
            ),
            html: "<p><a href=\"http://devmgr.test:8000/verify-email/x/\">Confirm</a></p>".into(),
        }
    }

    #[tokio::test]
    async fn writes_one_complete_rfc5322_file_per_mail() {
        let dir = tempfile::tempdir().unwrap();
        let mailer = DirMailer::new(
            dir.path().join("mail"),
            "devmgr <noreply@devmgr.test>".parse().unwrap(),
        )
        .unwrap();
        mailer.send(&mail()).await.unwrap();
        mailer.send(&mail()).await.unwrap();
        let files: Vec<_> = std::fs::read_dir(dir.path().join("mail"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        assert_eq!(files.len(), 2);
        let text = std::fs::read_to_string(&files[0]).unwrap();
        for header in [
            "From: devmgr <noreply@devmgr.test>",
            "To: Owner@Example.com",
            "Subject: Confirm your devmgr e-mail address",
            "Date: ",
            "Message-ID: <5eed@devmgr.test>",
            "MIME-Version: 1.0",
            "multipart/alternative",
            "Content-Transfer-Encoding: 7bit",
        ] {
            assert!(text.contains(header), "{header} missing from:\n{text}");
        }
        let link = format!("http://devmgr.test:8000/verify-email/{}/", "k".repeat(43));
        assert!(text.contains(&link), "link wrapped or encoded:\n{text}");
        assert!(
            files
                .iter()
                .all(|f| f.to_string_lossy().ends_with("-5eed.eml")),
            "{files:?}"
        );
    }

    #[tokio::test]
    async fn mail_files_and_a_new_folder_are_private_whatever_the_umask() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let folder = dir.path().join("new").join("mail");
        let mailer = DirMailer::new(
            folder.clone(),
            "devmgr <noreply@devmgr.test>".parse().unwrap(),
        )
        .unwrap();
        mailer.send(&mail()).await.unwrap();
        let mode = |path: &Path| std::fs::metadata(path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&folder), 0o700);
        for file in std::fs::read_dir(&folder).unwrap() {
            assert_eq!(mode(&file.unwrap().path()), 0o600);
        }
    }

    #[tokio::test]
    async fn a_bad_recipient_is_an_error_not_a_file() {
        let dir = tempfile::tempdir().unwrap();
        let mailer = DirMailer::new(
            dir.path().to_owned(),
            "devmgr <noreply@devmgr.test>".parse().unwrap(),
        )
        .unwrap();
        let bad = Email {
            to: "not an address".into(),
            ..mail()
        };
        assert!(matches!(
            mailer.send(&bad).await,
            Err(MailError::Permanent(_))
        ));
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }

    #[tokio::test]
    async fn a_folder_that_cannot_be_written_is_worth_retrying() {
        let dir = tempfile::tempdir().unwrap();
        let mailer = DirMailer::new(
            dir.path().join("mail"),
            "devmgr <noreply@devmgr.test>".parse().unwrap(),
        )
        .unwrap();
        std::fs::remove_dir(dir.path().join("mail")).unwrap();
        assert!(matches!(
            mailer.send(&mail()).await,
            Err(MailError::Transient(message)) if message.contains("write e-mail file")
        ));
    }
}
