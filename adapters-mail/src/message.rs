//! Turning an [`Email`] into an RFC 5322 message.

use application::mail::Email;
use lettre::Message;
use lettre::message::header::{ContentTransferEncoding, ContentType};
use lettre::message::{Body, Mailbox, MultiPart, SinglePart};

/// The mail could not be built (a bad address, most likely).
#[derive(Debug, thiserror::Error)]
#[error("cannot build the e-mail: {0}")]
pub struct MessageError(String);

/// Builds a multipart/alternative message (plain text, then HTML) with
/// `From`, `To`, `Subject`, `Date` and `Message-ID`. Parts that are plain
/// ASCII go out as 7bit, so links are never wrapped or encoded.
///
/// The `Message-ID` is `<{email.id}@{domain of from}>`: every delivery attempt
/// of one mail carries the same one, so receivers can drop duplicates.
pub fn build_message(from: &Mailbox, email: &Email) -> Result<Message, MessageError> {
    let to: Mailbox = email
        .to
        .parse()
        .map_err(|e| MessageError(format!("recipient: {e}")))?;
    Message::builder()
        .from(from.clone())
        .to(to)
        .subject(email.subject.clone())
        .message_id(Some(message_id(from, &email.id)?))
        .multipart(
            MultiPart::alternative()
                .singlepart(part(ContentType::TEXT_PLAIN, &email.text))
                .singlepart(part(ContentType::TEXT_HTML, &email.html)),
        )
        .map_err(|e| MessageError(e.to_string()))
}

/// `<id@domain>`. The id goes into a header (and the outbox into file names),
/// so anything but letters, digits, `-`, `.` and `_` is refused.
fn message_id(from: &Mailbox, id: &str) -> Result<String, MessageError> {
    let safe = !id.is_empty()
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_'));
    if !safe {
        return Err(MessageError(format!("unusable mail id {id:?}")));
    }
    Ok(format!("<{id}@{}>", from.email.domain()))
}

fn part(content_type: ContentType, body: &str) -> SinglePart {
    let builder = SinglePart::builder().header(content_type);
    // RFC 5322 allows 998 characters a line; lettre's automatic choice stops
    // at 76 and would quote-print a long link.
    let fits_7bit =
        body.is_ascii() && !body.contains('\r') && body.lines().all(|line| line.len() <= 998);
    if fits_7bit {
        let crlf = body
            .lines()
            .map(|line| format!("{line}\r\n"))
            .collect::<String>();
        builder.body(Body::dangerous_pre_encoded(
            crlf.into_bytes(),
            ContentTransferEncoding::SevenBit,
        ))
    } else {
        builder.body(body.to_owned())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn from() -> Mailbox {
        "devmgr <noreply@devmgr.test>".parse().unwrap()
    }

    fn mail(id: &str) -> Email {
        Email {
            id: id.into(),
            to: "owner@example.com".into(),
            subject: "Hello".into(),
            text: "Hello.\n".into(),
            html: "<p>Hello.</p>\n".into(),
        }
    }

    fn formatted(email: &Email) -> String {
        String::from_utf8(build_message(&from(), email).unwrap().formatted()).unwrap()
    }

    #[test]
    fn the_message_id_is_made_from_the_mail_id_and_the_sender_domain() {
        let text = formatted(&mail("0123456789abcdef"));
        assert!(
            text.contains("Message-ID: <0123456789abcdef@devmgr.test>\r\n"),
            "{text}"
        );
    }

    #[test]
    fn every_attempt_at_one_mail_has_the_same_message_id() {
        let header = |text: String| {
            text.lines()
                .find(|line| line.starts_with("Message-ID:"))
                .map(str::to_owned)
        };
        let first = header(formatted(&mail("42")));
        assert!(first.is_some());
        assert_eq!(first, header(formatted(&mail("42"))));
    }

    #[test]
    fn an_id_that_could_break_the_header_is_refused() {
        for id in ["", "a b", "a>b", "a\r\nBcc: x@example.com"] {
            let error = build_message(&from(), &mail(id)).unwrap_err();
            assert!(error.to_string().contains("mail id"), "{id:?}: {error}");
        }
    }

    #[test]
    fn non_ascii_text_is_still_sent_encoded() {
        let text = formatted(&Email {
            text: "Grüße\n".into(),
            ..mail("1")
        });
        assert!(!text.contains("Grüße"), "{text}");
        assert!(
            text.contains("Content-Transfer-Encoding: quoted-printable")
                || text.contains("Content-Transfer-Encoding: base64"),
            "{text}"
        );
    }
}
