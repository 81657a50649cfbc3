//! No connection outlives its request's body deadline: an answer sent
//! before the request's body has arrived whole (a 401, a 408, a route that
//! reads no body) closes the connection. actix-http would otherwise drain
//! the rest of a dropped chunked body with no timer, and a client trickling
//! one chunk every few seconds could hold the connection open for ever.

use actix_web::body::{BodySize, BoxBody, MessageBody};
use actix_web::dev::{Payload, ServiceRequest, ServiceResponse};
use actix_web::error::PayloadError;
use actix_web::middleware::Next;
use actix_web::web::Bytes;
use futures_util::Stream;
use std::cell::RefCell;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll};

/// The request's own body, and whether it was read to its end.
struct Body {
    payload: Payload,
    finished: bool,
}

/// What the handlers read instead of the body: the same bytes, noting the end.
struct Tracked(Rc<RefCell<Body>>);

impl Stream for Tracked {
    type Item = Result<Bytes, PayloadError>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let mut body = self.0.borrow_mut();
        let polled = Pin::new(&mut body.payload).poll_next(cx);
        if matches!(polled, Poll::Ready(None | Some(Err(_)))) {
            body.finished = true;
        }
        polled
    }
}

/// An answer's body that holds its request's body while it is sent, when
/// that was not read to its end: while it lives, actix-http sees the request
/// body as unread and closes the connection after the answer instead of
/// draining it.
struct Holding {
    body: BoxBody,
    /// Held, never read: while it lives, the connection closes.
    unread: Option<Rc<RefCell<Body>>>,
}

impl MessageBody for Holding {
    type Error = Box<dyn std::error::Error>;

    fn size(&self) -> BodySize {
        self.body.size()
    }

    fn poll_next(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Bytes, Self::Error>>> {
        Pin::new(&mut self.get_mut().body).poll_next(cx)
    }

    /// An answer of bytes in hand is written at once, as without this
    /// wrapper, unless it must keep an unread request body alive.
    fn try_into_bytes(self) -> Result<Bytes, Self> {
        if self.unread.is_some() {
            return Err(self);
        }
        self.body
            .try_into_bytes()
            .map_err(|body| Self { body, unread: None })
    }
}

/// The middleware: wraps the body, and keeps it alive while the answer is
/// sent when it was not read to its end.
pub(crate) async fn close_after_unread_body(
    mut req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<impl MessageBody>, actix_web::Error> {
    let payload = req.parts_mut().1.take();
    if matches!(payload, Payload::None) {
        let response = next.call(req).await?.map_into_boxed_body();
        return Ok(response.map_body(|_, body| Holding { body, unread: None }));
    }
    let body = Rc::new(RefCell::new(Body {
        payload,
        finished: false,
    }));
    req.set_payload(Payload::Stream {
        payload: Box::pin(Tracked(body.clone())),
    });
    let response = next.call(req).await?.map_into_boxed_body();
    let finished = body.borrow().finished;
    let unread = (!finished).then_some(body);
    Ok(response.map_body(|_, body| Holding { body, unread }))
}
