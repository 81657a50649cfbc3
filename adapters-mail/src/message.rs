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
pub fn build_message(from: &Mailbox, email: &Email) -> Result<Message, MessageError> {
    let to: Mailbox = email
        .to
        .parse()
        .map_err(|e| MessageError(format!("recipient: {e}")))?;
    let domain = from.email.domain().to_owned();
    Message::builder()
        .from(from.clone())
        .to(to)
        .subject(email.subject.clone())
        .message_id(Some(format!("<{}@{domain}>", uuid::Uuid::new_v4())))
        .multipart(
            MultiPart::alternative()
                .singlepart(part(ContentType::TEXT_PLAIN, &email.text))
                .singlepart(part(ContentType::TEXT_HTML, &email.html)),
        )
        .map_err(|e| MessageError(e.to_string()))
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
