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

/// A mail's subject and the text and HTML templates of its body; `{link}`
/// in a template stands for the mail's link.
struct Template {
    subject: &'static str,
    text: &'static str,
    html: &'static str,
}

const VERIFICATION: Template = Template {
    subject: "Confirm your devmgr e-mail address",
    text: include_str!("templates/verification.txt"),
    html: include_str!("templates/verification.html"),
};

const PASSWORD_RESET: Template = Template {
    subject: "Set a new devmgr password",
    text: include_str!("templates/password_reset.txt"),
    html: include_str!("templates/password_reset.html"),
};

impl Template {
    fn render(&self, id: String, to: &str, link: &str) -> Email {
        Email {
            id,
            to: to.to_owned(),
            subject: self.subject.to_owned(),
            text: self.text.replace("{link}", link),
            html: self.html.replace("{link}", &escape_html(link)),
        }
    }
}

/// The mail that asks a new account holder to confirm the address.
pub fn verification(id: String, to: &str, link: &str) -> Email {
    VERIFICATION.render(id, to, link)
}

/// The mail with a link for setting a new password.
pub fn password_reset(id: String, to: &str, link: &str) -> Email {
    PASSWORD_RESET.render(id, to, link)
}

/// `text` safe inside HTML text and double-quoted attributes.
fn escape_html(text: &str) -> String {
    let mut escaped = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => escaped.push_str("&amp;"),
            '<' => escaped.push_str("&lt;"),
            '>' => escaped.push_str("&gt;"),
            '"' => escaped.push_str("&quot;"),
            '\'' => escaped.push_str("&#39;"),
            c => escaped.push(c),
        }
    }
    escaped
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_twins_carry_the_link_and_html_escapes_it() {
        let link = "https://links.test/r?key=k&x=\"y\"";
        let mail = password_reset("5eed".into(), "ann@example.com", link);
        assert_eq!(mail.subject, "Set a new devmgr password");
        assert!(mail.text.contains(link), "{}", mail.text);
        assert!(
            mail.html
                .contains("href=\"https://links.test/r?key=k&amp;x=&quot;y&quot;\""),
            "{}",
            mail.html
        );
        assert!(!mail.text.contains("{link}") && !mail.html.contains("{link}"));
        let mail = verification(
            "5eed".into(),
            "ann@example.com",
            "https://links.test/v?key=k",
        );
        assert!(mail.text.contains("https://links.test/v?key=k"));
        assert!(mail.html.contains("<h1>Confirm your e-mail address</h1>"));
    }
}
