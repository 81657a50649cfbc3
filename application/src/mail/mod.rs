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

/// An alert's own mail: `subject` (`Alert opened: <monitor>` or
/// `Alert resolved: <monitor>`), the alert's reason and id.
pub fn alert(id: String, to: &str, subject: &str, reason: &str, alert_id: &str) -> Email {
    let text = format!("{subject}\n\n{reason}\n\nAlert: {alert_id}\n");
    let html = format!(
        "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>{title}</title></head>\n<body>\n<h1>{title}</h1>\n<p>{reason}</p>\n<p>Alert: <code>{alert_id}</code></p>\n</body></html>\n",
        title = escape_html(subject),
        reason = escape_html(reason),
        alert_id = escape_html(alert_id),
    );
    Email {
        id,
        to: to.to_owned(),
        subject: subject.to_owned(),
        text,
        html,
    }
}

/// The digest of an alert mail window: `Alert digest: <N> notifications`,
/// each line a notification's subject and its alert's id.
pub fn alert_digest(id: String, to: &str, lines: &[(String, String)]) -> Email {
    let subject = format!("Alert digest: {} notifications", lines.len());
    let mut text = format!("{subject}\n\n");
    let mut items = String::new();
    for (line_subject, alert_id) in lines {
        text.push_str(&format!("{line_subject} (alert {alert_id})\n"));
        items.push_str(&format!(
            "<li>{} (alert <code>{}</code>)</li>\n",
            escape_html(line_subject),
            escape_html(alert_id)
        ));
    }
    let html = format!(
        "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>{title}</title></head>\n<body>\n<h1>{title}</h1>\n<ul>\n{items}</ul>\n</body></html>\n",
        title = escape_html(&subject),
    );
    Email {
        id,
        to: to.to_owned(),
        subject,
        text,
        html,
    }
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
    fn alert_mails_carry_the_reason_and_id_and_the_digest_every_line() {
        let mail = alert(
            "a1".into(),
            "ann@example.com",
            "Alert opened: <Lab>",
            "No heartbeat from \"pi\" since 2026-01-01T00:00:00 UTC (more than 600 s).",
            "0b7f",
        );
        assert_eq!(mail.subject, "Alert opened: <Lab>");
        assert!(mail.text.contains("No heartbeat from \"pi\" since"));
        assert!(mail.text.contains("0b7f"));
        assert!(mail.html.contains("Alert opened: &lt;Lab&gt;"));
        let lines = vec![
            ("Alert opened: Lab".to_owned(), "id-1".to_owned()),
            ("Alert resolved: Lab".to_owned(), "id-2".to_owned()),
        ];
        let digest = alert_digest("d1".into(), "ann@example.com", &lines);
        assert_eq!(digest.subject, "Alert digest: 2 notifications");
        assert!(digest.text.contains("Alert opened: Lab (alert id-1)"));
        assert!(digest.text.contains("Alert resolved: Lab (alert id-2)"));
    }

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
