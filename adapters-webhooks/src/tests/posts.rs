//! Posts over plain HTTP: what arrives, what counts as an answer, and what
//! is never sent.

use super::receiver::{Answer, Receiver};
use crate::{HttpTransport, USER_AGENT};
use application::ports::{AddressRefusal, OutgoingPost, PostOutcome, WebhookTransport};
use domain::webhook::{UNRESOLVED_HOST_MESSAGE, signature_header};
use domain::{DeliveryId, TargetUrl, WebhookEvent};
use std::time::Duration;

const SECRET: &str = "a-secret-of-the-receiver";
const BODY: &str = r#"{"event":"ping","delivery":"x","time":"2025-01-01T00:00:00Z","data":{}}"#;

/// A signed ping to `url`.
pub(super) fn ping(url: &str) -> OutgoingPost {
    OutgoingPost {
        target: TargetUrl::parse(url).unwrap(),
        event: WebhookEvent::Ping,
        delivery: DeliveryId::from_random_bytes([7; 16]),
        signature: signature_header(SECRET, BODY.as_bytes()),
        body: BODY.to_owned(),
    }
}

fn private_allowed() -> HttpTransport {
    HttpTransport::new(true).with_limit(Duration::from_millis(500))
}

#[tokio::test]
async fn the_body_and_headers_arrive_signed() {
    let mut receiver = Receiver::plain(Answer::Status(204, vec![])).await;
    let post = ping(&format!(
        "http://127.0.0.1:{}/hooks/devmgr?x=1",
        receiver.port
    ));
    assert_eq!(
        private_allowed().post(&post).await,
        PostOutcome::Answered(204)
    );
    let received = receiver.next().await;
    assert_eq!(received.method, "POST");
    assert_eq!(received.path, "/hooks/devmgr?x=1");
    assert_eq!(received.body, BODY.as_bytes());
    let header = |name: &str| received.headers.get(name).map(String::as_str);
    assert_eq!(header("content-type"), Some("application/json"));
    assert_eq!(header("x-devmgr-event"), Some("ping"));
    assert_eq!(header("x-devmgr-delivery"), Some(post.delivery.as_str()));
    assert_eq!(header("user-agent"), Some(USER_AGENT));
    assert!(USER_AGENT.starts_with("devmgr-webhooks/0."));
    assert_eq!(
        header("x-devmgr-signature"),
        Some(signature_header(SECRET, &received.body).as_str())
    );
}

#[tokio::test]
async fn a_host_name_goes_to_the_address_it_resolved_to() {
    let mut receiver = Receiver::plain(Answer::Status(200, vec![])).await;
    let post = ping(&format!("http://localhost:{}/", receiver.port));
    assert_eq!(
        private_allowed().post(&post).await,
        PostOutcome::Answered(200)
    );
    assert_eq!(
        receiver
            .next()
            .await
            .headers
            .get("host")
            .map(String::as_str),
        Some(format!("localhost:{}", receiver.port).as_str())
    );
}

#[tokio::test]
async fn any_status_is_an_answer_and_a_redirect_is_not_followed() {
    for code in [500, 404, 401, 201] {
        let receiver = Receiver::plain(Answer::Status(code, vec![])).await;
        let post = ping(&format!("http://127.0.0.1:{}/", receiver.port));
        assert_eq!(
            private_allowed().post(&post).await,
            PostOutcome::Answered(code)
        );
    }
    let elsewhere = Receiver::plain(Answer::Status(200, vec![])).await;
    let location = format!("Location: http://127.0.0.1:{}/", elsewhere.port);
    let mut redirecting = Receiver::plain(Answer::Status(302, vec![location])).await;
    let post = ping(&format!("http://127.0.0.1:{}/", redirecting.port));
    assert_eq!(
        private_allowed().post(&post).await,
        PostOutcome::Answered(302)
    );
    redirecting.next().await;
    assert_eq!(elsewhere.connections(), 0, "the redirect was followed");
}

#[tokio::test]
async fn a_receiver_that_never_answers_is_no_answer_within_the_limit() {
    let mut receiver = Receiver::plain(Answer::Never).await;
    let post = ping(&format!("http://127.0.0.1:{}/", receiver.port));
    assert_eq!(
        private_allowed().post(&post).await,
        PostOutcome::NoAnswer("No answer within 500 ms.".into())
    );
    assert_eq!(receiver.next().await.body, BODY.as_bytes());
}

#[tokio::test]
async fn a_closed_port_is_no_answer_that_keeps_the_url_to_itself() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    drop(listener);
    let post = ping(&format!(
        "http://user:hunter2@127.0.0.1:{port}/?token=sekrit"
    ));
    let PostOutcome::NoAnswer(reason) = private_allowed().post(&post).await else {
        panic!("a closed port answered");
    };
    assert!(reason.starts_with("Could not connect: "), "{reason}");
    assert!(!reason.contains('\n'), "{reason}");
    for secret in ["hunter2", "sekrit", SECRET, "127.0.0.1"] {
        assert!(!reason.contains(secret), "{reason} shows {secret}");
    }
}

#[tokio::test]
async fn a_name_that_stopped_resolving_is_no_answer_not_a_refusal() {
    let post = ping("http://devmgr-webhooks.invalid/");
    assert_eq!(
        HttpTransport::new(false).post(&post).await,
        PostOutcome::NoAnswer(UNRESOLVED_HOST_MESSAGE.into())
    );
}

#[tokio::test]
async fn a_private_address_is_refused_and_nothing_is_sent() {
    let receiver = Receiver::plain(Answer::Status(204, vec![])).await;
    for url in [
        format!("http://127.0.0.1:{}/", receiver.port),
        format!("http://localhost:{}/", receiver.port),
        format!("http://[::ffff:127.0.0.1]:{}/", receiver.port),
    ] {
        assert_eq!(
            HttpTransport::new(false).post(&ping(&url)).await,
            PostOutcome::Refused(AddressRefusal::Forbidden),
            "{url}"
        );
    }
    assert_eq!(receiver.connections(), 0);
}
