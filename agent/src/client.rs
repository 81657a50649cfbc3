//! HTTP calls to the devmgr server, and how their failures are classified.

use crate::answer_limit::{AnswerBuffer, MAX_ANSWER_BYTES, TooLarge};
use crate::endpoints::Endpoints;
use crate::protocol::{Ack, Command, CommandList, HeartbeatAnswer, InstallAnswer, InstallRequest};
use domain::PollWait;
use reqwest::header::{AUTHORIZATION, HeaderValue, LOCATION, RETRY_AFTER};
use reqwest::{RequestBuilder, Response, StatusCode, redirect};
use serde::Serialize;
use serde::de::DeserializeOwned;
use std::time::Duration;

/// How long to wait for a TCP (and TLS) connection.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// How long an ordinary request may take.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(30);
/// How much longer than its `wait` a long poll may take.
const LONG_POLL_MARGIN: Duration = Duration::from_secs(15);
/// The longest error text kept from an answer.
const MAX_DETAIL_CHARS: usize = 500;

/// The HTTP client cannot be set up (for example, no TLS backend).
#[derive(Debug, thiserror::Error)]
pub enum ClientSetupError {
    /// reqwest refused to build a client.
    #[error("cannot set up the HTTP client: {0}")]
    Http(String),
    /// The device token cannot go into an HTTP header.
    #[error(
        "the device token in the configuration contains characters not allowed in an HTTP header"
    )]
    InvalidToken,
}

/// A failed call to the server.
#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    /// No answer: connection refused, DNS failure, timeout, broken connection.
    #[error("cannot reach the server: {0}")]
    Unreachable(String),
    /// 5xx or 429: the server is there but cannot serve now.
    #[error("the server is unavailable ({status}): {detail}")]
    Unavailable {
        /// The answer's status.
        status: StatusCode,
        /// What the server said.
        detail: String,
        /// The `Retry-After` of the answer, if any.
        retry_after: Option<Duration>,
    },
    /// 401: the device token is unknown (the device was deleted or re-keyed).
    #[error("the server refused the device token ({status}): {detail}")]
    Unauthorized {
        /// The answer's status.
        status: StatusCode,
        /// What the server said.
        detail: String,
    },
    /// Another 4xx (or an unexpected status): the server refused the request.
    #[error("the server refused the request ({status}): {detail}")]
    Refused {
        /// The answer's status.
        status: StatusCode,
        /// What the server said, field errors as `field: message`.
        detail: String,
    },
    /// A success whose body is not what the protocol says.
    #[error("unexpected answer from the server ({status}): {reason}")]
    UnexpectedAnswer {
        /// The answer's status.
        status: StatusCode,
        /// What is wrong with it.
        reason: String,
    },
    /// An answer whose body is over [`MAX_ANSWER_BYTES`]: not read further.
    #[error(
        "the server's answer ({status}) is larger than {} MiB; it was not read",
        MAX_ANSWER_BYTES >> 20
    )]
    AnswerTooLarge {
        /// The answer's status.
        status: StatusCode,
    },
    /// A 3xx answer: redirects are never followed, so that nothing (the
    /// install token least of all) goes to a place the server names.
    #[error(
        "the server redirected the request ({status}) to {}; redirects are not followed: \
         use the final URL as the server URL",
        location.as_deref().unwrap_or("nowhere")
    )]
    Redirected {
        /// The answer's status.
        status: StatusCode,
        /// Its `Location`, if any.
        location: Option<String>,
    },
}

impl ApiError {
    /// Whether trying again later may succeed: no answer, 5xx, 429, or a
    /// garbled or oversized answer. 4xx answers (401 included) and redirects
    /// are not transient.
    pub fn is_transient(&self) -> bool {
        matches!(
            self,
            ApiError::Unreachable(_)
                | ApiError::Unavailable { .. }
                | ApiError::UnexpectedAnswer { .. }
                | ApiError::AnswerTooLarge { .. }
        )
    }
}

/// Calls that need no device credential: enrolment.
#[derive(Debug, Clone)]
pub struct ServerClient {
    http: reqwest::Client,
    endpoints: Endpoints,
}

impl ServerClient {
    /// A client for the server at `endpoints`; it never follows redirects.
    pub fn new(endpoints: Endpoints) -> Result<Self, ClientSetupError> {
        let http = reqwest::Client::builder()
            .user_agent(concat!("devmgr-agent/", env!("CARGO_PKG_VERSION")))
            .connect_timeout(CONNECT_TIMEOUT)
            .redirect(redirect::Policy::none())
            .build()
            .map_err(|error| ClientSetupError::Http(error_chain(&error)))?;
        Ok(Self { http, endpoints })
    }

    /// `POST /install/`: enrols (or re-keys) a device.
    pub async fn install(&self, request: &InstallRequest) -> Result<InstallAnswer, ApiError> {
        let builder = self
            .http
            .post(self.endpoints.install())
            .timeout(REQUEST_TIMEOUT)
            .json(request);
        json_body(send(builder).await?).await
    }
}

/// Calls made with the device's credential.
#[derive(Debug, Clone)]
pub struct DeviceClient {
    server: ServerClient,
    authorization: HeaderValue,
}

impl DeviceClient {
    /// A client that authenticates with `Authorization: Device <device_token>`.
    pub fn new(endpoints: Endpoints, device_token: &str) -> Result<Self, ClientSetupError> {
        let mut authorization = HeaderValue::from_str(&format!("Device {device_token}"))
            .map_err(|_| ClientSetupError::InvalidToken)?;
        authorization.set_sensitive(true);
        Ok(Self {
            server: ServerClient::new(endpoints)?,
            authorization,
        })
    }

    /// `POST /agent/heartbeat/` with the machine's facts.
    pub async fn heartbeat(&self, facts: &impl Serialize) -> Result<HeartbeatAnswer, ApiError> {
        let builder = self
            .server
            .http
            .post(self.server.endpoints.heartbeat())
            .timeout(REQUEST_TIMEOUT)
            .json(facts);
        json_body(self.authorized(builder).await?).await
    }

    /// `GET /agent/commands/?wait=<wait>`: waits up to `wait` seconds for commands.
    pub async fn commands(&self, wait: PollWait) -> Result<Vec<Command>, ApiError> {
        let builder = self
            .server
            .http
            .get(self.server.endpoints.commands(wait))
            .timeout(wait.duration() + LONG_POLL_MARGIN);
        let list: CommandList = json_body(self.authorized(builder).await?).await?;
        Ok(list.commands)
    }

    /// `POST /agent/commands/{id}/ack/`.
    pub async fn ack(&self, command_id: &str, ack: &Ack) -> Result<(), ApiError> {
        let builder = self
            .server
            .http
            .post(self.server.endpoints.ack(command_id))
            .timeout(REQUEST_TIMEOUT)
            .json(ack);
        self.authorized(builder).await.map(drop)
    }

    async fn authorized(&self, builder: RequestBuilder) -> Result<Response, ApiError> {
        send(builder.header(AUTHORIZATION, self.authorization.clone())).await
    }
}

/// Sends a request; anything but a 2xx answer is an error.
async fn send(builder: RequestBuilder) -> Result<Response, ApiError> {
    let response = builder
        .send()
        .await
        .map_err(|error| ApiError::Unreachable(error_chain(&error)))?;
    let status = response.status();
    if status.is_success() {
        return Ok(response);
    }
    if status.is_redirection() {
        let location = response
            .headers()
            .get(LOCATION)
            .map(|value| String::from_utf8_lossy(value.as_bytes()).into_owned());
        return Err(ApiError::Redirected { status, location });
    }
    let retry_after = retry_after(&response);
    let body = match read_body(response).await {
        Ok(body) => body,
        Err(error @ ApiError::AnswerTooLarge { .. }) => return Err(error),
        // A broken body only costs the error its details.
        Err(_) => Vec::new(),
    };
    let detail = describe_error_body(&String::from_utf8_lossy(&body));
    Err(if status == StatusCode::UNAUTHORIZED {
        ApiError::Unauthorized { status, detail }
    } else if status == StatusCode::TOO_MANY_REQUESTS || status.is_server_error() {
        ApiError::Unavailable {
            status,
            detail,
            retry_after,
        }
    } else {
        ApiError::Refused { status, detail }
    })
}

async fn json_body<T: DeserializeOwned>(response: Response) -> Result<T, ApiError> {
    let status = response.status();
    let bytes = read_body(response).await?;
    serde_json::from_slice(&bytes).map_err(|error| ApiError::UnexpectedAnswer {
        status,
        reason: error.to_string(),
    })
}

/// The body of `response`, read a chunk at a time, whatever its framing
/// (Content-Length, chunked, or up to the connection's end). One over
/// [`MAX_ANSWER_BYTES`] is not read further (nor at all when its
/// Content-Length says so) and is an error.
async fn read_body(mut response: Response) -> Result<Vec<u8>, ApiError> {
    let status = response.status();
    let mut body = AnswerBuffer::new(MAX_ANSWER_BYTES);
    let too_large = |TooLarge| ApiError::AnswerTooLarge { status };
    if let Some(length) = response.content_length() {
        body.expect_length(length).map_err(too_large)?;
    }
    while let Some(chunk) = response
        .chunk()
        .await
        .map_err(|error| ApiError::Unreachable(error_chain(&error)))?
    {
        body.push(&chunk).map_err(too_large)?;
    }
    Ok(body.into_bytes())
}

/// `Retry-After` in seconds (the HTTP-date form is not used by devmgr), at
/// most an hour: a longer wait, even one beyond 64 bits, counts as an hour.
fn retry_after(response: &Response) -> Option<Duration> {
    let value = response.headers().get(RETRY_AFTER)?.to_str().ok()?;
    retry_after_seconds(value)
}

/// Reads a `Retry-After` value of whole seconds, capped at an hour.
pub(crate) fn retry_after_seconds(value: &str) -> Option<Duration> {
    let value = value.trim();
    if value.is_empty() || !value.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let seconds = value.parse::<u64>().unwrap_or(u64::MAX);
    Some(Duration::from_secs(seconds).min(crate::retry::MAX_RETRY_AFTER))
}

/// A readable summary of an error body: DRF's `{"detail": "…"}` as is, field
/// errors as `field: message`, joined with `; `.
pub fn describe_error_body(body: &str) -> String {
    let described = match serde_json::from_str::<serde_json::Value>(body) {
        Ok(serde_json::Value::Object(fields)) => fields
            .iter()
            .map(|(field, errors)| match (field.as_str(), errors) {
                ("detail", serde_json::Value::String(message)) => message.clone(),
                (_, errors) => format!("{field}: {}", describe_messages(errors)),
            })
            .collect::<Vec<_>>()
            .join("; "),
        _ => body.trim().to_owned(),
    };
    if described.is_empty() {
        "(no details)".to_owned()
    } else {
        let cut: String = described.chars().take(MAX_DETAIL_CHARS).collect();
        domain::AckDetail::cut_to_fit(&cut).into_string()
    }
}

fn describe_messages(errors: &serde_json::Value) -> String {
    match errors {
        serde_json::Value::String(message) => message.clone(),
        serde_json::Value::Array(items) if items.iter().all(|item| item.is_string()) => items
            .iter()
            .filter_map(|item| item.as_str())
            .collect::<Vec<_>>()
            .join(" "),
        other => other.to_string(),
    }
}

/// An error and its causes, `: `-separated (reqwest's own message alone says
/// little more than "error sending request").
pub fn error_chain(error: &(dyn std::error::Error + 'static)) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        let cause_text = cause.to_string();
        if !text.ends_with(&cause_text) {
            text.push_str(": ");
            text.push_str(&cause_text);
        }
        source = cause.source();
    }
    text
}

#[cfg(test)]
mod tests;
