//! The e-mails devmgr sends, as plain text and HTML twins.

/// One outgoing message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Email {
    /// Unique, `[0-9a-f]`: names the mail in the outbox and makes its
    /// `Message-ID`, which stays the same across delivery attempts.
    pub id: String,
    /// Recipient address.
    pub to: String,
    /// Subject line.
    pub subject: String,
    /// Plain-text body.
    pub text: String,
    /// HTML body.
    pub html: String,
}

/// The mail that asks a new account holder to confirm the address.
pub fn verification(id: String, to: &str, link: &str) -> Email {
    Email {
        id,
        to: to.to_owned(),
        subject: "Confirm your devmgr e-mail address".to_owned(),
        text: format!(
            "Welcome to devmgr.\n\n\
             Open this link to confirm your e-mail address:\n\n{link}\n\n\
             The link is valid for 72 hours. If you did not register, ignore this mail.\n"
        ),
        html: page(
            "Confirm your e-mail address",
            &format!(
                "<p>Welcome to devmgr.</p>\n<p><a href=\"{link}\">Confirm your e-mail address</a></p>\n\
                 <p>The link is valid for 72 hours. If you did not register, ignore this mail.</p>"
            ),
        ),
    }
}

/// The mail with a link for setting a new password.
pub fn password_reset(id: String, to: &str, link: &str) -> Email {
    Email {
        id,
        to: to.to_owned(),
        subject: "Set a new devmgr password".to_owned(),
        text: format!(
            "Someone asked to set a new password for this devmgr account.\n\n\
             Open this link to choose one:\n\n{link}\n\n\
             The link is valid for 24 hours and works once. If it was not you, ignore this mail.\n"
        ),
        html: page(
            "Set a new password",
            &format!(
                "<p>Someone asked to set a new password for this devmgr account.</p>\n\
                 <p><a href=\"{link}\">Choose a new password</a></p>\n\
                 <p>The link is valid for 24 hours and works once. If it was not you, ignore this mail.</p>"
            ),
        ),
    }
}

fn page(title: &str, body: &str) -> String {
    format!(
        "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>{title}</title></head>\n\
         <body>\n<h1>{title}</h1>\n{body}\n</body></html>\n"
    )
}
