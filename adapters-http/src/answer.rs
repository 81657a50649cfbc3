//! Typed answers: what a handler returns says the status, the body's type
//! and whether it carries a secret, so the route table reads its [`Reply`]
//! from the handler's signature instead of a second description.

use crate::description::{AnswerObject, Described, Location, ObjectSchema, Reply, ReplyBody};
use crate::error::ApiError;
use crate::fields::{Field, FieldType};
use actix_web::http::StatusCode;
use actix_web::http::header::{CACHE_CONTROL, CacheControl, CacheDirective, HeaderValue, LOCATION};
use actix_web::{HttpRequest, HttpResponse, ResponseError};
use serde::Serialize;

/// A successful answer of a handler.
pub trait Answer {
    /// What the route table and the OpenAPI document say it is.
    const REPLY: Reply;

    /// The HTTP response.
    fn respond(self, req: &HttpRequest) -> HttpResponse;
}

/// A 200 answer whose JSON body was written by hand (the answers read most,
/// where serde's machinery costs more than writing the fields).
pub(crate) fn written_json(body: impl actix_web::body::MessageBody + 'static) -> HttpResponse {
    HttpResponse::Ok()
        .content_type(actix_web::mime::APPLICATION_JSON)
        .body(body)
}

/// The shape of a JSON body: one described object, or a list of them.
pub trait JsonBody: Serialize {
    /// How the description shows it.
    const BODY: ReplyBody;
}

impl<T: Described> JsonBody for T {
    const BODY: ReplyBody = ReplyBody::One(AnswerObject::of::<T>());
}

impl<T: Described> JsonBody for Vec<T> {
    const BODY: ReplyBody = ReplyBody::Many(AnswerObject::of::<T>());
}

/// A JSON answer with status `STATUS` (200 unless said).
pub struct Json<T, const STATUS: u16 = 200>(pub T);

impl<T: JsonBody, const STATUS: u16> Answer for Json<T, STATUS> {
    const REPLY: Reply = Reply {
        status: STATUS,
        body: T::BODY,
        location: None,
    };

    fn respond(self, _req: &HttpRequest) -> HttpResponse {
        HttpResponse::build(status(STATUS)).json(self.0)
    }
}

/// A body whose answer names, in `Location`, the absolute URL where what it
/// is about can be read.
pub trait Locates: JsonBody {
    /// How the document describes the header.
    const LOCATION: Location;
}

/// A JSON answer with status `STATUS` and a `Location` header.
pub struct Located<T, const STATUS: u16 = 200> {
    /// The body.
    pub body: T,
    /// The absolute URL of what the body is about.
    pub location: String,
}

impl<T: Locates, const STATUS: u16> Answer for Located<T, STATUS> {
    const REPLY: Reply = Reply {
        location: Some(T::LOCATION),
        ..Json::<T, STATUS>::REPLY
    };

    fn respond(self, req: &HttpRequest) -> HttpResponse {
        let Ok(location) = HeaderValue::try_from(self.location) else {
            let cause = "a Location that is no header value".to_owned();
            return ApiError::Internal(cause).error_response();
        };
        let mut response = Json::<T, STATUS>(self.body).respond(req);
        response.headers_mut().insert(LOCATION, location);
        response
    }
}

/// A JSON answer that carries a secret (a token, an install token): no
/// cache, shared or private, may keep it.
pub struct SecretJson<T, const STATUS: u16 = 200>(pub T);

impl<T: JsonBody, const STATUS: u16> Answer for SecretJson<T, STATUS> {
    const REPLY: Reply = Json::<T, STATUS>::REPLY;

    fn respond(self, req: &HttpRequest) -> HttpResponse {
        let mut response = Json::<T, STATUS>(self.0).respond(req);
        no_store(&mut response);
        response
    }
}

/// A JSON answer with a `Location` header that carries a secret (a new
/// webhook's): no cache may keep it.
pub struct SecretLocated<T, const STATUS: u16 = 200>(pub Located<T, STATUS>);

impl<T: Locates, const STATUS: u16> Answer for SecretLocated<T, STATUS> {
    const REPLY: Reply = Located::<T, STATUS>::REPLY;

    fn respond(self, req: &HttpRequest) -> HttpResponse {
        let mut response = self.0.respond(req);
        no_store(&mut response);
        response
    }
}

/// Marks a response as never to be kept by a cache, shared or private.
fn no_store(response: &mut HttpResponse) {
    if let Ok(value) = CacheControl(vec![CacheDirective::NoStore])
        .to_string()
        .parse()
    {
        response.headers_mut().insert(CACHE_CONTROL, value);
    }
}

/// 204 with no body.
pub struct NoContent;

impl Answer for NoContent {
    const REPLY: Reply = Reply {
        status: 204,
        body: ReplyBody::Empty,
        location: None,
    };

    fn respond(self, _req: &HttpRequest) -> HttpResponse {
        HttpResponse::NoContent().finish()
    }
}

/// A page or a file, built by the handler (HTML, the OpenAPI document).
pub struct Page(pub HttpResponse);

impl Answer for Page {
    const REPLY: Reply = Reply {
        status: 200,
        body: ReplyBody::Page,
        location: None,
    };

    fn respond(self, _req: &HttpRequest) -> HttpResponse {
        self.0
    }
}

/// A described object, or a page for a browser.
pub enum JsonOrPage<T> {
    /// For API clients.
    Json(T),
    /// For a client that accepts `text/html`.
    Page(HttpResponse),
}

impl<T: Described> Answer for JsonOrPage<T> {
    const REPLY: Reply = Reply {
        status: 200,
        body: ReplyBody::OneOrPage(AnswerObject::of::<T>()),
        location: None,
    };

    fn respond(self, req: &HttpRequest) -> HttpResponse {
        match self {
            Self::Json(body) => Json::<T>(body).respond(req),
            Self::Page(page) => page,
        }
    }
}

fn status(code: u16) -> StatusCode {
    StatusCode::from_u16(code).unwrap_or(StatusCode::OK)
}

/// `{"detail": …}`: a success note, and every error not about fields.
#[derive(Debug, Serialize)]
pub struct Detail {
    detail: &'static str,
}

impl Detail {
    /// A note.
    pub const fn new(detail: &'static str) -> Self {
        Self { detail }
    }
}

/// A message: success notes and every error that is not about fields.
pub const DETAIL_SCHEMA: ObjectSchema = ObjectSchema {
    name: "Detail",
    description: "A message about the whole request.",
    fields: &[Field::read_only("detail", "Detail", FieldType::String)],
};

impl Described for Detail {
    const SCHEMA: &'static ObjectSchema = &DETAIL_SCHEMA;

    /// The note an operation answers with depends on the operation: each
    /// route that succeeds with one shows its own (`Route::answer_example`).
    fn example() -> Self {
        Self::new("Done.")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::description::assert_described;
    use actix_web::body::to_bytes;
    use actix_web::test::TestRequest;

    #[test]
    fn detail_writes_its_described_field() {
        assert_described(&Detail::new("Done."));
    }

    #[actix_web::test]
    async fn secrets_are_never_cached_and_statuses_come_from_the_type() {
        let req = TestRequest::default().to_http_request();
        let response = SecretJson::<Detail, 201>(Detail::new("x")).respond(&req);
        assert_eq!(response.status(), StatusCode::CREATED);
        assert_eq!(response.headers().get(CACHE_CONTROL).unwrap(), "no-store");
        let plain = Json::<Detail, 202>(Detail::new("x")).respond(&req);
        assert_eq!(plain.status(), StatusCode::ACCEPTED);
        assert!(plain.headers().get(CACHE_CONTROL).is_none());
        let body = to_bytes(plain.into_body()).await.unwrap();
        assert_eq!(body, r#"{"detail":"x"}"#);
        assert_eq!(<Json<Vec<Detail>>>::REPLY.status, 200);
        assert!(matches!(
            <Json<Vec<Detail>>>::REPLY.body,
            ReplyBody::Many(_)
        ));
    }
}
