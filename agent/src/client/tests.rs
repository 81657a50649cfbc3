//! How the client classifies failures and describes error bodies.

use super::*;

#[test]
fn field_errors_read_as_field_and_message() {
    assert_eq!(
        describe_error_body(r#"{"install_token": ["Invalid install token."]}"#),
        "install_token: Invalid install token."
    );
    assert_eq!(
        describe_error_body(
            r#"{"name": ["This field is required."], "serial": ["Must be a valid UUID.", "Again."]}"#
        ),
        "name: This field is required.; serial: Must be a valid UUID. Again."
    );
}

#[test]
fn a_detail_reads_as_itself() {
    assert_eq!(
        describe_error_body(r#"{"detail": "Invalid token."}"#),
        "Invalid token."
    );
}

#[test]
fn nested_errors_and_other_bodies_stay_readable() {
    assert_eq!(
        describe_error_body(r#"{"ports": [{}, {"port": ["Too big."]}]}"#),
        r#"ports: [{},{"port":["Too big."]}]"#
    );
    assert_eq!(
        describe_error_body("<html>Bad Gateway</html>\n"),
        "<html>Bad Gateway</html>"
    );
    assert_eq!(describe_error_body(""), "(no details)");
    assert_eq!(
        describe_error_body(&"x".repeat(900)).len(),
        MAX_DETAIL_CHARS
    );
}

#[test]
fn only_answers_worth_retrying_are_transient() {
    let unavailable = ApiError::Unavailable {
        status: StatusCode::SERVICE_UNAVAILABLE,
        detail: String::new(),
        retry_after: None,
    };
    assert!(unavailable.is_transient());
    assert!(ApiError::Unreachable("refused".to_owned()).is_transient());
    assert!(
        !ApiError::Unauthorized {
            status: StatusCode::UNAUTHORIZED,
            detail: String::new()
        }
        .is_transient()
    );
    assert!(
        !ApiError::Refused {
            status: StatusCode::NOT_FOUND,
            detail: String::new()
        }
        .is_transient()
    );
}

#[test]
fn an_invalid_token_cannot_make_a_client() {
    let endpoints = Endpoints::new("http://127.0.0.1:1").unwrap();
    assert!(matches!(
        DeviceClient::new(endpoints, "bad\ntoken"),
        Err(ClientSetupError::InvalidToken)
    ));
}

#[test]
fn retry_after_is_whole_seconds_capped_at_an_hour() {
    assert_eq!(retry_after_seconds(" 30 "), Some(Duration::from_secs(30)));
    assert_eq!(
        retry_after_seconds("86400"),
        Some(Duration::from_secs(3600))
    );
    assert_eq!(
        retry_after_seconds("99999999999999999999999999"),
        Some(Duration::from_secs(3600))
    );
    assert_eq!(retry_after_seconds("-5"), None);
    assert_eq!(retry_after_seconds("Wed, 21 Oct 2026 07:28:00 GMT"), None);
    assert_eq!(retry_after_seconds(""), None);
}
